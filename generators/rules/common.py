"""Helpers shared by the per-application rule modules: deterministic picks, table cells."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

MAX_CELLS = 3
# Multiplies the per-artifact caps (cells per table, sentences per chunk); `regen` raises it.
_widen: ContextVar[int] = ContextVar("widen", default=1)


def cap(limit: int) -> int:
    """A per-artifact cap as the current generation pass allows it (see `widened`)."""
    return limit * _widen.get()


@contextmanager
def widened(factor: int) -> Iterator[None]:
    """Rules called inside draw up to `factor` times more candidates per artifact.

    The extra candidates extend the default ones (same picks first), so a wider
    pass returns a superset of a normal one.
    """
    token = _widen.set(max(1, factor))
    try:
        yield
    finally:
        _widen.reset(token)


def pick(key: str, count: int) -> int:
    """A stable pseudo-random index in range(count) derived from `key`."""
    return int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) % max(1, count)


def table_cells(
    rows: list[list[str]], key: str, limit: int = MAX_CELLS
) -> list[tuple[str, str, str]]:
    """(row header, column header, value) for a few unambiguous cells of a grid.

    The first row is taken as column headers and the first column as row headers;
    a cell qualifies when its row and column headers are unique and non-empty and
    it is not itself a header-like repeat.
    """
    if len(rows) < 2 or len(rows[0]) < 2:
        return []
    header = rows[0]
    row_headers = [row[0] for row in rows[1:] if row]
    candidates = []
    for row in rows[1:]:
        if len(row) != len(header) or not row[0] or row_headers.count(row[0]) > 1:
            continue
        for column in range(1, len(header)):
            name, value = header[column], row[column]
            if not name or not value or header.count(name) > 1 or value in (name, row[0]):
                continue
            candidates.append((row[0], name, value))
    chosen: list[tuple[str, str, str]] = []
    while candidates and len(chosen) < cap(limit):
        chosen.append(candidates.pop(pick(f"{key}:{len(chosen)}", len(candidates))))
    return chosen
