"""Connected cells of a sheet: 8-neighbour components found by runs of adjacent columns give
what a step per cell and neighbour gives (the same cells, ordered by their first cell)."""

from __future__ import annotations

import random

from extractors.excel.regions import _components

Point = tuple[int, int]


def components_cell_by_cell(points: set[Point]) -> list[set[Point]]:
    """The plain definition: a flood fill over the 8 neighbours, started at each unseen cell."""
    seen: set[Point] = set()
    out = []
    for start in sorted(points):
        if start in seen:
            continue
        stack, component = [start], {start}
        seen.add(start)
        while stack:
            row, col = stack.pop()
            for d_row in (-1, 0, 1):
                for d_col in (-1, 0, 1):
                    near = (row + d_row, col + d_col)
                    if near in points and near not in seen:
                        seen.add(near)
                        component.add(near)
                        stack.append(near)
        out.append(component)
    return out


def test_diagonal_cells_connect_and_gaps_separate() -> None:
    points = {(1, 1), (1, 2), (2, 3), (4, 1), (4, 5), (5, 4)}
    assert _components(points) == [{(1, 1), (1, 2), (2, 3)}, {(4, 1)}, {(4, 5), (5, 4)}]


def test_runs_give_the_components_of_the_cell_by_cell_fill() -> None:
    chance = random.Random(7)
    for _ in range(2000):
        height, width = chance.randint(1, 12), chance.randint(1, 12)
        count = chance.randint(0, height * width)
        points = {(chance.randint(1, height), chance.randint(1, width)) for _ in range(count)}
        assert _components(points) == components_cell_by_cell(points)
