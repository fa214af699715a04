"""Render sheet cells as text with coordinates: Markdown grids and one-line-per-cell lists.

Each cell shows its displayed value (or the placeholder of its Formula artifact,
which carries value and formula), Markdown bold/italic for emphasis, and bracketed
cues for fills, font colours, merges; rows set apart by borders (totals) say so.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from openpyxl.utils.cell import get_column_letter

from extractors.excel.sheet import Cell, range_ref
from extractors.excel.workbook import CellStyle

Box = tuple[int, int, int, int]
MARKING_BORDERS = {"medium", "thick", "double", "thin"}


def escape(text: str) -> str:
    return " ".join(text.replace("|", "\\|").split())


@dataclass(frozen=True, slots=True)
class Looks:
    """What a style index shows of a cell: Markdown emphasis, formatting cues, border mark."""

    mark: str  # '**' bold, '*' italic, '***' both, or ''
    closing: str  # the mark that closes `mark`
    cues: list[str]  # do not modify
    suffix: str  # the cues as written after a cell's text ('' without cues)
    bordered: bool  # a marking top border or a double bottom one


class CellRenderer:
    """Turns a cell into its text, given styles, formula placeholders and merged ranges."""

    def __init__(
        self,
        cells: dict[tuple[int, int], Cell],
        style_of: Callable[[int], CellStyle],
        placeholders: dict[tuple[int, int], str],
        merged: list[Box],
    ) -> None:
        self.cells = cells
        self.style_of = style_of
        self.placeholders = placeholders
        self.merged_at = {(b[0], b[1]): b for b in merged}
        self.columns_of_row: dict[int, list[int]] = {}  # a box's rows visited, not its area
        for row, col in cells:
            self.columns_of_row.setdefault(row, []).append(col)
        self.looks: dict[int, Looks] = {}  # of each style index met
        fonts: Counter[str | None] = Counter()  # counted per style: a sheet has few
        for style, count in Counter(cell.style for cell in cells.values()).items():
            fonts[style_of(style).font_color] += count
        self.usual_font = fonts.most_common(1)[0][0] if fonts else None
        self.covered = {
            (row, col)
            for b in merged
            for row in range(b[0], min(b[2], b[0] + 200) + 1)
            for col in range(b[1], min(b[3], b[1] + 50) + 1)
            if (row, col) != (b[0], b[1])
        }

    def looks_of(self, style: int) -> Looks:
        """The looks of a style index, worked out once per style index (a sheet has few)."""
        looks = self.looks.get(style)
        if looks is None:
            found = self.style_of(style)
            mark = ("**" if found.bold else "") + ("*" if found.italic else "")
            cues = found.cues(self.usual_font)
            looks = self.looks[style] = Looks(
                mark=mark,
                closing=mark[::-1],
                cues=cues,
                suffix=f" [{'; '.join(cues)}]" if cues else "",
                bordered=found.border_top in MARKING_BORDERS or found.border_bottom == "double",
            )
        return looks

    def text(self, point: tuple[int, int]) -> str:
        cell = self.cells.get(point)
        if cell is None:
            return ""
        looks = self.looks.get(cell.style) or self.looks_of(cell.style)
        placeholder = self.placeholders.get(point)
        if placeholder:
            shown = placeholder
        else:
            shown = escape(cell.display)
            if shown and looks.mark and placeholder is None:
                shown = f"{looks.mark}{shown}{looks.closing}"
        merged = self.merged_at.get(point)
        if merged is None:
            return shown + looks.suffix
        cues = [*looks.cues, f"merged {range_ref(merged)}"]
        return f"{shown} [{'; '.join(cues)}]"

    def marked_rows(self, box: Box) -> set[int]:
        """Rows whose cells carry a top or double-bottom border that most rows lack (totals)."""
        top, left, bottom, right = box
        marked = set()
        for row in range(top, bottom + 1):
            marks = [
                self.looks_of(self.cells[(row, col)].style).bordered
                for col in self.columns_of_row.get(row, ())
                if left <= col <= right
            ]
            if not marks:
                continue
            if sum(marks) * 2 >= len(marks):
                marked.add(row)
        if len(marked) > max(2, (bottom - top + 1) // 4):
            return set()
        return marked


def grid(renderer: CellRenderer, box: Box, header_row: int | None, limit: int) -> str:
    """A Markdown table of `box`: a Row column, then one column per sheet column."""
    top, left, bottom, right = box
    letters = [get_column_letter(col) for col in range(left, right + 1)]
    if header_row is not None:
        heads = []
        for col, letter in zip(range(left, right + 1), letters, strict=True):
            label = renderer.text((header_row, col))
            heads.append(f"{letter}: {label}" if label else letter)
        first = f"Row {header_row}"
        start = header_row + 1
    else:
        heads, first, start = letters, "Row", top
    lines = [
        "| " + " | ".join([first, *heads]) + " |",
        "|" + "---|" * (len(heads) + 1),
    ]
    marked = renderer.marked_rows(box)
    shown = 0
    for row in range(start, bottom + 1):
        if row not in renderer.columns_of_row:
            continue  # no cell: nothing to show
        values = [renderer.text((row, col)) for col in range(left, right + 1)]
        if not any(values):
            continue
        if shown >= limit:
            lines.append(f"(rows after {row - 1} not rendered: limit of {limit} rows per range)")
            break
        label = f"{row} (border-marked row)" if row in marked else str(row)
        lines.append("| " + " | ".join([label, *values]) + " |")
        shown += 1
    return "\n".join(lines)


def cell_lines(renderer: CellRenderer, points: list[tuple[int, int]]) -> str:
    """One line per cell: 'B4: text'."""
    lines = []
    for point in sorted(points):
        text = renderer.text(point)
        if text:
            lines.append(f"{get_column_letter(point[1])}{point[0]}: {text}")
    return "\n".join(lines)
