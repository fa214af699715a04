"""Find candidate files under an input path, in a stable order."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

IGNORED_PREFIXES = ("~$", ".~lock", ".")
# Text files that sit beside documents (notes, scripts, manifests) are not candidates.
# Their content is never sniffed, so an Office file renamed to one of these is missed.
IGNORED_SUFFIXES = {".md", ".py", ".txt", ".json", ".jsonl", ".tsv", ".csv", ".toml", ".yaml"}


def discover(inputs: Iterable[Path]) -> list[Path]:
    """Every candidate file under the inputs (files given directly are always kept), sorted."""
    found: set[Path] = set()
    for item in inputs:
        if item.is_dir():
            for path in item.rglob("*"):
                if _candidate(path):
                    found.add(path)
        elif item.exists():
            found.add(item)
        else:
            raise FileNotFoundError(f"no such file or folder: {item}")
    return sorted(found)


def _candidate(path: Path) -> bool:
    return (
        path.is_file()
        and not path.name.startswith(IGNORED_PREFIXES)
        and path.suffix.lower() not in IGNORED_SUFFIXES
    )
