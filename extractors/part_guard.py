"""One part of a package read on its own: a missing key, index or attribute inside it costs
that part, with a note naming it and the error, never the file.

Such an error is what a structure the part's code did not expect raises (an attribute left
out, a reference to nothing); the rest of the file is still worth its questions. Other
errors keep their meaning: a broken package still fails the file, memory stays a limit.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")

PART_ERRORS = (KeyError, IndexError, AttributeError)


def read_part(
    note: Callable[[str], None],
    name: str,
    read: Callable[[], T],
    empty: T,
    grown: Sequence[list[Any]] = (),
) -> T:
    """`read()`, or `empty` with a note when it raises one of PART_ERRORS; the lists in
    `grown` (the document's artifacts, the body's lines...) lose what the part had added."""
    sizes = [len(items) for items in grown]
    try:
        return read()
    except PART_ERRORS as error:
        for items, size in zip(grown, sizes, strict=True):
            del items[size:]
        note(f"{name} not read: {type(error).__name__}: {error}")
        return empty
