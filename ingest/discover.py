"""Find candidate files under an input path, in a stable order.

Every entry the walk meets that is not read gets a reason, so it gets a row:
`refused` names symbolic links leading out of the input folder, links that loop
or lead nowhere, links to a folder (not followed) and entries that are not
regular files (a FIFO, a socket, a device), each with a reason code.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable
from pathlib import Path

IGNORED_PREFIXES = ("~$", ".~lock", ".")
# Text files that sit beside documents (notes, scripts, manifests) are not candidates.
# Their content is never sniffed, so an Office file renamed to one of these is missed.
IGNORED_SUFFIXES = {".md", ".py", ".txt", ".json", ".jsonl", ".tsv", ".csv", ".toml", ".yaml"}
OUTSIDE = "symbolic link to a file outside the input folder ({target})"
# reason code -> reason, for entries that are not read
REFUSALS = {
    "outside_input": OUTSIDE,
    "link_loop": "symbolic link that loops ({target})",
    "link_dangling": "symbolic link to nothing ({target})",
    "link_directory": "symbolic link to a folder, not followed ({target})",
    "not_regular": "not a regular file ({target})",
}


def discover(inputs: Iterable[Path]) -> list[Path]:
    """Every candidate file under the inputs (files given directly are always kept), sorted."""
    found, _ = _walk(inputs)
    return found


def refused(inputs: Iterable[Path]) -> dict[Path, tuple[str, str]]:
    """Entries inside the input folders that are not read: path -> (reason code, reason)."""
    _, refusals = _walk(inputs)
    return refusals


def _walk(inputs: Iterable[Path]) -> tuple[list[Path], dict[Path, tuple[str, str]]]:
    found: set[Path] = set()
    refusals: dict[Path, tuple[str, str]] = {}
    for item in inputs:
        if item.is_dir():
            root = item.resolve()
            for path in item.rglob("*"):
                if not _named_candidate(path) or not path.is_symlink() and path.is_dir():
                    continue
                code = _refusal(path, root)
                if code is None:
                    found.add(path)
                else:
                    target = os.readlink(path) if path.is_symlink() else path
                    refusals[path] = (code, REFUSALS[code].format(target=target))
        elif item.exists():
            found.add(item)
        else:
            raise FileNotFoundError(f"no such file or folder: {item}")
    return sorted(found), dict(sorted(refusals.items()))


def _refusal(path: Path, root: Path) -> str | None:
    """Why the entry at `path` (inside the folder `root`) is not read, or None to read it."""
    try:
        mode = path.stat().st_mode
    except OSError as error:
        return "link_loop" if error.errno == errno.ELOOP else "link_dangling"
    if stat.S_ISDIR(mode):
        return "link_directory"
    if not stat.S_ISREG(mode):
        return "not_regular"
    if not path.resolve().is_relative_to(root):
        return "outside_input"
    return None


def _named_candidate(path: Path) -> bool:
    return (
        not path.name.startswith(IGNORED_PREFIXES) and path.suffix.lower() not in IGNORED_SUFFIXES
    )
