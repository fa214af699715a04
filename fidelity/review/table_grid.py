"""A document table's HTML as a grid of cell texts (spans repeated as empty cells), for formats
that show tables as cells rather than markup."""

from __future__ import annotations

from lxml import etree
from lxml import html as lxml_html

MAX_SPAN = 50


def _span(cell: etree._Element, name: str) -> int:
    try:
        return max(1, min(MAX_SPAN, int(cell.get(name, "1"))))
    except ValueError:
        return 1


def table_rows(markup: str) -> list[list[str]]:
    """The first table's rows, each a list of cell texts; a cell spanning several columns or
    rows fills the first and leaves the others empty. [] when there is no table."""
    try:
        root = lxml_html.fromstring(markup)
    except (etree.ParserError, ValueError):
        return []
    tables = [root] if root.tag == "table" else root.xpath(".//table")
    if not tables:
        return []
    grid: dict[tuple[int, int], str] = {}
    rows = [row for row in tables[0].iter("tr") if row.getparent() is not None]
    for r, row in enumerate(rows):
        c = 0
        for cell in row:
            if cell.tag not in ("td", "th"):
                continue
            while (r, c) in grid:
                c += 1
            text = " ".join(cell.text_content().split())
            for dr in range(_span(cell, "rowspan")):
                for dc in range(_span(cell, "colspan")):
                    grid[(r + dr, c + dc)] = text if dr == dc == 0 else ""
            c += _span(cell, "colspan")
    if not grid:
        return []
    height = max(r for r, _ in grid) + 1
    width = max(c for _, c in grid) + 1
    return [[grid.get((r, c), "") for c in range(width)] for r in range(height)]
