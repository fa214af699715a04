"""Find candidate files under an input path, in a stable order."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

IGNORED_PREFIXES = ("~$", ".~lock", ".")


def discover(inputs: Iterable[Path]) -> list[Path]:
    """Every regular file under the inputs (files given directly are kept), sorted."""
    found: set[Path] = set()
    for item in inputs:
        if item.is_dir():
            for path in item.rglob("*"):
                if path.is_file() and not path.name.startswith(IGNORED_PREFIXES):
                    found.add(path)
        elif item.exists():
            found.add(item)
        else:
            raise FileNotFoundError(f"no such file or folder: {item}")
    return sorted(found)
