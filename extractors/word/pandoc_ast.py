"""Small helpers over pandoc's JSON AST (API 1.23): plain text and node constructors."""

from __future__ import annotations

from typing import Any

Node = dict[str, Any]

_CONTAINERS = {"Emph", "Strong", "Underline", "Strikeout", "Superscript", "Subscript", "SmallCaps"}


def stringify(node: Any) -> str:
    """Plain text of an inline/block node or list of nodes (notes left out)."""
    if isinstance(node, list):
        return "".join(stringify(item) for item in node)
    if not isinstance(node, dict):
        return ""
    kind = node.get("t")
    content = node.get("c")
    if kind == "Str":
        return content
    if kind in ("Space", "SoftBreak"):
        return " "
    if kind == "LineBreak":
        return "\n"
    if kind == "Note":
        return ""
    if kind in _CONTAINERS:
        return stringify(content)
    if kind in ("Span", "Link"):
        return stringify(content[1])
    if kind == "Image":
        return stringify(content[1])
    if kind == "Quoted":
        return "“" + stringify(content[1]) + "”"
    if kind in ("Code", "Math"):
        return content[1]
    if kind in ("Cite",):
        return stringify(content[1])
    if kind in ("Para", "Plain", "Header"):
        inlines = content[2] if kind == "Header" else content
        return stringify(inlines) + "\n"
    if kind in ("BulletList",):
        return "".join(stringify(item) for item in content)
    if kind == "OrderedList":
        return "".join(stringify(item) for item in content[1])
    if kind in ("BlockQuote",):
        return stringify(content)
    if kind == "Div":
        return stringify(content[1])
    if kind == "Figure":
        return stringify(content[2])
    if kind == "LineBlock":
        return "\n".join(stringify(line) for line in content)
    if kind == "Table":
        return _table_text(content)
    return ""


def _table_text(content: list[Any]) -> str:
    rows = table_rows(content)
    return "\n".join(" | ".join(cell for cell in row) for row in rows) + "\n"


def table_rows(content: list[Any]) -> list[list[str]]:
    """Cell texts row by row (head, bodies, foot); merged cells appear once."""
    _, _, _, head, bodies, foot = content
    raw_rows = list(head[1])
    for body in bodies:
        raw_rows.extend(body[2])
        raw_rows.extend(body[3])
    raw_rows.extend(foot[1])
    return [[" ".join(stringify(cell[4]).split()) for cell in row[1]] for row in raw_rows]


def table_grid(content: list[Any]) -> list[list[str]]:
    """Cell texts on the table's full grid: a merged cell's text fills every position it spans,
    so each column of every row lines up with the header above it."""
    _, _, _, head, bodies, foot = content
    raw_rows = list(head[1])
    for body in bodies:
        raw_rows.extend(body[2])
        raw_rows.extend(body[3])
    raw_rows.extend(foot[1])
    grid: list[list[str]] = []
    pending: dict[tuple[int, int], str] = {}  # (row, column) filled by a row span from above
    for row_index, row in enumerate(raw_rows):
        line: list[str] = []
        cells = iter(row[1])
        column = 0
        while True:
            if (row_index, column) in pending:
                line.append(pending.pop((row_index, column)))
                column += 1
                continue
            cell = next(cells, None)
            if cell is None:
                break
            text = " ".join(stringify(cell[4]).split())
            rowspan, colspan = max(1, int(cell[2])), max(1, int(cell[3]))
            for offset in range(colspan):
                line.append(text)
                for below in range(1, rowspan):
                    pending[(row_index + below, column + offset)] = text
            column += colspan
        grid.append(line)
    return grid


def head_row_count(content: list[Any]) -> int:
    return len(content[3][1])


def para(text: str) -> Node:
    return {"t": "Para", "c": [{"t": "Str", "c": text}]}


def document(blocks: list[Node], api: list[int]) -> dict[str, Any]:
    return {"pandoc-api-version": api, "meta": {}, "blocks": blocks}
