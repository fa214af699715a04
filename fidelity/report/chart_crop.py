"""A chart's own area, cut from the render of the sheet it sits on.

A spreadsheet chart has no picture of its own: its evidence is the render of its whole
sheet, where it is one small part. LibreOffice draws a chart's frame as a light grey
rectangle, so the frames are found in the render (long grey runs with the same left and
right ends, joined by grey sides, not a filled band) and matched to the sheet's charts in
reading order (by anchor row, then column). When the frames and the charts do not pair
one to one the whole sheet is kept: a wrong crop would show the wrong chart.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Protocol, cast

from PIL import Image

from fidelity.core.document import Artifact, Document

FRAME_GREY = range(150, 236)
MIN_SIDE = 60  # pixels: smaller rectangles are cell fills and borders, not charts
SIDE_SHARE = 0.9  # of a frame's sides drawn in the frame grey
MARGIN = 4
MAX_RUNS = 3000  # a render with more grey runs than this is a grid, not a few charts
ANCHOR = re.compile(r"^\$?([A-Z]{1,3})\$?(\d+)")

Box = tuple[int, int, int, int]


class GreyPixels(Protocol):
    """The pixels of an L (grey) image: each one an int from 0 to 255."""

    def __getitem__(self, xy: tuple[int, int], /) -> int: ...


def _runs(pixels: GreyPixels, width: int, height: int) -> list[tuple[int, int, int]]:
    """(y, x0, x1) of every horizontal run of frame grey at least MIN_SIDE long."""
    found = []
    for y in range(height):
        x = 0
        while x < width:
            if pixels[x, y] in FRAME_GREY:
                start = x
                while x < width and pixels[x, y] in FRAME_GREY:
                    x += 1
                if x - start >= MIN_SIDE:
                    found.append((y, start, x - 1))
            else:
                x += 1
    return found


def frames(picture: Path) -> list[Box]:
    """The chart frames in a sheet render, outermost only, in reading order."""
    with Image.open(picture) as image:
        grey = image.convert("L")
    # Pillow types any image's pixel as float | tuple and its access as optional; an L
    # image that was just converted has one, of ints
    pixels, (width, height) = cast(GreyPixels, grey.load()), grey.size
    runs = _runs(pixels, width, height)
    if len(runs) > MAX_RUNS:
        return []
    boxes: list[Box] = []
    for index, (top, x0, x1) in enumerate(runs):
        for bottom, b0, b1 in runs[index + 1 :]:
            if (b0, b1) != (x0, x1) or bottom - top < MIN_SIDE:
                continue
            sides = [pixels[x, y] in FRAME_GREY for y in range(top, bottom + 1) for x in (x0, x1)]
            middle = [pixels[x, (top + bottom) // 2] in FRAME_GREY for x in range(x0 + 1, x1)]
            if sum(sides) >= SIDE_SHARE * len(sides) and sum(middle) < 0.5 * len(middle):
                boxes.append((x0, top, x1 + 1, bottom + 1))
    outer = [
        box
        for box in boxes
        if not any(
            other != box
            and other[0] <= box[0]
            and other[1] <= box[1]
            and other[2] >= box[2]
            and other[3] >= box[3]
            for other in boxes
        )
    ]
    return sorted(set(outer), key=lambda box: (box[1], box[0]))


def anchor_key(anchor: str) -> tuple[int, int]:
    """(row, column) of a cell reference such as `I3`, for reading order."""
    match = ANCHOR.match(anchor or "")
    if not match:
        return (0, 0)
    column = 0
    for letter in match.group(1):
        column = column * 26 + ord(letter) - 64
    return int(match.group(2)), column


def chart_area(render: Path, anchors: list[str], anchor: str) -> Box | None:
    """The frame of the chart anchored at `anchor` among the sheet's charts `anchors`."""
    found = frames(render)
    if len(found) != len(anchors):
        return None
    order = sorted(anchors, key=anchor_key)
    return found[order.index(anchor)]


def cropped(out: Path, render: str, anchors: list[str], anchor: str, name: str) -> str | None:
    """OUT-relative path of the chart's crop of `render` (made once), None when not found."""
    source = out / render
    target = source.with_name(f"{name}.png")
    if target.is_file():
        return str(target.relative_to(out))
    if not source.is_file():
        return None
    try:
        box = chart_area(source, anchors, anchor)
        if box is None:
            return None
        with Image.open(source) as image:
            width, height = image.size
            margin = (
                max(0, box[0] - MARGIN),
                max(0, box[1] - MARGIN),
                min(width, box[2] + MARGIN),
                min(height, box[3] + MARGIN),
            )
            image.crop(margin).save(target)
    except (OSError, ValueError, Image.DecompressionBombError):
        return None  # an unreadable render: the whole sheet's picture stays the evidence
    return str(target.relative_to(out))


def sheet_chart(artifact: Artifact) -> bool:
    """A chart whose only picture is the render of the sheet it sits on."""
    return artifact.kind == "chart" and "/sheet-" in (artifact.media or "")


def chart_picture(out: Path, document: Document, artifact: Artifact) -> str | None:
    """OUT-relative path of the chart's own area cut from its sheet's render, or None."""
    if not sheet_chart(artifact):
        return None
    anchors = [
        str(other.facts.get("anchor", ""))
        for other in document.artifacts
        if sheet_chart(other) and other.media == artifact.media
    ]
    name = "chart-" + re.sub(r"[^A-Za-z0-9_-]", "_", artifact.id)
    return cropped(out, str(artifact.media), anchors, str(artifact.facts.get("anchor", "")), name)
