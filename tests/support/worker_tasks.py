"""Tasks that misbehave on purpose, for the executor tests (a light module: workers import it)."""

from __future__ import annotations

import os
import signal
import time

from fidelity.core.executor import Progress

MEMORY_CAP = 1024**3
SMALL_CAP = 300 * 1024**2  # below what a fresh worker with the build's preloads maps


def misbehave(item: str, progress: Progress) -> str:
    """Do what the item says after entering a stage named after it."""
    progress.enter(f"stage-{item}")
    if item == "raise":
        raise ValueError("a bad\nvalue")
    if item == "crash":
        os.kill(os.getpid(), signal.SIGSEGV)
    if item == "hang":
        time.sleep(60)
    if item == "allocate":
        return str(len(bytearray(2 * MEMORY_CAP)))
    if item == "hold":  # two thirds of the small cap, touched
        return str(len(bytearray(SMALL_CAP * 2 // 3)))
    if item == "exceed":
        return str(len(bytearray(SMALL_CAP * 4 // 3)))
    return item.upper()
