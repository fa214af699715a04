"""Every import is declared: deptry finds no missing, transitive, unused or misplaced dependency
(its configuration, [tool.deptry] in pyproject.toml, counts the test and review extras as
development groups)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_deptry_finds_every_import_declared() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "deptry", "."], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
