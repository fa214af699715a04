"""Geometry and colours of the report's SVG charts (the templates draw them).

Hand-written rather than a charting library: the page must be self-contained and the
charts are two shapes (tiles and horizontal bars), a few lines each.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from fidelity.coverage import Cell, Tally

TILE_W, TILE_H, TILE_GAP, TILE_COLUMNS = 168, 70, 6, 6
BAR_LABEL_W, BAR_W, BAR_H, BAR_GAP, BAR_VALUE_W = 170, 260, 20, 6, 120
LABEL_CHARS = 21


@dataclass
class Shade:
    """A fill colour and the text colour readable on it."""

    fill: str
    ink: str


@dataclass
class Strip:
    """One size bucket drawn along the bottom of a heatmap tile."""

    x: float
    y: float
    w: float
    h: float
    shade: Shade
    label: str


@dataclass
class Tile:
    """One application × category cell of the heatmap."""

    x: float
    y: float
    w: float
    h: float
    shade: Shade
    category: str
    label: str
    counts: str
    unused: str
    title: str
    strips: list[Strip] = field(default_factory=list)


@dataclass
class Heatmap:
    app: str
    width: float
    height: float
    tiles: list[Tile]


@dataclass
class Bar:
    y: float
    w: float
    label: str
    value: str
    note: str
    title: str
    kind: str


@dataclass
class BarChart:
    width: float
    height: float
    bars: list[Bar]
    label_w: float = BAR_LABEL_W


def shade(tally: Tally, most_kept: int) -> Shade:
    """Red → amber → green by kept / target; blue by kept when there is no target."""
    if tally.target:
        ratio = min(tally.kept / tally.target, 1.0)
        return Shade(f"hsl({round(ratio * 120)}, 62%, 42%)", "#ffffff")
    if tally.kept:
        strength = math.log1p(tally.kept) / math.log1p(max(most_kept, 1))
        light = round(88 - 50 * strength)
        return Shade(f"hsl(212, 70%, {light}%)", "#ffffff" if light < 62 else "#10243e")
    if tally.artifacts:
        return Shade("hsl(212, 30%, 94%)", "#33415c")
    return Shade("#f1f1f1", "#8a8a8a")


def short(label: str, limit: int = LABEL_CHARS) -> str:
    return label if len(label) <= limit else label[: limit - 1] + "…"


def _counts(tally: Tally) -> str:
    return f"{tally.kept} / {tally.target}" if tally.target else f"{tally.kept} kept"


def heatmap(app: str, cells: list[Cell], buckets: tuple[str, ...]) -> Heatmap:
    """Tiles in rows of TILE_COLUMNS; bucket strips when a cell has bucket targets."""
    most_kept = max((cell.kept for cell in cells), default=0)
    tiles = []
    for index, cell in enumerate(cells):
        row, column = divmod(index, TILE_COLUMNS)
        x, y = column * (TILE_W + TILE_GAP), row * (TILE_H + TILE_GAP)
        strips = []
        if any(tally.target for tally in cell.buckets.values()):
            width = TILE_W / len(buckets)
            for position, name in enumerate(buckets):
                tally = cell.buckets.get(name, Tally())
                strips.append(
                    Strip(
                        x + position * width,
                        y + TILE_H - 16,
                        width,
                        16,
                        shade(tally, most_kept),
                        f"{name[0]} {tally.kept}" + (f"/{tally.target}" if tally.target else ""),
                    )
                )
        title = (
            f"{app} / {cell.category}: kept {cell.kept} (unverified {cell.unverified}), "
            f"target {cell.target}, gap {cell.gap}, candidates {cell.candidates}, "
            f"artifacts {cell.artifacts}, unused artifacts {cell.unused}"
        )
        for name in buckets:
            tally = cell.buckets.get(name)
            if tally and (tally.target or tally.kept or tally.artifacts):
                title += f"; {name}: kept {tally.kept} / target {tally.target}"
        tiles.append(
            Tile(
                x,
                y,
                TILE_W,
                TILE_H,
                shade(cell, most_kept),
                cell.category,
                short(cell.category),
                _counts(cell),
                f"{cell.unused} unused",
                title,
                strips,
            )
        )
    rows = max(1, math.ceil(len(cells) / TILE_COLUMNS))
    columns = min(len(cells), TILE_COLUMNS) or 1
    return Heatmap(
        app,
        columns * (TILE_W + TILE_GAP) - TILE_GAP,
        rows * (TILE_H + TILE_GAP) - TILE_GAP,
        tiles,
    )


def bars(rows: list[tuple[str, int, str, str]]) -> BarChart:
    """Horizontal bars scaled to the largest value; rows are (label, value, note, kind)."""
    largest = max((value for _, value, _, _ in rows), default=0) or 1
    drawn = [
        Bar(
            index * (BAR_H + BAR_GAP),
            max(1.0, BAR_W * value / largest) if value else 0.0,
            short(label, 26),
            str(value),
            note,
            f"{label}: {value}" + (f" ({note})" if note else ""),
            kind,
        )
        for index, (label, value, note, kind) in enumerate(rows)
    ]
    return BarChart(
        BAR_LABEL_W + BAR_W + BAR_VALUE_W,
        max(BAR_H, len(rows) * (BAR_H + BAR_GAP) - BAR_GAP),
        drawn,
    )
