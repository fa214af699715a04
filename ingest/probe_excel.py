"""Probe an Excel package: per-sheet text, taxonomy category counts, structure signals.

Table-like ranges (TLR) are blocks of at least four consecutive rows that share
three or more populated columns with the row before; rows holding one or two
cells outside such blocks count as unstructured content.
"""

from __future__ import annotations

import re

from lxml import etree

from fidelity.core.xmlsafe import Package
from ingest.probe import Probe, load, main_part, parts

S = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
XDR = "http://schemas.openxmlformats.org/drawingml/2006/spreadsheetDrawing"
MAX_TEXT_ROWS = 400  # per sheet; counts still cover every row
TLR_MIN_ROWS = 4
TLR_MIN_SHARED = 3
COLUMN = re.compile(r"[A-Z]+")


def s(name: str) -> str:
    return f"{{{S}}}{name}"


def _column(ref: str) -> int:
    match = COLUMN.match(ref)
    index = 0
    for letter in match.group(0) if match else "":
        index = index * 26 + ord(letter) - 64
    return index


def _shared_strings(package: Package) -> list[str]:
    root = load(package, "xl/sharedStrings.xml") if package.has("xl/sharedStrings.xml") else None
    if root is None:
        return []
    return ["".join(t.text or "" for t in item.iter(s("t"))) for item in root.iter(s("si"))]


def _cell_value(cell: etree._Element, strings: list[str]) -> str:
    kind = cell.get("t", "n")
    if kind == "inlineStr":
        return "".join(t.text or "" for t in cell.iter(s("t")))
    value = cell.findtext(s("v")) or ""
    if kind == "s" and value.isdigit() and int(value) < len(strings):
        return strings[int(value)]
    return value


def _sheet(root: etree._Element, strings: list[str], probe: Probe, counts: dict[str, int]) -> None:
    previous: set[int] = set()
    previous_row = -1
    block = 0
    sparse_rows: list[bool] = []
    written = 0
    for row in root.iter(s("row")):
        values: dict[int, str] = {}
        for cell in row.iter(s("c")):
            if cell.find(s("f")) is not None:
                counts["Formula"] += 1
            value = _cell_value(cell, strings).strip()
            if value:
                values[_column(cell.get("r", ""))] = value
        number = int(row.get("r", previous_row + 1) or previous_row + 1)
        columns = set(values)
        if number == previous_row + 1 and len(columns & previous) >= TLR_MIN_SHARED:
            block += 1
        else:
            counts["TLR"] += block + 1 >= TLR_MIN_ROWS
            block = 0
        # A row belongs to a table-like block when it shares enough columns with a neighbour.
        sparse_rows.append(0 < len(columns) <= 2 and block == 0)
        previous, previous_row = columns, number
        if values and written < MAX_TEXT_ROWS:
            probe.add_line("| " + " | ".join(values[key] for key in sorted(values)) + " |")
            written += 1
    counts["TLR"] += block + 1 >= TLR_MIN_ROWS
    counts["Unstructured"] += sum(sparse_rows)


def fill(package: Package, probe: Probe, values: dict[str, str]) -> None:
    workbook_part = main_part(package, "xl/workbook.xml")
    workbook = load(package, workbook_part)
    if workbook is None:
        raise ValueError("Excel package without its workbook part")
    rels = package.rels(workbook_part)
    strings = _shared_strings(package)
    counts = dict.fromkeys(("TLR", "Unstructured", "Formula"), 0)
    sheets = workbook.findall(f"{s('sheets')}/{s('sheet')}")
    hidden = 0
    for sheet in sheets:
        name = sheet.get("name", "")
        hidden += sheet.get("state", "visible") != "visible"
        probe.add_line(f"## Sheet: {name}")
        kind, target, _ = rels.get(sheet.get(f"{{{R}}}id", ""), ("", "", ""))
        part = Package.resolve(workbook_part, target) if target else ""
        root = load(package, part) if kind == "worksheet" and package.has(part) else None
        if root is not None:
            _sheet(root, strings, probe, counts)
    drawings = [load(package, name) for name in parts(package, r"xl/drawings/drawing\d+\.xml")]
    names = [
        item
        for item in workbook.iter(s("definedName"))
        if not item.get("name", "").startswith("_xlnm")
    ]
    comments = 0
    for name in parts(package, r"xl/comments\d*\.xml"):
        root = load(package, name)
        comments += sum(1 for _ in root.iter(s("comment"))) if root is not None else 0
    probe.categories.update(
        counts,
        Sheet=len(sheets),
        Table=len(parts(package, r"xl/tables/table\d+\.xml")),
        Chart=len(parts(package, r"xl/charts/chart(Ex)?\d+\.xml")),
        Image=sum(sum(1 for _ in d.iter(f"{{{XDR}}}pic")) for d in drawings if d is not None),
        Shape=sum(sum(1 for _ in d.iter(f"{{{XDR}}}sp")) for d in drawings if d is not None),
        PivotTable=len(parts(package, r"xl/pivotTables/pivotTable\d+\.xml")),
        Other=comments + len(names),
    )
    probe.features.update(sheets=len(sheets), hidden_sheets=hidden, formulas=counts["Formula"])
