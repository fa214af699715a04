"""Find candidate files under an input path, in a stable order.

A file found inside an input folder that is a symbolic link to somewhere outside
that folder is not read: `refused` names it with the reason, so it gets a row.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

IGNORED_PREFIXES = ("~$", ".~lock", ".")
# Text files that sit beside documents (notes, scripts, manifests) are not candidates.
# Their content is never sniffed, so an Office file renamed to one of these is missed.
IGNORED_SUFFIXES = {".md", ".py", ".txt", ".json", ".jsonl", ".tsv", ".csv", ".toml", ".yaml"}
OUTSIDE = "symbolic link to a file outside the input folder ({target})"


def discover(inputs: Iterable[Path]) -> list[Path]:
    """Every candidate file under the inputs (files given directly are always kept), sorted."""
    found, _ = _walk(inputs)
    return found


def refused(inputs: Iterable[Path]) -> dict[Path, str]:
    """Files inside the input folders that are not read, with the reason (links leading out)."""
    _, refusals = _walk(inputs)
    return refusals


def _walk(inputs: Iterable[Path]) -> tuple[list[Path], dict[Path, str]]:
    found: set[Path] = set()
    refusals: dict[Path, str] = {}
    for item in inputs:
        if item.is_dir():
            root = item.resolve()
            for path in item.rglob("*"):
                if not _candidate(path):
                    continue
                target = path.resolve()
                if target.is_relative_to(root):
                    found.add(path)
                else:
                    refusals[path] = OUTSIDE.format(target=target)
        elif item.exists():
            found.add(item)
        else:
            raise FileNotFoundError(f"no such file or folder: {item}")
    return sorted(found), dict(sorted(refusals.items()))


def _candidate(path: Path) -> bool:
    return (
        path.is_file()
        and not path.name.startswith(IGNORED_PREFIXES)
        and path.suffix.lower() not in IGNORED_SUFFIXES
    )
