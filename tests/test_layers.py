"""The import layers: the ground imports no stage, a stage imports only the ground and itself,
applications are named only in the registry and their own modules, and so are the categories
and artifact kinds of one application."""

from __future__ import annotations

import ast
import importlib
from functools import cache
from pathlib import Path
from typing import get_args

from fidelity.core.apps import APP_NAMES, APPLICATIONS, TAXONOMY
from fidelity.core.document import Modality
from tests.support.kinds import declared_kinds

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


# Where a category or kind of one application is spelled outside its package for a reason
# that stays, with that reason.
VOCABULARY_ALLOWED = {
    # The default priority of a few categories for the model generators is a setting
    # (fidelity.toml's [models.generation.type_priority] replaces it), keyed by category.
    "fidelity.core.config",
}
# Where one is spelled outside its package still, with what moving it would take.
VOCABULARY_PENDING = {
    # The categories every file has (not a sign of a rich file): a registry field per app.
    "ingest.curate",
    # The review shows a slide's rendered image: it could ask the artifacts' `shown_by`.
    "fidelity.review.tasks",
    # Rules and the guessability filter being changed elsewhere: comment kinds and PowerPoint
    # shape kinds, and the deck language and body font kinds, go to their applications.
    "generators.rules.restated",
    "generators.rules.shape_names",
    "filters.guessability",
    # The kinds that annotate one cell or slide: a declaration on the artifact, as
    # `about_property` is for the property categories.
    "filters.leakage",
}
FIELDS = ("category", "kind")


def owners() -> dict[str, set[str]]:
    """Each category and kind with the applications that have it; a kind that is also a
    modality ("text", "table") is the ground's word."""
    found: dict[str, set[str]] = {}
    for app in APP_NAMES:
        for word in (*TAXONOMY[app], *declared_kinds(app) - set(get_args(Modality))):
            found.setdefault(word, set()).add(app)
    return found


def strings(node: ast.AST) -> list[ast.Constant]:
    return [n for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def names_a_field(node: ast.AST) -> bool:
    """`x.category`, `kind` and the like: the side of a comparison that is the vocabulary."""
    name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")
    return name in FIELDS


def vocabulary_strings(tree: ast.Module) -> list[ast.Constant]:
    """The strings a module uses as categories or kinds: compared with a `category` or `kind`,
    passed as one, or kept in a name that says CATEGOR(Y/IES) or KIND(S). (Other strings that
    happen to equal one, a "Header" label or a "font-span" question type, are not.)"""
    found: list[ast.Constant] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(names_a_field(side) for side in sides):
                found += [c for side in sides if not names_a_field(side) for c in strings(side)]
        elif isinstance(node, ast.keyword) and node.arg in FIELDS:
            found += strings(node.value)
        elif isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            named = [t.id for t in targets if isinstance(t, ast.Name)]
            if any("CATEGOR" in name or "KIND" in name for name in named):
                found += strings(node.value)
    return found


def vocabulary_outside() -> dict[str, list[str]]:
    """Modules that spell a category or kind of one application outside that application's
    own modules, and ground modules that spell any category, with what and where."""
    apps_of = owners()
    categories = {category for app in APP_NAMES for category in TAXONOMY[app]}
    found: dict[str, list[str]] = {}
    for module, tree in project_modules(*PROJECT, "bench").items():
        if module == REGISTRY:
            continue
        if layer(module) == "ground":
            spelled = [c for c in strings(tree) if c.value in categories]
        else:
            spelled = [
                c
                for c in vocabulary_strings(tree)
                if len(apps_of.get(c.value, ())) == 1
                and not any(app in part for part in module.split(".") for app in apps_of[c.value])
            ]
        if spelled:
            found[module] = [f"{c.lineno}: {c.value}" for c in spelled]
    return found


def test_categories_and_kinds_are_spelled_only_in_their_applications_modules() -> None:
    outside = vocabulary_outside()
    assert {
        m: w for m, w in outside.items() if m not in VOCABULARY_ALLOWED | VOCABULARY_PENDING
    } == {}
    assert VOCABULARY_ALLOWED | VOCABULARY_PENDING <= set(outside)  # no entry outlives its cause


def test_the_vocabulary_test_finds_what_it_looks_for() -> None:
    """A kind kept in a KINDS name and categories and kinds compared with are found; a kind
    that is also a modality is no application's, a category of two applications is both's."""
    apps_of = owners()
    assert apps_of["slide-render"] == {"powerpoint"} and "text" not in apps_of
    assert apps_of["Metadata"] == {"word", "powerpoint"} and apps_of["metadata"] == set(APP_NAMES)
    tree = ast.parse(
        'NOTE_KINDS = {"note"}\nfound = a.kind == "slide-render" or a.category == "Chart"'
    )
    assert [c.value for c in vocabulary_strings(tree)] == ["note", "slide-render", "Chart"]
