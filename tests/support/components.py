"""The components outside Python that some tests need, how to tell each is there, and the step
that installs it.

A test declares what it needs with `@pytest.mark.needs("libreoffice", ...)` (tests/conftest.py
checks the marker before the test runs). Where a component is missing the test is skipped with
the install step, except under `CI=true`, where it fails with that step: a CI run cannot pass
with a hole in it. `make test-quick` deselects every test carrying the marker.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

TEST_CACHE = Path(os.environ.get("FIDELITY_TEST_CACHE", Path.home() / ".cache" / "fidelity-tests"))
# Label Studio pins many packages: `make test` gives it a venv of its own here.
LABEL_STUDIO = Path(
    os.environ.get("LABEL_STUDIO_BIN", TEST_CACHE / "label-studio" / "bin" / "label-studio")
)


def _chromium() -> str | None:
    return os.environ.get("CHROMIUM_BIN") or shutil.which("chromium")


def _importable(module: str) -> Callable[[], bool]:
    return lambda: importlib.util.find_spec(module) is not None


@dataclass(frozen=True)
class Component:
    """Something a test needs that the project's venv does not give by itself."""

    name: str
    present: Callable[[], bool]
    install: str

    def missing_message(self) -> str:
        return f"{self.name} is missing: {self.install}"


COMPONENTS = {
    component.name: component
    for component in (
        Component(
            "libreoffice",
            lambda: (
                shutil.which("soffice") is not None
                and Path(os.environ.get("FIDELITY_UNO_PYTHON", "/usr/bin/python3")).exists()
            ),
            "`make build-fidelity` installs it (Debian: libreoffice-writer libreoffice-calc "
            "libreoffice-impress python3-uno)",
        ),
        Component(
            "poppler",
            lambda: shutil.which("pdftoppm") is not None,
            "`make build-fidelity` installs it (Debian: poppler-utils)",
        ),
        Component(
            "chromium",
            lambda: _chromium() is not None and _importable("playwright")(),
            "`make test` installs it (Debian: chromium; the test extra: playwright)",
        ),
        Component("ray", _importable("ray"), "`make test` installs it (pip: the ray extra)"),
        Component(
            "argilla", _importable("argilla"), "`make test` installs it (pip: the review extra)"
        ),
        Component(
            "label-studio",
            LABEL_STUDIO.is_file,
            f"`make test` installs it (its own venv at {LABEL_STUDIO.parent.parent})",
        ),
    )
}


def chromium_binary() -> str | None:
    """The Chromium the browser tests drive (CHROMIUM_BIN overrides Debian's)."""
    return _chromium()


def require(names: tuple[str, ...], *, module_level: bool = False) -> None:
    """Skip (fail under CI=true) unless every named component is present; `module_level`
    for a test module whose imports need the component."""
    unknown = [name for name in names if name not in COMPONENTS]
    if unknown:
        raise ValueError(f"unknown components {unknown}; known: {sorted(COMPONENTS)}")
    missing = [COMPONENTS[name] for name in names if not COMPONENTS[name].present()]
    if not missing:
        return
    message = "; ".join(component.missing_message() for component in missing)
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(f"CI=true and {message}", pytrace=False)
    pytest.skip(message, allow_module_level=module_level)
