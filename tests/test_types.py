"""The five packages type-check: mypy finds no error ([tool.mypy] in pyproject.toml names
the packages, the pydantic plugin and the few untyped third-party modules)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_mypy_finds_no_error() -> None:
    done = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, (done.stdout + done.stderr)[-6000:]
