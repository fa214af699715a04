"""Reading a worksheet's cells: where cells without a reference land, and the displayed text
of equal values under different types and styles (the formatting is remembered per value)."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

from openpyxl import Workbook

from extractors.excel.sheet import SheetData, read_sheet
from extractors.excel.workbook import open_workbook
from fidelity.core.xmlsafe import Package

SHEET = "xl/worksheets/sheet1.xml"


def read_rows(tmp_path: Path, rows: str) -> SheetData:
    """The sheet of a workbook whose sheetData is `rows` (a percent style is index 1)."""
    book = Workbook()
    book.active["A1"] = 0.5
    book.active["A1"].number_format = "0%"
    path = tmp_path / "cells.xlsx"
    book.save(path)
    with zipfile.ZipFile(path) as source:
        parts = {name: source.read(name) for name in source.namelist()}
    sheet = re.sub(
        r"<sheetData>.*</sheetData>|<sheetData\s*/>",
        f"<sheetData>{rows}</sheetData>",
        parts[SHEET].decode(),
        flags=re.S,
    )
    assert rows in sheet
    parts[SHEET] = sheet.encode()
    with zipfile.ZipFile(path, "w") as target:
        for name, data in parts.items():
            target.writestr(name, data)
    with Package(path) as package:
        return read_sheet(open_workbook(package), SHEET)


def test_cells_without_a_reference_follow_the_cells_before_them(tmp_path: Path) -> None:
    data = read_rows(
        tmp_path,
        '<row r="1"><c r="A1" s="1"/><c><v>5</v></c><c r="D1"/><c r="bad!"/><c><v>6</v></c></row>'
        '<row r="2"><c/><c/><c t="inlineStr"><is><t>x</t></is></c></row>',
    )
    assert {point: cell.display for point, cell in data.cells.items()} == {
        (1, 2): "5",
        (1, 6): "6",
        (2, 3): "x",
    }
    assert data.cells_seen == 3 and (data.max_row, data.max_col) == (2, 6)


def test_equal_values_show_by_their_own_type_and_style(tmp_path: Path) -> None:
    data = read_rows(
        tmp_path,
        '<row r="1"><c r="A1" t="b"><v>1</v></c><c r="B1"><v>1</v></c>'
        '<c r="C1" s="1"><v>1</v></c><c r="D1" s="1" t="b"><v>1</v></c>'
        '<c r="E1" t="str"><v>1</v></c><c r="F1" s="1"><v>0.5</v></c>'
        '<c r="G1"><v>0.5</v></c></row>',
    )
    shown = [data.cells[(1, col)].display for col in range(1, 8)]
    assert shown == ["TRUE", "1", "100%", "TRUE", "1", "50%", "0.5"]


def test_filled_cells_among_blanks_read_their_first_children_only(tmp_path: Path) -> None:
    data = read_rows(
        tmp_path,
        '<row r="1"><c r="A1" s="1"/><c r="B1" s="1"><v>0.5</v><v>9</v></c><c r="C1"/>'
        '<c r="D1" t="inlineStr"><is><t>y</t></is></c>'
        '<extLst><ext uri="x"><c r="E1"><v>7</v></c></ext></extLst></row>',
    )
    assert {point: cell.display for point, cell in data.cells.items()} == {
        (1, 2): "50%",
        (1, 4): "y",
    }
    assert data.cells_seen == 2 and (data.max_row, data.max_col) == (1, 4)


def test_rows_past_the_cap_are_counted_by_their_filled_cells(tmp_path: Path) -> None:
    kept = "".join(f'<row r="{n}"><c r="A{n}"><v>{n}</v></c></row>' for n in range(1, 1001))
    past = (
        '<row r="1001"><c r="A1001"><v>1</v></c><c r="B1001"/></row>'
        '<row r="1002"><c r="C1002"><f>A1*2</f><f>A1</f><v>2</v></c><c r="bad!"><v>3</v></c>'
        '<c r="E1002" t="inlineStr"><is><t>z</t></is></c>'
        '<extLst><ext uri="x"><c r="H1002"><f>1</f></c></ext></extLst></row>'
    )
    data = read_rows(tmp_path, kept + past)
    assert data.truncated_at_row == 1001 and len(data.cells) == 1000
    assert (data.cells_seen, data.formulas_seen) == (1004, 1)
    assert (data.rows_seen, data.max_row, data.max_col) == (1002, 1002, 5)
