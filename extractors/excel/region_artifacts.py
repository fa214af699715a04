"""Cell ranges as artifacts: detected regions (headers, lookups), formal tables, pivot tables."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from typing import Any

from extractors.excel.book import WorkbookState
from extractors.excel.regions import Region
from extractors.excel.render import CellRenderer, cell_lines, grid
from extractors.excel.sheet import (
    MAX_ROWS,
    SheetData,
    range_ref,
)
from extractors.excel.workbook import SheetInfo
from fidelity.core.locator import Locator, sheet_label

MAX_LOOKUPS = 4


# Functions whose result changes on every recalculation.
VOLATILE = re.compile(r"\b(NOW|TODAY|RAND|RANDBETWEEN|RANDARRAY)\s*\(", re.IGNORECASE)


class RegionArtifacts(WorkbookState):
    """Cell ranges as artifacts: detected regions, formal tables, pivot tables."""

    def region(
        self,
        sheet: SheetInfo,
        region: Region,
        renderer: CellRenderer,
        data: SheetData,
    ) -> str:
        ref = range_ref(region.box)
        where = Locator(sheet=sheet.name, cells=ref)
        locator = where.text
        if region.kind == "tlr":
            header = region.header_row
            detail = f"header row {header}" if header else "no header row detected"
            text = f"Table-like range {locator} ({detail})\n\n" + grid(
                renderer, region.box, header, MAX_ROWS
            )
            facts = {
                "sheet": sheet.name,
                "range": ref,
                "header_row": header,
                "headers": self.headers(data, region.box, header),
                "lookups": self.lookups(data, region.box, header),
                "sub_header_rows": self.sub_headers(data, region.box, header),
                "rows": region.box[2] - region.box[0] + 1,
                "columns": region.box[3] - region.box[1] + 1,
            }
            artifact = self.add("tlr", (sheet.name, ref), "TLR", "tlr", "table", where, text, facts)
            return artifact.placeholder or ""
        text = f"Cells in {locator}:\n" + cell_lines(renderer, region.cells)
        pairs = []
        for row, col in region.cells:
            left, right = data.cells.get((row, col)), data.cells.get((row, col + 1))
            if (
                left is not None
                and right is not None
                and isinstance(left.value, str)
                and left.display.strip()
                and right.display.strip()
                and not right.formula
            ):
                pairs.append({"label": left.display, "cell": right.ref, "value": right.display})
        facts = {
            "sheet": sheet.name,
            "range": ref,
            "cells": [
                {"cell": data.cells[p].ref, "text": data.cells[p].display}
                for p in region.cells[:50]
                if p in data.cells
            ],
            "pairs": pairs[:10],
        }
        artifact = self.add(
            "cells", (sheet.name, ref), "Unstructured", "cells", "text", where, text, facts
        )
        return artifact.placeholder or ""

    @staticmethod
    def headers(data: SheetData, box: tuple[int, int, int, int], header: int | None) -> dict:
        if header is None:
            return {}
        out = {}
        for col in range(box[1], box[3] + 1):
            cell = data.cells.get((header, col))
            if cell is not None and cell.display.strip():
                out[cell.ref[: -len(str(header))]] = cell.display
        return out

    @staticmethod
    def sub_headers(data: SheetData, box: tuple[int, int, int, int], header: int | None) -> list:
        """Rows inside the range that head a sub-table (not the row right under the header:
        that is the header's second line, "Percent" over "of Hires")."""
        if header is None:
            return []
        return [row for row in range(header + 2, box[2] + 1) if _header_like(data, row, box)]

    @staticmethod
    def lookups(data: SheetData, box: tuple[int, int, int, int], header: int | None) -> list:
        """Cells addressable by (row label in the first column, column header)."""
        if header is None:
            return []
        top, left, bottom, right = box
        below = RegionArtifacts.sub_headers(data, box, header)
        labels: dict[int, str] = {}
        for row in range(header + 1, bottom + 1):
            if row in below:
                continue  # a sub-table's own header row ("Description | Amount | Penalty")
            cell = data.cells.get((row, left))
            if cell is not None and isinstance(cell.value, str) and cell.display.strip():
                labels[row] = cell.display.strip()
        # Header texts never answer a lookup: a header row repeated down the range (its
        # label is a header) or a label column further left read as values.
        header_texts = {
            cell.display.strip()
            for row in (header, *below)
            for col in range(left, right + 1)
            if (cell := data.cells.get((row, col))) is not None and cell.display.strip()
        }
        label_counts = Counter(labels.values())
        unique_labels = {
            r: t for r, t in labels.items() if label_counts[t] == 1 and t not in header_texts
        }
        # A header merged over several columns names none of them alone (ask no lookup there).
        spanned = {
            (header, col)
            for top_row, first, bottom_row, last in data.merged
            if top_row <= header <= bottom_row and last > first
            for col in range(first, last + 1)
        }
        # A column that shows one value in every row ("TRUE" all the way down) or counts its
        # rows (1, 2, 3…) answers every lookup from the row's place: guessed, not read.
        same_down = {
            col
            for col in range(left + 1, right + 1)
            if _one_value(data, labels, col) or _counts_rows(data, labels, col)
        }
        out = []
        for row, row_label in unique_labels.items():
            above = max((r for r in (header, *below) if r < row), default=header)
            for col in range(right, left, -1):
                if col in same_down:
                    continue
                head = data.cells.get((above, col))
                cell = data.cells.get((row, col))
                if head is None or cell is None or not head.display.strip():
                    continue
                if (header, col) in spanned and above == header:
                    continue
                if not cell.display.strip() or len(cell.display) > 60:
                    continue
                if cell.formula and VOLATILE.search(cell.formula):
                    continue  # =TODAY(), =NOW(): a reader sees today's value, not the cached one
                if cell.display.strip() in header_texts or cell.display.strip() in labels.values():
                    break  # a header's or a row label's text: the row is not a data row
                out.append(
                    {
                        "cell": cell.ref,
                        "row_label": row_label,
                        "column_header": head.display.strip(),
                        "value": cell.display.strip(),
                        "formula": bool(cell.formula),
                    }
                )
                break
            if len(out) >= MAX_LOOKUPS:
                break
        return out

    def table(self, sheet: SheetInfo, table: dict[str, Any], renderer: CellRenderer) -> str:
        label = sheet_label(sheet.name)
        box = table["box"]
        header = box[0] if table["header_rows"] else None
        lines = [f"Table '{table['name']}' at {label}!{table['ref']}"]
        if table["style"]:
            lines.append(f"Table style: {table['style']}")
        columns = ", ".join(c["name"] for c in table["columns"])
        lines.append(f"Declared columns: {columns}")
        if table["totals_rows"]:
            lines.append("The table has a totals row")
        for column in table["columns"]:
            if column["formula"]:
                lines.append(f"Calculated column '{column['name']}': ={column['formula']}")
            if column["totals_function"] and table["totals_rows"]:
                lines.append(f"Totals row of '{column['name']}': {column['totals_function']}")
        text = "\n".join(lines) + "\n\n" + grid(renderer, box, header, MAX_ROWS)
        data = self.data[sheet.name]
        facts = {
            **{k: v for k, v in table.items() if k != "box"},
            "sheet": sheet.name,
            "range": table["ref"],
            "lookups": self.lookups(data, box, header),
        }
        artifact = self.add(
            "table",
            (sheet.name, table["name"]),
            "Table",
            "table",
            "table",
            Locator(sheet=sheet.name, cells=table["ref"]),
            text,
            facts,
        )
        return artifact.placeholder or ""

    def pivot(self, sheet: SheetInfo, pivot: dict[str, Any], renderer: CellRenderer) -> str:
        label = sheet_label(sheet.name)
        lines = [f"PivotTable '{pivot['name']}' at {label}!{pivot['location']}"]
        lines.append(f"Source data: {pivot['source'] or 'unknown'}")
        for key, word in (
            ("row_fields", "Row fields"),
            ("column_fields", "Column fields"),
            ("page_fields", "Filter (page) fields"),
        ):
            if pivot[key]:
                lines.append(f"{word}: {', '.join(pivot[key])}")
        for data_field in pivot["data_fields"]:
            shown = f" shown as {data_field['show_as']}" if data_field["show_as"] else ""
            lines.append(
                f"Value field '{data_field['name']}': {data_field['aggregation']} "
                f"of {data_field['field']}{shown}"
            )
        text = "\n".join(lines)
        if pivot["box"] is not None:
            text += "\n\n" + grid(renderer, pivot["box"], None, MAX_ROWS)
        facts = {**{k: v for k, v in pivot.items() if k != "box"}, "sheet": sheet.name}
        artifact = self.add(
            "pivot",
            (sheet.name, pivot["name"]),
            "PivotTable",
            "pivot",
            "table",
            Locator(sheet=sheet.name, cells=pivot["location"]),
            text,
            facts,
        )
        return artifact.placeholder or ""


def _header_like(data: SheetData, row: int, box: tuple[int, int, int, int]) -> bool:
    """A row inside a range that heads a sub-table: two or more text cells past the label
    column, no number among them, and numbers in the row below."""
    _, left, bottom, right = box
    cells = [data.cells.get((row, col)) for col in range(left + 1, right + 1)]
    filled = [cell for cell in cells if cell is not None and cell.display.strip()]
    if len(filled) < 2 or any(not isinstance(cell.value, str) for cell in filled):
        return False
    if any(_numeric(cell.display) for cell in filled) or row >= bottom:
        return False
    after = [data.cells.get((row + 1, col)) for col in range(left + 1, right + 1)]
    return any(cell is not None and not isinstance(cell.value, str) for cell in after)


def _numeric(text: str) -> bool:
    return _number(text) is not None


def _number(text: str) -> float | None:
    """The number a cell shows ("1,200", "12.5%"), or None."""
    try:
        return float(text.replace(",", "").replace("%", "").strip())
    except ValueError:
        return None


def _one_value(data: SheetData, rows: Iterable[int], col: int) -> bool:
    """Three or more of the rows show a value in the column, and it is the same value."""
    shown = [cell.display.strip() for row in rows if (cell := data.cells.get((row, col)))]
    return len(shown) >= 3 and len(set(shown)) == 1


def _counts_rows(data: SheetData, rows: Iterable[int], col: int) -> bool:
    """The column numbers its rows 1, 2, 3… (or any even step): a value guessed from the
    row's place, not read."""
    numbers = []
    for row in rows:
        cell = data.cells.get((row, col))
        number = None if cell is None or isinstance(cell.value, str) else _number(cell.display)
        if number is None:
            return False
        numbers.append(number)
    steps = {b - a for a, b in zip(numbers, numbers[1:], strict=False)}
    return len(numbers) >= 3 and len(steps) == 1 and steps != {0.0}
