"""Pause Python's cyclic garbage collector while building many objects that form no cycles."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """No cyclic collection inside the block (each pass would walk every object built so far:
    reading a 100k-question run spent about half its time there, and a Word extraction a
    fifth of its Python time re-walking lxml parts and pandoc's AST); reference counting
    still frees what is dropped. Restores the collector's previous state."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
