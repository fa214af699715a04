"""A test that needs a missing component is skipped with its install step, and fails under CI."""

from __future__ import annotations

import pytest

from tests.support import components
from tests.support.components import Component, require


@pytest.fixture
def absent(monkeypatch: pytest.MonkeyPatch) -> str:
    missing = Component("nothing-here", lambda: False, "`make test` installs it (nowhere)")
    monkeypatch.setitem(components.COMPONENTS, missing.name, missing)
    return missing.name


def test_a_missing_component_skips_with_its_install_step(
    absent: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="nothing-here is missing: `make test`"):
        require((absent,))


def test_under_ci_a_missing_component_fails_instead(
    absent: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI=true and nothing-here is missing"):
        require((absent,))


def test_present_components_and_unknown_names() -> None:
    require(())
    with pytest.raises(ValueError, match="unknown components"):
        require(("no-such-component",))
