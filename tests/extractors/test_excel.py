"""The Excel extractor on real workbooks from the test corpus and on workbooks built here."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from openpyxl import Workbook
from openpyxl.formatting.rule import CellIsRule
from openpyxl.styles import Border, Font, PatternFill, Side

from extractors import ExtractionError
from extractors import extract_file as extract
from extractors.excel import sheet as excel_sheet
from extractors.excel import workbook as excel_workbook
from extractors.excel.views import sheet_only
from fidelity.core.apps import TAXONOMY
from fidelity.core.document import Document
from fidelity.core.views import View, group_view, named_views, view_context
from tests.support.paths import CORPUS

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "fixtures" / "regional_sales.xlsx"


def load(path: Path, tmp_path: Path) -> Document:
    document = Document(sha256="0" * 64, app="excel", format="xlsx", source=str(path))
    return extract(path, document, tmp_path / "media" / "doc")


def kinds(document: Document, kind: str) -> list:
    return [a for a in document.artifacts if a.kind == kind]


def test_fixture_has_every_buildable_category(tmp_path: Path) -> None:
    document = load(FIXTURE, tmp_path)
    categories = {a.category for a in document.artifacts}
    assert categories == set(TAXONOMY["excel"]) - {"PivotTable", "Shape"}
    assert all(a.category in TAXONOMY["excel"] for a in document.artifacts)
    assert document.size == {
        "unit": "sheets",
        "count": 3,
        "source": "xl/workbook.xml",
        "hidden_sheets": 1,
        "bucket": "Small",
    }
    ids = [a.id for a in document.artifacts]
    assert len(ids) == len(set(ids))
    assert [a.id for a in load(FIXTURE, tmp_path).artifacts] == ids  # stable ids


def test_sheet_index_states_order_visibility_and_tab_colour(tmp_path: Path) -> None:
    document = load(FIXTURE, tmp_path)
    sheets = kinds(document, "sheet")
    assert [s.facts["name"] for s in sheets] == ["Sales", "Staff", "Settings"]
    assert sheets[2].facts["state"] == "hidden"
    assert sheets[0].facts["tab_color"] == "blue"
    index = document.body.split("## Sheet 'Sales'")[0]
    assert all(s.placeholder in index for s in sheets)


def test_cells_keep_coordinates_display_formats_and_cues(tmp_path: Path) -> None:
    document = load(FIXTURE, tmp_path)
    text = view_context(document, View("full")).text
    (tlr,) = kinds(document, "tlr")
    assert tlr.facts["range"] == "A3:E8" and tlr.facts["header_row"] == 3
    assert "| 4 | North | $1,200 | $1,350 |" in text
    assert "12.5% (formula Sales!E4: =C4/B4-1)" in text
    assert "8 (border-marked row)" in text
    assert "**Total**" in text
    assert "fill light blue (#DDEBF7)" in text
    assert "[merged A1:E1]" in text
    assert "B1: 7.5%" in text


def test_formula_keeps_formula_and_cached_value(tmp_path: Path) -> None:
    document = load(FIXTURE, tmp_path)
    formulas = {a.facts["cell"]: a for a in kinds(document, "formula")}
    total = formulas["D8"]
    assert total.facts["formula"] == "=SUM(D4:D7)"
    assert total.facts["cached_value"] == "9090"
    assert total.fallback == "$9,090"
    assert total.facts["precedents"] == ["D4:D7"]
    assert formulas["B11"].facts["names"] == ["TaxRate"]
    assert formulas["F1"].facts["sheets"] == ["Sales"]
    (name,) = kinds(document, "defined-name")
    assert name.facts["value"] == "7.5%"
    assert "Sales!B11" in name.facts["used_by"]


def test_values_only_view_replaces_formulas_by_values(tmp_path: Path) -> None:
    document = load(FIXTURE, tmp_path)
    text = view_context(document, group_view(document, "values-only")).text
    assert "=SUM(" not in text and "formula" not in text
    assert "| 8 (border-marked row) | **Total** | $4,370 | $4,720 | $9,090 |  |" in text


def test_sheet_only_and_text_only_views(tmp_path: Path) -> None:
    document = load(FIXTURE, tmp_path)
    staff = view_context(document, sheet_only(document, "Staff")).text
    assert "Ada Park" in staff and "North | $1,200" not in staff
    assert "Defined name 'TaxRate'" not in staff
    settings = view_context(document, sheet_only(document, "Settings")).text
    assert "Defined name 'TaxRate'" in settings
    text_only = view_context(document, named_views(document)["text-only"]).text
    assert "Ada Park" not in text_only and "Chart title" not in text_only
    assert "Regional sales report" in text_only


def test_chart_image_and_other_artifacts(tmp_path: Path) -> None:
    document = load(FIXTURE, tmp_path)
    (chart,) = kinds(document, "chart")
    assert chart.modality == "visual" and chart.media is None
    assert "Chart title: Sales by region" in chart.text
    assert "Horizontal axis title: Region" in chart.text
    assert "Vertical axis title: US dollars" in chart.text
    assert chart.facts["anchor"] == "I3"
    (image,) = kinds(document, "image")
    assert image.media and (tmp_path / image.media).is_file()
    assert image.facts["width"] == 120
    (comment,) = kinds(document, "comment")
    assert comment.facts["author"] == "Dana Reyes" and comment.facts["ref"] == "B4"
    (validation,) = kinds(document, "data-validation")
    assert validation.facts["values"] == ["Open", "Closed", "On hold"]
    (link,) = kinds(document, "hyperlink")
    assert link.facts["target"] == "https://example.com/growth-definition"
    (rule,) = kinds(document, "conditional-format")
    assert rule.facts["condition"] == "cell value greater than 0.1"
    (table,) = kinds(document, "table")
    assert table.facts["name"] == "StaffTable" and table.facts["style"] == "TableStyleMedium9"


def test_merged_ranges_and_unstructured_cells(tmp_path: Path) -> None:
    book = Workbook()
    sheet = book.active
    sheet["B2"] = "Budget memo"
    sheet.merge_cells("B2:F3")
    sheet["B6"] = "Prepared by"
    sheet["C6"] = "Finance team"
    path = tmp_path / "memo.xlsx"
    book.save(path)
    document = load(path, tmp_path)
    title, signature = kinds(document, "cells")
    assert "B2: Budget memo [merged B2:F3]" in title.text
    assert signature.facts["pairs"] == [
        {"label": "Prepared by", "cell": "C6", "value": "Finance team"}
    ]
    assert not kinds(document, "tlr")


def test_header_less_range_and_totals_border(tmp_path: Path) -> None:
    book = Workbook()
    sheet = book.active
    for row in range(1, 6):
        sheet.cell(row=row, column=1, value=row * 10)
        sheet.cell(row=row, column=2, value=row * 20)
    for col in (1, 2):
        sheet.cell(row=5, column=col).border = Border(top=Side(style="thin"))
        sheet.cell(row=1, column=col).fill = PatternFill("solid", fgColor="FFFF00")
        sheet.cell(row=1, column=col).font = Font(italic=True)
    path = tmp_path / "numbers.xlsx"
    book.save(path)
    document = load(path, tmp_path)
    (tlr,) = kinds(document, "tlr")
    assert tlr.facts["header_row"] is None
    assert "| Row | A | B |" in tlr.text
    assert "| 5 (border-marked row) | 50 | 100 |" in tlr.text
    assert "*10* [fill yellow (#FFFF00)]" in tlr.text


def test_large_sheet_is_capped_and_says_so(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(excel_sheet, "MAX_ROWS", 40)
    book = Workbook(write_only=True)
    sheet = book.create_sheet("Log")
    sheet.append(["Id", "Value"])
    for row in range(2000):
        sheet.append([row, row * 2])
    path = tmp_path / "big.xlsx"
    book.save(path)
    document = load(path, tmp_path)
    (sheet_artifact,) = kinds(document, "sheet")
    assert sheet_artifact.facts["truncated_at_row"] == 41
    assert "only rows before 41 are rendered" in sheet_artifact.text
    assert sheet_artifact.facts["cells"] == 4002
    assert any("rendering stopped at row 41" in n for n in document.notes)
    (tlr,) = kinds(document, "tlr")
    assert tlr.facts["range"] == "A1:B40"


# where an XML comment or processing instruction goes in the worksheet: (before, after)
COMMENTED = {
    "between rows": ('</row><row r="2"', '</row><!-- c --><row r="2"'),
    "in a row": ('<c r="B2"', '<!-- c --><?note x?><c r="B2"'),
    "in a cell": ("<v>3</v>", "<!-- c --><v>3</v><!-- c -->"),
    "in sheetData": ("<sheetData>", "<sheetData><!-- c -->"),
    "in a rule": ("<formula>", "<!-- c --><formula>"),
}


@pytest.mark.parametrize("streamed", [False, True], ids=["parsed whole", "streamed"])
@pytest.mark.parametrize("place", COMMENTED)
def test_comments_in_a_worksheet_are_ignored(
    tmp_path: Path, monkeypatch, place: str, streamed: bool
) -> None:
    if streamed:
        monkeypatch.setattr(excel_workbook, "WHOLE_PART_BYTES", 0)
    book = Workbook()
    sheet = book.active
    sheet.append(["Item", "Count", "Double"])
    for row, (item, count) in enumerate([("pens", 3), ("ink", 5), ("pads", 8)], start=2):
        sheet.append([item, count, f"=B{row}*2"])
    red = PatternFill("solid", fgColor="FF0000")
    sheet.conditional_formatting.add(
        "B2:B4", CellIsRule(operator="greaterThan", formula=["4"], fill=red)
    )
    plain = tmp_path / "plain" / "book.xlsx"
    plain.parent.mkdir()
    book.save(plain)
    before, after = COMMENTED[place]
    commented = tmp_path / "commented" / "book.xlsx"
    commented.parent.mkdir()
    with zipfile.ZipFile(plain) as source, zipfile.ZipFile(commented, "w") as target:
        for info in source.infolist():
            data = source.read(info.filename)
            if info.filename == "xl/worksheets/sheet1.xml":
                assert before.encode() in data
                data = data.replace(before.encode(), after.encode(), 1)
            target.writestr(info, data)
    expected, found = load(plain, tmp_path), load(commented, tmp_path)
    assert not found.notes
    assert found.body == expected.body
    assert [a.model_dump() for a in found.artifacts] == [a.model_dump() for a in expected.artifacts]
    assert kinds(found, "conditional-format") and len(kinds(found, "formula")) == 3


def test_not_a_workbook_is_an_extraction_error(tmp_path: Path) -> None:
    path = tmp_path / "fake.xlsx"
    path.write_text("plain text")
    with pytest.raises(ExtractionError):
        load(path, tmp_path)


def test_hidden_and_very_hidden_sheets(tmp_path: Path) -> None:
    document = load(CORPUS / "excel" / "sheet_visibility.xlsx", tmp_path)
    states = {a.facts["name"]: a.facts["state"] for a in kinds(document, "sheet")}
    assert states == {"Visible": "visible", "Hidden": "hidden", "VeryHidden": "very hidden"}


def test_pivot_table_fields_and_aggregation(tmp_path: Path) -> None:
    document = load(CORPUS / "excel" / "QuarterlySales.xlsx", tmp_path)
    (pivot,) = kinds(document, "pivot")
    assert pivot.facts["row_fields"] == ["Region", "Category"]
    assert pivot.facts["column_fields"] == ["Year", "Quarter"]
    assert pivot.facts["data_fields"][0]["aggregation"] == "Sum"
    assert pivot.facts["source"] == "Sales"
    assert "| 6 | North | 3448 | 3448 | 3448 |" in pivot.text


def test_formal_table_and_chart_in_real_workbooks(tmp_path: Path) -> None:
    table_doc = load(CORPUS / "excel" / "SH107-9-x-9-Formatted-Table.xlsx", tmp_path)
    (table,) = kinds(table_doc, "table")
    assert table.facts["columns"] and table.facts["range"]
    chart_doc = load(CORPUS / "excel" / "45544.xlsx", tmp_path)
    titles = {a.facts["title"] for a in kinds(chart_doc, "chart")}
    assert titles == {"Top Six Functions - Intern", "Top Five Industries - Intern"}


def test_formula_stress_file_keeps_both_signals(tmp_path: Path) -> None:
    document = load(CORPUS / "excel" / "formula_stress_test.xlsx", tmp_path)
    first = next(a for a in kinds(document, "formula") if a.locator == "Database!B2")
    assert first.facts["formula"] == "=DAVERAGE(A24:E30,D2,A19:C21)"
    assert first.fallback == "11.66666667"
    assert "DAVERAGE" in first.facts["functions"]


def test_conditional_formats_and_strict_ooxml(tmp_path: Path) -> None:
    samples = load(CORPUS / "excel" / "ConditionalFormattingSamples.xlsx", tmp_path)
    rules = kinds(samples, "conditional-format")
    assert len(rules) >= 10 and any(r.facts["visual"] for r in rules)
    strict = load(CORPUS / "variants" / "universal-content-strict.xlsx", tmp_path)
    assert kinds(strict, "formula") and kinds(strict, "comment") and kinds(strict, "shape")


def test_chart_sheets_images_and_corrupt_part(tmp_path: Path) -> None:
    document = load(CORPUS / "excel" / "57181.xlsm", tmp_path)
    charts = kinds(document, "chart")
    assert {c.facts["sheet"] for c in charts} == {"Detailed_graph", "Summary_graph"}
    assert kinds(document, "image")
    broken = CORPUS / "bad" / "clusterfuzz-testcase-minimized-POIXSSFFuzzer-5937385319563264.xlsx"
    try:
        partial = load(broken, tmp_path)
    except ExtractionError as error:
        assert str(error)
    else:
        assert partial.notes


THREAD_NS = "http://schemas.microsoft.com/office/spreadsheetml/2018/threadedcomments"
REL_NS = "http://schemas.openxmlformats.org/package/2006/relationships"


def test_threaded_comment_with_reply(tmp_path: Path) -> None:
    book = Workbook()
    book.active["A1"] = 1250
    plain = tmp_path / "plain.xlsx"
    book.save(plain)
    threaded = (
        f'<ThreadedComments xmlns="{THREAD_NS}">'
        '<threadedComment ref="A1" personId="{P1}" id="{C1}"><text>Check this figure</text>'
        '</threadedComment><threadedComment ref="A1" personId="{P2}" id="{C2}" parentId="{C1}">'
        "<text>Confirmed with finance</text></threadedComment></ThreadedComments>"
    )
    people = (
        f'<personList xmlns="{THREAD_NS}"><person displayName="Ann Lee" id="{{P1}}"/>'
        '<person displayName="Raj Patel" id="{P2}"/></personList>'
    )
    sheet_rels = (
        f'<Relationships xmlns="{REL_NS}"><Relationship Id="rId9" '
        'Type="http://schemas.microsoft.com/office/2017/10/relationships/threadedComment" '
        'Target="../threadedComments/threadedComment1.xml"/></Relationships>'
    )
    path = tmp_path / "threaded.xlsx"
    with zipfile.ZipFile(plain) as source, zipfile.ZipFile(path, "w") as target:
        for info in source.infolist():
            data = source.read(info.filename)
            if info.filename == "xl/_rels/workbook.xml.rels":
                data = data.replace(
                    b"</Relationships>",
                    b'<Relationship Id="rId99" Type="http://schemas.microsoft.com/office/2017/10/'
                    b'relationships/person" Target="persons/person.xml"/></Relationships>',
                )
            target.writestr(info.filename, data)
        target.writestr("xl/threadedComments/threadedComment1.xml", threaded)
        target.writestr("xl/persons/person.xml", people)
        target.writestr("xl/worksheets/_rels/sheet1.xml.rels", sheet_rels)
    document = load(path, tmp_path)
    (comment,) = kinds(document, "comment")
    assert comment.facts["kind"] == "threaded" and comment.facts["author"] == "Ann Lee"
    assert comment.facts["replies"][0]["author"] == "Raj Patel"
    assert "Reply by Raj Patel: Confirmed with finance" in comment.text
    assert comment.facts["cell_value"] == "1250"


def test_an_unparsable_formula_costs_only_its_analysis(tmp_path: Path) -> None:
    """A formula the tokenizer refuses keeps its text and costs neither its cell nor the file
    (its analysis had no 'aggregate' key, and the file failed with KeyError)."""
    book = Workbook()
    sheet = book.active
    sheet["A1"], sheet["A2"] = 4, 5
    sheet["B1"] = '="unterminated'
    sheet["B2"] = "=SUM(A1:A2)"
    path = tmp_path / "unparsable.xlsx"
    book.save(path)
    document = load(path, tmp_path)
    formulas = {a.facts["cell"]: a for a in document.artifacts if a.category == "Formula"}
    assert set(formulas) == {"B1", "B2"}
    assert formulas["B1"].facts["precedents"] == [] and not formulas["B1"].facts["aggregate"]
    assert formulas["B2"].facts["aggregate"]
