"""`fidelity build --executor ray` where Ray is not installed: a clear message, nothing written."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from fidelity.cli import main

pytestmark = pytest.mark.slow  # whole builds: not in make test-quick

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def test_the_ray_executor_without_ray_says_how_to_install_it(monkeypatch, tmp_path, capsys):
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "ray" else find_spec(name, *a)
    )
    out = tmp_path / "out"
    assert main(["build", str(FIXTURES / "memo.docx"), "-o", str(out), "--executor", "ray"]) == 2
    assert "pip install 'fidelity[ray]'" in capsys.readouterr().err
    assert not out.exists()
