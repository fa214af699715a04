"""Progress over a loop: tqdm's bar on a terminal, else a plain line every N items or S seconds."""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Iterable, Iterator
from typing import TextIO, TypeVar

from tqdm import tqdm

T = TypeVar("T")

# Without a terminal (a log file, CI), a line at least every tenth of the items and every
# half minute, so a log shows a long run moving without a line per file.
LINE_FRACTION = 0.1
LINE_SECONDS = 30.0


def progress(
    items: Iterable[T],
    *,
    total: int,
    desc: str,
    unit: str = "file",
    enabled: bool = True,
    stream: TextIO | None = None,
) -> Iterator[T]:
    """The items, reporting on `stream` (stderr) as each one is done."""
    stream = stream or sys.stderr
    if not enabled or total == 0:
        yield from items
    elif stream.isatty():
        yield from tqdm(items, total=total, desc=desc, unit=unit, file=stream)
    else:
        yield from _lines(items, total, desc, unit, stream)


def _lines(items: Iterable[T], total: int, desc: str, unit: str, stream: TextIO) -> Iterator[T]:
    step = max(1, math.ceil(total * LINE_FRACTION))
    start = last = time.monotonic()
    due = step
    for count, item in enumerate(items, start=1):
        yield item
        now = time.monotonic()
        if count >= due or now - last >= LINE_SECONDS or count == total:
            elapsed = now - start
            line = f"{desc}: {count}/{total} {unit}s ({100 * count // total}%), {elapsed:.0f} s"
            print(line, file=stream, flush=True)
            last, due = now, count + step
