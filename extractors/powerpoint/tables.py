"""Slide tables: their cells as an HTML table artifact and their cell colour coding."""

from __future__ import annotations

import html
from collections import Counter

from lxml import etree

from extractors.ooxml.namespaces import a, one_line
from extractors.powerpoint.colors import Color
from extractors.powerpoint.shapes import Shape
from extractors.powerpoint.slide_context import SlideContext, label
from extractors.powerpoint.text import paragraphs
from fidelity.core.document import Artifact


def _cell_text(ctx: SlideContext, cell: etree._Element) -> str:
    body = cell.find(a("txBody"))
    found = paragraphs(body, ctx.slide.palette, lambda element: ctx.deck.link(ctx.slide, element))
    return one_line(" ".join(item.text for item in found))


def table_lines(ctx: SlideContext, shape: Shape) -> list[str]:
    table = shape.element.find(f".//{a('tbl')}")
    if table is None:
        return []
    props = table.find(a("tblPr"))
    header_row = props is not None and props.get("firstRow") in ("1", "true")
    grid: list[list[str]] = []
    spread: list[list[str]] = []  # merged cells repeat their text over the span
    fills: list[list[Color | None]] = []
    html_rows = []
    for row in table.findall(a("tr")):
        values: list[str] = []
        spread_row: list[str] = []
        colors: list[Color | None] = []
        cells_html = []
        for cell in row.findall(a("tc")):
            merged = cell.get("hMerge") in ("1", "true") or cell.get("vMerge") in ("1", "true")
            text = "" if merged else _cell_text(ctx, cell)
            if cell.get("hMerge") in ("1", "true") and spread_row:
                spread_row.append(spread_row[-1])
            elif (
                cell.get("vMerge") in ("1", "true") and spread and len(spread_row) < len(spread[-1])
            ):
                spread_row.append(spread[-1][len(spread_row)])
            else:
                spread_row.append(text)
            fill = ctx.slide.palette.fill(cell.find(a("tcPr")))
            color = fill if isinstance(fill, Color) else None
            values.append(text)
            colors.append(color)
            if merged:
                continue
            attributes = "".join(
                f' {name}="{cell.get(attr)}"'
                for attr, name in (("gridSpan", "colspan"), ("rowSpan", "rowspan"))
                if cell.get(attr) not in (None, "1")
            )
            if color is not None:
                attributes += f' style="background-color:#{color.hex}"'
            tag = "th" if header_row and not grid else "td"
            cells_html.append(f"<{tag}{attributes}>{html.escape(text)}</{tag}>")
        grid.append(values)
        spread.append(spread_row)
        fills.append(colors)
        html_rows.append("<tr>" + "".join(cells_html) + "</tr>")
    if not any(any(row) for row in grid):
        return []
    columns = max(len(row) for row in grid)
    text_rows = ["| " + " | ".join(cell.replace("|", "/") for cell in row) + " |" for row in grid]
    text = f"{label(shape)} table ({len(grid)} rows × {columns} columns):\n" + "\n".join(text_rows)
    facts = {"rows": grid, "grid": spread, "header_row": header_row, "shape_name": shape.name}
    artifact = ctx.add(
        "table",
        (shape.shape_id,),
        text,
        shape,
        html="<table>" + "".join(html_rows) + "</table>",
        facts=facts,
    )
    out = [ctx.show(artifact)]
    coloured = _cell_colors(ctx, shape, grid, fills, artifact)
    if coloured is not None:
        out.append(ctx.show(coloured))
    return out


def _cell_colors(
    ctx: SlideContext,
    shape: Shape,
    grid: list[list[str]],
    fills: list[list[Color | None]],
    table: Artifact,
) -> Artifact | None:
    """The cell fills of a table: the usual fill once, then every cell that differs."""
    found = [(r, c, color) for r, row in enumerate(fills) for c, color in enumerate(row) if color]
    if not found:
        return None
    common, _ = Counter(color.hex for _, _, color in found).most_common(1)[0]
    usual = next(color for _, _, color in found if color.hex == common)
    lines = [f"Cell fill colours of table {label(shape)}: most cells are {usual.describe()}"]
    cells = []
    for row, column, color in found:
        if color.hex == common and len(found) > 1:
            continue
        row_label = grid[row][0] if grid[row] and grid[row][0] and column else f"row {row + 1}"
        header = grid[0][column] if row and column < len(grid[0]) and grid[0][column] else ""
        column_label = header or f"column {column + 1}"
        value = grid[row][column] if column < len(grid[row]) else ""
        lines.append(
            f"Cell fill colour in row “{row_label}”, column “{column_label}” "
            f"(R{row + 1}C{column + 1}, value “{value}”): {color.describe()}"
        )
        cells.append(
            {
                "row": row + 1,
                "column": column + 1,
                "row_label": row_label,
                "column_label": column_label,
                "value": value,
                "color": color.hex,
                "color_name": color.name,
            }
        )
    facts = {
        "common_color": common,
        "common_color_name": usual.name,
        "cells": cells,
        "table": table.id,
        "shape_name": shape.name,
    }
    return ctx.add("table-cell-colors", (shape.shape_id,), "\n".join(lines), shape, facts=facts)
