"""Atomic file writes: written to a temporary file beside the target, then renamed over it.

Every output a run writes (questions.jsonl, corpus files, report.html, review files) goes
through here, so a crash mid-write leaves the earlier file whole."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any


@contextmanager
def replacing(path: Path, binary: bool = False) -> Iterator[IO[Any]]:
    """A handle on a temporary file that replaces `path` when the block ends without error.

    A crash or an exception mid-write leaves `path` as it was (and no temporary file).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.chmod(name, 0o666 & ~_umask())  # mkstemp makes 0600; the file gets the usual mode
    try:
        with os.fdopen(handle, "wb" if binary else "w", encoding=None if binary else "utf-8") as f:
            yield f
        os.replace(name, path)
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_text(path: Path, text: str) -> None:
    with replacing(path) as handle:
        handle.write(text)


def write_json(path: Path, data: Any) -> None:
    write_text(path, json.dumps(data, ensure_ascii=False, indent=1))


def write_jsonl(path: Path, rows: Iterable[dict[str, Any]], *, sort_keys: bool = False) -> None:
    """One JSON object per line."""
    with replacing(path) as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False, sort_keys=sort_keys) + "\n")
