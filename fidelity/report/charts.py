"""The report's charts: coverage tiles (words and colours, drawn as HTML) and SVG bars.

Hand-written rather than a charting library: the page must be self-contained and the
charts are two shapes (tiles and horizontal bars), a few lines each.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from urllib.parse import quote

from fidelity.core.config import SIZE_BUCKETS
from fidelity.coverage import Cell, Tally

BAR_LABEL_W, BAR_W, BAR_H, BAR_GAP, BAR_VALUE_W = 170, 260, 20, 6, 200
KEPT = "kept or unverified"  # the question browser's status filter for what a tile counts
NEEDS_DOCUMENTS = "needs documents"
NEEDS_GENERATION = "needs generation"
TARGET_MET = "target met"
# Fills and the text readable on them, one per state a tile can be in (the legend shows them).
DOCUMENTS_SHADE = ("hsl(270, 32%, 46%)", "#ffffff")
MET_SHADE = ("hsl(120, 62%, 32%)", "#ffffff")
NONE_KEPT_SHADE = ("hsl(212, 30%, 94%)", "#33415c")
NO_ARTIFACTS_SHADE = ("#f1f1f1", "#5f6672")


@dataclass
class Shade:
    """A fill colour and the text colour readable on it."""

    fill: str
    ink: str


@dataclass
class Tile:
    """One application × category cell of the coverage map, in the words it is shown with."""

    category: str
    shade: Shade
    state: str  # needs documents, needs generation, target met, or '' (no target)
    counts: str
    unverified: str
    unused: str
    buckets: list[str]
    link: str
    title: str


@dataclass
class Heatmap:
    app: str
    title: str
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
    link: str = ""


@dataclass
class BarChart:
    width: float
    height: float
    bars: list[Bar]
    label_w: float = BAR_LABEL_W


def state(tally: Tally) -> str:
    """What a cell with a target needs: nothing, generation from unused artifacts, or documents."""
    if not tally.target:
        return ""
    if not tally.gap:
        return TARGET_MET
    return NEEDS_GENERATION if tally.unused else NEEDS_DOCUMENTS


def shade(tally: Tally, most_kept: int) -> Shade:
    """Targets: green when met, red → amber by kept / target when unused artifacts can still be
    drawn from, purple when only more documents can help. No target: blue by kept."""
    need = state(tally)
    if need == TARGET_MET:
        return Shade(*MET_SHADE)
    if need == NEEDS_DOCUMENTS:
        return Shade(*DOCUMENTS_SHADE)
    if need == NEEDS_GENERATION:
        ratio = min(tally.kept / tally.target, 1.0)
        return Shade(f"hsl({round(ratio * 45)}, 70%, 40%)", "#ffffff")
    if tally.kept:
        strength = math.log1p(tally.kept) / math.log1p(max(most_kept, 1))
        light = round(88 - 50 * strength)
        return Shade(f"hsl(212, 70%, {light}%)", "#ffffff" if light < 62 else "#10243e")
    if tally.artifacts:
        return Shade(*NONE_KEPT_SHADE)
    return Shade(*NO_ARTIFACTS_SHADE)


def short(label: str, limit: int) -> str:
    return label if len(label) <= limit else label[: limit - 1] + "…"


def plural(n: int, word: str, many: str | None = None) -> str:
    """`1 slide`, `2 slides`, `0 artifacts` (`many` for an irregular plural)."""
    return f"{n} {word if n == 1 else many or word + 's'}"


def _counts(tally: Tally) -> str:
    return f"{tally.kept} kept of {tally.target}" if tally.target else f"{tally.kept} kept"


def _unused(cell: Cell) -> str:
    if not cell.artifacts:
        return "no artifacts in the corpus"
    if not cell.unused:
        if cell.artifacts == 1:
            return "its one artifact is asked about"
        return f"all {cell.artifacts} artifacts asked about"
    return f"{cell.unused} of {plural(cell.artifacts, 'artifact')} unused"


def bucket_words(name: str, tally: Tally, bounds: dict[str, str]) -> str:
    """`Small files (up to 10 pages): 6 kept of 5`, in words (it used to read `S 6/5`)."""
    counts = f"{tally.kept} kept of {tally.target}" if tally.target else f"{tally.kept} kept"
    if name not in SIZE_BUCKETS:
        return f"files of unknown size: {counts}"
    return f"{name} files ({bounds[name]}): {counts}"


def heatmap(
    app: str, shown: str, cells: list[Cell], buckets: tuple[str, ...], bounds: dict[str, str]
) -> Heatmap:
    """One tile per cell; a cell with bucket targets lists its buckets in words."""
    most_kept = max((cell.kept for cell in cells), default=0)
    tiles = []
    for cell in cells:
        need = state(cell)
        lines = []
        if any(tally.target for tally in cell.buckets.values()):
            lines = [
                bucket_words(name, tally, bounds)
                for name in buckets
                if (tally := cell.buckets.get(name, Tally())).target or tally.kept
            ]
        title = (
            f"{shown} / {cell.category}: {cell.kept} kept ({cell.unverified} of them unverified)"
            + (f", target {cell.target}, {cell.gap} missing" if cell.target else "")
            + f"; {cell.candidates} candidates; {cell.artifacts} artifacts, {cell.unused} unused"
        )
        tiles.append(
            Tile(
                category=cell.category,
                shade=shade(cell, most_kept),
                state=need,
                counts=_counts(cell),
                unverified=f"{cell.unverified} unverified" if cell.unverified else "",
                unused=_unused(cell),
                buckets=lines,
                link=f"#app={quote(app)}&category={quote(cell.category)}&status={quote(KEPT)}",
                title=title,
            )
        )
    return Heatmap(app, shown, tiles)


def bars(rows: list[tuple[str, int, str, str]], links: dict[str, str] | None = None) -> BarChart:
    """Horizontal bars scaled to the largest value; rows are (label, value, note, kind); a bar
    whose label `links` names opens those questions."""
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
            (links or {}).get(label, ""),
        )
        for index, (label, value, note, kind) in enumerate(rows)
    ]
    return BarChart(
        BAR_LABEL_W + BAR_W + BAR_VALUE_W,
        max(BAR_H, len(rows) * (BAR_H + BAR_GAP) - BAR_GAP),
        drawn,
    )
