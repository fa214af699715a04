"""One build or regen per output folder: an advisory lock on OUT, released when its holder dies.

The lock is an flock (through the `filelock` package) on OUT/.fidelity.lock: the
kernel drops it when the process ends in any way, SIGKILL included, so a killed
build never blocks the next one.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock, Timeout

LOCK_NAME = ".fidelity.lock"


class OutputBusy(RuntimeError):
    """Another build or regen holds the output folder."""


@contextmanager
def output_lock(out: Path, command: str) -> Iterator[None]:
    """Hold OUT's lock while the body runs; raise OutputBusy at once if another process has it."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / LOCK_NAME
    lock = FileLock(path, timeout=0, thread_local=False)
    try:
        lock.acquire()
    except Timeout:
        holder = _holder(out)
        raise OutputBusy(
            f"{out} is in use by another fidelity build or regen{holder}; "
            "run one at a time per output folder"
        ) from None
    try:
        (out / f"{LOCK_NAME}.holder").write_text(f"{command} pid {os.getpid()}\n")
        yield
    finally:
        lock.release()


def _holder(out: Path) -> str:
    try:
        text = (out / f"{LOCK_NAME}.holder").read_text().strip()
    except OSError:
        return ""
    return f" ({text})" if text else ""
