"""Small helpers over pandoc's JSON AST (API 1.23): plain text and node constructors."""

from __future__ import annotations

import json
from typing import Any

Node = dict[str, Any]

_CONTAINERS = {"Emph", "Strong", "Underline", "Strikeout", "Superscript", "Subscript", "SmallCaps"}


def stringify(node: Any) -> str:
    """Plain text of an inline/block node or list of nodes (notes left out)."""
    out: list[str] = []
    _gather(node, out)
    return "".join(out)


def _gather(node: Any, out: list[str]) -> None:
    """Appends the plain text of `node` to `out` (one list for the whole walk, rather than
    a string joined at every level: this walk is the hot spot of the body conversion)."""
    if isinstance(node, list):
        for item in node:
            _gather(item, out)
        return
    if not isinstance(node, dict):
        return
    kind = node.get("t")
    content: Any = node.get("c")
    if kind == "Str":
        out.append(content)
    elif kind in ("Space", "SoftBreak"):
        out.append(" ")
    elif kind == "LineBreak":
        out.append("\n")
    elif kind in _CONTAINERS or kind == "BlockQuote":
        _gather(content, out)
    elif kind in ("Span", "Link", "Image", "Cite", "Div"):
        _gather(content[1], out)
    elif kind == "Quoted":
        out.append("“")
        _gather(content[1], out)
        out.append("”")
    elif kind in ("Code", "Math"):
        out.append(content[1])
    elif kind in ("Para", "Plain"):
        _gather(content, out)
        out.append("\n")
    elif kind == "Header":
        _gather(content[2], out)
        out.append("\n")
    elif kind == "BulletList":
        _gather(content, out)
    elif kind == "OrderedList":
        _gather(content[1], out)
    elif kind == "Figure":
        _gather(content[2], out)
    elif kind == "LineBlock":
        for number, line in enumerate(content):
            if number:
                out.append("\n")
            _gather(line, out)
    elif kind == "Table":
        out.append(_table_text(content))


def _table_text(content: list[Any]) -> str:
    rows = table_rows(content)
    return "\n".join(" | ".join(cell for cell in row) for row in rows) + "\n"


def _raw_rows(content: list[Any]) -> list[Any]:
    """The rows of a table: head, each body's head and body rows, foot."""
    _, _, _, head, bodies, foot = content
    raw_rows = list(head[1])
    for body in bodies:
        raw_rows.extend(body[2])
        raw_rows.extend(body[3])
    raw_rows.extend(foot[1])
    return raw_rows


def _cell_text(cell: list[Any]) -> str:
    return " ".join(stringify(cell[4]).split())


def table_rows(content: list[Any]) -> list[list[str]]:
    """Cell texts row by row (head, bodies, foot); merged cells appear once."""
    return [[_cell_text(cell) for cell in row[1]] for row in _raw_rows(content)]


def table_grid(content: list[Any], rows: list[list[str]] | None = None) -> list[list[str]]:
    """Cell texts on the table's full grid: a merged cell's text fills every position it spans,
    so each column of every row lines up with the header above it. `rows`: the table's
    `table_rows`, when already made."""
    raw_rows = _raw_rows(content)
    texts = rows if rows is not None else table_rows(content)
    grid: list[list[str]] = []
    pending: dict[tuple[int, int], str] = {}  # (row, column) filled by a row span from above
    for row_index, row in enumerate(raw_rows):
        line: list[str] = []
        cells = iter(zip(row[1], texts[row_index], strict=True))
        column = 0
        while True:
            if (row_index, column) in pending:
                line.append(pending.pop((row_index, column)))
                column += 1
                continue
            cell, text = next(cells, (None, ""))
            if cell is None:
                break
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


def document_json(blocks: list[str], api: list[int]) -> str:
    """The JSON of a document whose blocks were serialized one by one (`blocks`)."""
    return (
        f'{{"pandoc-api-version": {json.dumps(api)}, "meta": {{}}, '
        f'"blocks": [{", ".join(blocks)}]}}'
    )
