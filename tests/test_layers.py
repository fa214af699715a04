"""The import layers: the ground imports no stage, a stage imports only the ground and itself,
and applications are named only in the registry and their own modules."""

from __future__ import annotations

import ast
import importlib
from functools import cache
from pathlib import Path

from fidelity.core.apps import APP_NAMES, APPLICATIONS

ROOT = Path(__file__).resolve().parents[1]
GROUND = "fidelity.core"
STAGES = ("ingest", "extractors", "generators", "filters")
PROJECT = ("fidelity", *STAGES)
REGISTRY = "fidelity.core.apps"
# Modules that spell an application name for another reason, each with that reason.
NAMES_ALLOWED = {
    # "word" here is a producer name (Microsoft Word) read from docProps/app.xml.
    "ingest.rank",
    # The slide and sheet renderers ask LibreOffice for their own application's PDF export.
    "extractors.rendering",
    # "word" here is a cloze kind (a word blanked out, beside "number"), not the application.
    "generators.rules.common",
}


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache  # parsed once for every test of the module
def project_modules(*packages: str) -> dict[str, ast.Module]:
    return {
        module_name(path): ast.parse(path.read_text(), str(path))
        for package in packages
        for path in sorted((ROOT / package).rglob("*.py"))
    }


def imported(module: str, tree: ast.Module, is_package: bool) -> set[str]:
    """Every project module `module` imports (TYPE_CHECKING and function-level ones too)."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")[: len(module.split(".")) - node.level + is_package]
                found.add(".".join([*base, *([node.module] if node.module else [])]))
            elif node.module:
                found.add(node.module)
                found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return {name for name in found if name.split(".")[0] in PROJECT}


def layer(module: str) -> str:
    if module == GROUND or module.startswith(GROUND + "."):
        return "ground"
    top = module.split(".")[0]
    return top if top in STAGES else "application"


def crossings() -> list[str]:
    """Imports that run against the layers, as 'importer -> imported'."""
    wrong = []
    for module, tree in project_modules(*PROJECT).items():
        is_package = (ROOT / module.replace(".", "/") / "__init__.py").is_file()
        own = layer(module)
        for target in sorted(imported(module, tree, is_package)):
            other = layer(target)
            if own == "ground" and other != "ground":
                wrong.append(f"{module} -> {target}")
            elif own in STAGES and other not in ("ground", own):
                wrong.append(f"{module} -> {target}")
    return wrong


def test_the_ground_imports_no_stage_and_a_stage_imports_only_the_ground_and_itself() -> None:
    assert crossings() == []


def test_the_layers_are_the_packages_the_rule_names() -> None:
    modules = project_modules(*PROJECT)
    assert {layer(name) for name in modules} == {"ground", "application", *STAGES}
    assert layer("fidelity.core.document") == "ground"
    assert layer("fidelity.pipeline") == "application"
    assert layer("filters.ablation") == "filters"


def own_module(module: str) -> bool:
    """A module of one application: its name says which (extractors.word_body, probe_excel…)."""
    return any(app in part for part in module.split(".") for app in APP_NAMES)


def naming_modules() -> dict[str, list[int]]:
    """Modules outside the registry and the applications' own modules that spell an
    application name as a string, with the lines where they do."""
    found: dict[str, list[int]] = {}
    for module, tree in project_modules(*PROJECT, "bench").items():
        if module == REGISTRY or own_module(module) or module in NAMES_ALLOWED:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and node.value in APP_NAMES:
                found.setdefault(module, []).append(node.lineno)
    return found


def test_applications_are_named_only_in_the_registry_and_their_own_modules() -> None:
    assert naming_modules() == {}


def test_every_allowed_module_still_names_an_application() -> None:
    """An allow-list entry that no longer names an application is dead and must go."""
    modules = project_modules(*PROJECT)
    for module in NAMES_ALLOWED:
        constants = {
            node.value for node in ast.walk(modules[module]) if isinstance(node, ast.Constant)
        }
        assert constants & set(APP_NAMES), module


def test_every_registered_module_resolves_to_its_entry_point() -> None:
    """The registry names stage modules by path; each must exist and offer what is called."""
    for app in APPLICATIONS.values():
        assert importlib.import_module(app.extractor).EXTRACTOR.app == app.name
        assert callable(importlib.import_module(app.probe).fill), app.name
        assert isinstance(importlib.import_module(app.rules).RULES, dict), app.name
        assert app.plain_format in app.formats and set(app.taxonomy), app.name
