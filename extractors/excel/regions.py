"""Split a sheet's free cells into table-like ranges (TLR) and unstructured blocks.

Heuristics: cells connect to their 8 neighbours (merged ranges count as filled);
each connected block loses its leading title rows (one cell over a wide block);
what remains is table-like when it spans at least 2 columns and 3 rows, is at least
half filled, and most rows hold 2+ cells. A first row of text cells over rows holding
numbers (or bold text) is the header row. Everything else is unstructured, grouped
into blocks of nearby rows.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

Box = tuple[int, int, int, int]


@dataclass
class Region:
    kind: str  # "tlr" or "unstructured"
    box: Box
    cells: list[tuple[int, int]] = field(default_factory=list)
    header_row: int | None = None


def _runs(points: set[tuple[int, int]]) -> list[list[int]]:
    """The points as runs of adjacent columns, [row, first column, last column], in order."""
    runs: list[list[int]] = []
    for row, col in sorted(points):
        if runs and runs[-1][0] == row and runs[-1][2] == col - 1:
            runs[-1][2] = col
        else:
            runs.append([row, col, col])
    return runs


def _components(points: set[tuple[int, int]]) -> list[set[tuple[int, int]]]:
    """The 8-connected components of `points`, ordered by their first point.

    Worked on runs of adjacent cells in a row (a union-find over runs, runs of
    neighbouring rows joined where their columns touch or overlap diagonally) rather
    than point by point: a table row is one run instead of one step per cell and
    neighbour. scipy.ndimage.label would need a dense grid over the sheet's bounding
    box, which a sparse or wide sheet makes huge.
    """
    runs = _runs(points)
    parent = list(range(len(runs)))

    def root(index: int) -> int:
        while parent[index] != index:
            parent[index] = parent[parent[index]]
            index = parent[index]
        return index

    previous_start = previous_end = 0  # the runs of the row above: runs[start:end]
    index = 0
    while index < len(runs):
        row = runs[index][0]
        end = index
        while end < len(runs) and runs[end][0] == row:
            end += 1
        if previous_end > previous_start and runs[previous_start][0] == row - 1:
            above = previous_start
            for current in range(index, end):
                _, first, last = runs[current]
                while above < previous_end and runs[above][2] < first - 1:
                    above += 1
                touching = above
                while touching < previous_end and runs[touching][1] <= last + 1:
                    parent[root(touching)] = root(current)
                    touching += 1
        previous_start, previous_end = index, end
        index = end
    components: dict[int, set[tuple[int, int]]] = {}
    for index, (row, first, last) in enumerate(runs):
        component = components.setdefault(root(index), set())
        component.update((row, col) for col in range(first, last + 1))
    return list(components.values())


def _box(points: set[tuple[int, int]] | list[tuple[int, int]]) -> Box:
    rows = [p[0] for p in points]
    cols = [p[1] for p in points]
    return min(rows), min(cols), max(rows), max(cols)


def _by_row(points: set[tuple[int, int]]) -> dict[int, list[int]]:
    rows: dict[int, list[int]] = {}
    for row, col in points:
        rows.setdefault(row, []).append(col)
    return rows


def _box_of_rows(rows: dict[int, list[int]]) -> Box:
    """The bounding box of points given by row (as `_by_row` groups them)."""
    return (
        min(rows),
        min(min(cols) for cols in rows.values()),
        max(rows),
        max(max(cols) for cols in rows.values()),
    )


def _table_like(points: set[tuple[int, int]], box: Box, rows: dict[int, list[int]]) -> bool:
    """Whether `points` (in `box`, grouped as `rows`) look like a table."""
    top, left, bottom, right = box
    height, width = bottom - top + 1, right - left + 1
    if width < 2 or height < 3:
        return False
    if len(points) < 0.5 * height * width:
        return False
    wide = sum(1 for cols in rows.values() if len(cols) >= 2)
    return wide >= max(3, 0.6 * len(rows))


def _header_row(
    points: set[tuple[int, int]],
    box: Box,
    rows: dict[int, list[int]],
    is_text: Callable[[tuple[int, int]], bool],
    is_bold,
) -> int | None:
    top, left, _, right = box
    first = sorted(rows.get(top, []))
    if len(first) < max(2, 0.5 * (right - left + 1)):
        return None
    if not all(is_text((top, col)) for col in first):
        return None
    below = [p for p in points if p[0] > top]
    numeric_below = any(not is_text(p) for p in below)
    bold_header = all(is_bold((top, col)) for col in first)
    return top if numeric_below or bold_header else None


def detect(
    points: set[tuple[int, int]],
    excluded: list[Box],
    merged: list[Box],
    is_text: Callable[[tuple[int, int]], bool],
    is_bold: Callable[[tuple[int, int]], bool],
) -> list[Region]:
    """Regions of the sheet's free cells (cells inside `excluded` boxes are left out).

    Each component's rows and bounding box are worked out once, and again for its body
    only when title rows were taken off it."""
    free = points
    for top, left, bottom, right in excluded:  # one pass per box, not a call per cell and box
        free = {p for p in free if not (top <= p[0] <= bottom and left <= p[1] <= right)}
    filled = set(free)
    for box in merged:
        if (box[0], box[1]) in free:
            for row in range(box[0], min(box[2], box[0] + 200) + 1):
                for col in range(box[1], min(box[3], box[1] + 50) + 1):
                    filled.add((row, col))
    regions: list[Region] = []
    loose: list[tuple[int, int]] = []
    for component in _components(filled):
        cells = component & free
        if not cells:
            continue
        rows = _by_row(component)
        box = _box_of_rows(rows)
        left, right = box[1], box[3]
        ordered = sorted(rows)
        titles = 0
        while titles < len(ordered) and right - left >= 2 and len(rows[ordered[titles]]) <= 1:
            loose.extend(p for p in cells if p[0] == ordered[titles])
            titles += 1
        if titles == len(ordered):
            continue  # every row a title row: no body
        if titles:
            start = ordered[titles]
            body = {p for p in component if p[0] >= start}
            body_cells = body & free
            rows = {row: rows[row] for row in ordered[titles:]}
            box = _box_of_rows(rows)
        else:
            body, body_cells = component, cells
        if _table_like(body, box, rows):
            regions.append(
                Region(
                    kind="tlr",
                    box=box,
                    cells=sorted(body_cells),
                    header_row=_header_row(body, box, rows, is_text, is_bold),
                )
            )
        else:
            loose.extend(body_cells)
    regions.extend(_blocks(loose))
    regions.sort(key=lambda r: (r.box[0], r.box[1]))
    return regions


def _blocks(points: list[tuple[int, int]], gap: int = 2) -> list[Region]:
    """Unstructured cells grouped into blocks of rows no more than `gap` rows apart."""
    out: list[Region] = []
    current: list[tuple[int, int]] = []
    for point in sorted(points):
        if current and point[0] - current[-1][0] > gap:
            out.append(Region(kind="unstructured", box=_box(current), cells=current))
            current = []
        current.append(point)
    if current:
        out.append(Region(kind="unstructured", box=_box(current), cells=current))
    return out
