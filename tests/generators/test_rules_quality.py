"""Curator-grade rule questions: one target each, complete answers, words a reader sees,
and the question families drawn from typed facts (issue 12), on built and corpus files."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import docx
import pytest
from docx.shared import Inches
from openpyxl import Workbook
from openpyxl.formatting.rule import CellIsRule, FormulaRule
from openpyxl.styles import PatternFill
from pptx import Presentation
from pptx.enum.shapes import MSO_SHAPE
from pptx.util import Inches as PptInches

from extractors import extract_file as extract
from extractors.excel.sheet import read_sheet
from extractors.excel.workbook import open_workbook
from fidelity.core.document import Artifact, Candidate, Document
from fidelity.core.locator import Locator
from fidelity.core.xmlsafe import Package
from fidelity.explain import _candidate
from generators.rules import common, generate
from tests.support.paths import CORPUS

APP = {".docx": "word", ".xlsx": "excel", ".pptx": "powerpoint"}


def questions(path: Path, tmp_path: Path) -> list[Candidate]:
    app = APP[path.suffix]
    document = Document(sha256="4" * 64, app=app, format=path.suffix[1:], source=str(path))
    return generate(extract(path, document, tmp_path / "media" / path.stem))


def of_type(candidates: list[Candidate], question_type: str) -> list[Candidate]:
    return [c for c in candidates if c.question_type == question_type]


# -- tables: merged headers, key-value tables, labels, comparisons ------------------------


def test_a_merged_header_lists_every_value_under_it() -> None:
    grid = [
        ["Region", "Sales", "Sales", "Staff"],
        ["North", "10", "12", "4"],
        ["South", "7", "9", "3"],
    ]
    cells = common.table_cells(grid, "t", limit=10)
    merged = [c for c in cells if c.column == "Sales"]
    assert {c.values for c in merged} == {("10", "12"), ("7", "9")}
    document = Document(sha256="1" * 64, app="word", format="docx", source="x")
    table = Artifact(
        id="tbl-1", category="Table", kind="table", modality="table", where=Locator(element="t")
    )
    item = common.table_cell_question(document, table, "the table", merged[0])
    assert item.question_type == "table-merged-header"
    assert len(item.answer) == 2 and item.notes


def test_a_two_column_table_is_read_as_label_value_pairs() -> None:
    grid = [["Name", "Dana Reyes"], ["Team", "Gardens"], ["Budget", "$1,200"]]
    cells = common.table_cells(grid, "kv", limit=10)
    assert all(c.column is None for c in cells)
    assert {c.row for c in cells} == {"Team", "Budget"}  # the first row is not a header


@pytest.mark.parametrize("label", ["row 3", "column 2", "1.", "b)", "iv.", ""])
def test_positional_labels_are_not_labels(label: str) -> None:
    assert not common.labelled(label)
    grid = [["Item", "Value"], [label, "x-ray"], ["Other", "y"]]
    assert all(c.row != label for c in common.table_cells(grid, "p", limit=10))


def test_table_comparison_names_the_highest_or_lowest_row_and_its_value() -> None:
    document = Document(sha256="1" * 64, app="powerpoint", format="pptx", source="x")
    table = Artifact(
        id="ppt-t",
        category="Tables/Values",
        kind="table",
        modality="table",
        where=Locator(element="t"),
    )
    grid = [["Tool", "Cases"], ["Herbie", "28"], ["Rosa", "6"], ["Salsa", "9"], ["Daisy", "31"]]
    (item,) = common.table_extreme(document, table, "the table on slide 2", grid)
    word = "highest" if "highest" in item.question else "lowest"
    expected = ("Daisy", "31") if word == "highest" else ("Rosa", "6")
    assert item.question_type == "table-extreme"
    assert f"“{expected[0]}”" in item.answer[0] and expected[1] in item.answer[1]
    tied = [["Tool", "Cases"], ["A", "5"], ["B", "5"], ["C", "5"]]
    assert common.table_extreme(document, table, "t", tied) == []


def test_chart_comparison_names_the_extreme_category_and_its_value() -> None:
    document = Document(sha256="1" * 64, app="word", format="docx", source="x")
    chart = Artifact(
        id="chart-1",
        category="Chart",
        kind="chart",
        modality="visual",
        where=Locator(element="chart 1 of the document"),
        facts={
            "series": [
                {
                    "name": "Rainfall",
                    "categories": ["Jan", "Feb", "Mar"],
                    "values": [3, 9, 1],
                    "points": [["Jan", "3"], ["Feb", "9"], ["Mar", "1"]],
                }
            ]
        },
    )
    (item,) = common.chart_extremes(document, chart, "the chart")
    assert (
        ("“Feb”" in item.answer[0]) if "highest" in item.question else ("“Mar”" in item.answer[0])
    )


# -- Word ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    made = docx.Document()
    section = made.sections[0]
    section.header.paragraphs[0].text = "Towards a"
    section.header.add_paragraph("working definition")
    made.add_heading("Harvest results", level=1)
    made.add_paragraph(
        "The orchard team measured every tree twice during the unusually generous autumn."
    )
    table = made.add_table(rows=4, cols=2)
    for row, (name, value) in zip(
        table.rows,
        [("Crop", "Tonnes"), ("Apples", "42"), ("Pears", "17"), ("Plums", "8")],
        strict=True,
    ):
        row.cells[0].text, row.cells[1].text = name, value
    made.add_heading("Staffing", level=1)
    indented = made.add_paragraph(
        "Seasonal pickers joined the permanent staff for the six busiest weeks of the year."
    )
    indented.paragraph_format.left_indent = Inches(0.5)
    indented.paragraph_format.first_line_indent = Inches(-0.25)
    path = tmp_path_factory.mktemp("word") / "report.docx"
    made.save(path)
    return path


def test_header_paragraphs_are_joined_as_printed(report: Path, tmp_path: Path) -> None:
    (header,) = of_type(questions(report, tmp_path), "header-text")
    assert "Towards a working definition" in header.answer[0] and " / " not in header.answer[0]


def test_word_table_is_located_by_heading_and_joined_to_it(report: Path, tmp_path: Path) -> None:
    asked = questions(report, tmp_path)
    cells = of_type(asked, "table-cell")
    assert cells and all(
        "the table under the heading “Harvest results”" in c.question for c in cells
    )
    (join,) = of_type(asked, "table-heading")
    assert join.answer == ["That table is under the heading “Harvest results”."]
    (extreme,) = of_type(asked, "table-extreme")
    assert ("“Apples”" if "highest" in extreme.question else "“Plums”") in extreme.answer[0]


def test_indentation_answer_covers_left_and_hanging(report: Path, tmp_path: Path) -> None:
    (indent,) = of_type(questions(report, tmp_path), "layout-indent")
    assert len(indent.answer) == 2
    assert any("hanging" in a for a in indent.answer) and any("left" in a for a in indent.answer)


def test_word_clozes_blank_names_not_words_grammar_supplies(report: Path, tmp_path: Path) -> None:
    words = of_type(questions(report, tmp_path), "text-cloze-word")
    for item in words:  # the report's sentences hold no name: nothing a reader could not guess
        assert item.probe.value[:1].isupper()
    made = docx.Document()
    made.add_paragraph("The orchard team from Halvorsen measured every tree twice this autumn.")
    path = tmp_path / "named.docx"
    made.save(path)
    (named,) = of_type(questions(path, tmp_path), "text-cloze-word")
    assert named.probe.value == "Halvorsen"


def test_struck_through_passages_are_one_list_answer(tmp_path: Path) -> None:
    made = docx.Document()
    for words, struck in (("Budget for", False), ("old figures", True), ("kept here.", False)):
        made.add_paragraph().add_run(words).font.strike = struck
    made.add_paragraph().add_run("Withdrawn proposal").font.strike = True
    path = tmp_path / "struck.docx"
    made.save(path)
    (listed,) = of_type(questions(path, tmp_path), "strikeout-list")
    assert listed.answer == [
        "“old figures” is struck through.",
        "“Withdrawn proposal” is struck through.",
    ]


def test_a_point_comment_is_anchored_to_its_paragraph(tmp_path: Path) -> None:
    asked = questions(CORPUS / "word" / "Comment015.docx", tmp_path)
    (point,) = of_type(asked, "comment-point")
    assert "paragraph that follows “Frame story”" in point.question
    assert point.answer == ["The comment says: “Comment story”."]  # no {PAGE} field mark


# -- Excel --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def ledger(tmp_path_factory: pytest.TempPathFactory) -> Path:
    book = Workbook()
    sheet = book.active
    sheet.title = "Summary"
    sheet["A1"], sheet["B1"] = "Item", "Amount"
    for row, (item, amount) in enumerate([("Rent", 900), ("Food", 300), ("Travel", 120)], 2):
        sheet.cell(row, 1, item)
        sheet.cell(row, 2, amount)
    sheet["B5"] = "=SUM(B2:B4)"
    sheet["A8"] = "Amounts are entered monthly and reconciled against the Fjordbank statement."
    sheet["C2"] = "=Rates!B2"
    red = PatternFill("solid", start_color="FFC7CE", end_color="FFC7CE")
    sheet.conditional_formatting.add(
        "B2:B4", CellIsRule(operator="greaterThan", formula=["500"], fill=red)
    )
    sheet.conditional_formatting.add("B2:B4", FormulaRule(formula=["B2<200"], fill=red))
    rates = book.create_sheet("Rates")
    rates["A2"], rates["B2"] = "Tax", 0.2
    for name in ("Archive 2019", "Archive 2020"):
        book.create_sheet(name).sheet_state = "hidden"
    book.properties.title = "Household ledger"
    book.properties.creator = "Dana Reyes"
    path = tmp_path_factory.mktemp("excel") / "ledger.xlsx"
    book.save(path)
    return path


def test_all_hidden_sheets_are_one_list_answer(ledger: Path, tmp_path: Path) -> None:
    (hidden,) = of_type(questions(ledger, tmp_path), "sheet-visibility")
    assert hidden.question == "Which sheets of this workbook are hidden?"
    assert hidden.answer == [
        "The sheet 'Archive 2019' is hidden.",
        "The sheet 'Archive 2020' is hidden.",
    ]


def test_every_conditional_format_rule_of_a_range_is_in_the_answer(
    ledger: Path, tmp_path: Path
) -> None:
    (rules,) = of_type(questions(ledger, tmp_path), "conditional-format")
    assert rules.question == "Which conditional formatting rules apply to B2:B4 on sheet 'Summary'?"
    assert len(rules.answer) == 2


def test_formulas_are_traced_to_the_cells_they_read(ledger: Path, tmp_path: Path) -> None:
    asked = questions(ledger, tmp_path)
    (cross,) = of_type(asked, "formula-cross-sheet")
    assert (
        cross.question
        == "Which sheet and cell does the formula in cell C2 of sheet 'Summary' read?"
    )
    assert cross.answer == [
        "The formula in cell C2 of sheet 'Summary' reads cell B2 of the sheet 'Rates'."
    ]
    (reads,) = of_type(asked, "formula-precedents")
    assert reads.answer == ["The formula in cell B5 of sheet 'Summary' reads B2:B4."]


def test_workbook_properties_are_extracted_and_asked(ledger: Path, tmp_path: Path) -> None:
    asked = {c.question_type: c for c in questions(ledger, tmp_path)}
    assert asked["metadata-title"].answer == ["The document property “Title” is Household ledger."]
    assert "workbook" in asked["metadata-creator"].question


def test_a_note_on_the_sheet_gives_a_cloze(ledger: Path, tmp_path: Path) -> None:
    (note,) = of_type(questions(ledger, tmp_path), "cell-note-cloze")
    assert "the note in cell A8" in note.question and "____" in note.question
    blank = re.findall(r"“([^”]*)”", note.question)[-1]
    assert blank.replace("____", note.probe.value) == (
        "Amounts are entered monthly and reconciled against the Fjordbank statement."
    )


def test_no_cell_question_asks_by_address_alone(ledger: Path, tmp_path: Path) -> None:
    assert not of_type(questions(ledger, tmp_path), "cell-text")


def test_an_untranslatable_shared_formula_gives_its_cells_no_formula(tmp_path: Path) -> None:
    book = Workbook()
    book.active["A1"], book.active["A2"] = 1, 2
    path = tmp_path / "shared.xlsx"
    book.save(path)
    with zipfile.ZipFile(path) as source:
        parts = {name: source.read(name) for name in source.namelist()}
    sheet = parts["xl/worksheets/sheet1.xml"].decode()
    sheet = sheet.replace(
        '<c r="A1" t="n"><v>1</v></c>',
        '<c r="A1"><f t="shared" ref="A1:A2" si="0">"unterminated</f><v>1</v></c>',
    ).replace('<c r="A2" t="n"><v>2</v></c>', '<c r="A2"><f t="shared" si="0"/><v>2</v></c>')
    assert 'si="0"/>' in sheet
    parts["xl/worksheets/sheet1.xml"] = sheet.encode()
    with zipfile.ZipFile(path, "w") as target:
        for name, data in parts.items():
            target.writestr(name, data)
    with Package(path) as package:
        cells = read_sheet(open_workbook(package), "xl/worksheets/sheet1.xml").cells
    assert cells[(1, 1)].formula == '"unterminated'
    assert cells[(2, 1)].formula is None and cells[(2, 1)].display == "2"


def test_a_pivot_name_used_on_several_sheets_is_qualified(tmp_path: Path) -> None:
    path = CORPUS / "excel" / "TemplateWithTableSourcePivotTables.xlsx"
    asked = [c for c in questions(path, tmp_path) if "'PivotTable3'" in c.question]
    assert asked and all(re.search(r"'PivotTable3' on sheet '[^']+'", c.question) for c in asked)
    assert all(c.notes for c in asked)


# -- PowerPoint ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def deck(tmp_path_factory: pytest.TempPathFactory) -> Path:
    made = Presentation()
    slide = made.slides.add_slide(made.slide_layouts[5])
    slide.shapes.title.text = "Garden plan"
    star = slide.shapes.add_shape(
        MSO_SHAPE.STAR_5_POINT, PptInches(1), PptInches(2), PptInches(2), PptInches(2)
    )
    star.text = "Herb corner"
    star.name = "Herb marker"
    oval = slide.shapes.add_shape(  # over the star's right edge: it is in front of something
        MSO_SHAPE.OVAL, PptInches(2.5), PptInches(2), PptInches(2), PptInches(2)
    )
    oval.text = "Vegetable beds"
    apart = made.slides.add_slide(made.slide_layouts[6])  # two shapes that never overlap
    for left, words in ((1, "North gate"), (5, "South gate")):
        box = apart.shapes.add_shape(
            MSO_SHAPE.RECTANGLE, PptInches(left), PptInches(2), PptInches(2), PptInches(1)
        )
        box.text = words
    path = tmp_path_factory.mktemp("pptx") / "plan.pptx"
    made.save(path)
    return path


def test_shapes_are_named_by_what_the_slide_shows(deck: Path, tmp_path: Path) -> None:
    asked = questions(deck, tmp_path)
    assert asked
    for item in asked:
        assert not re.search(r"\[[^\]]*\d\]", item.question + " ".join(item.answer)), item.question
    front = of_type(asked, "z-order-front")
    assert front and front[0].answer == [
        "The frontmost shape is the shape reading “Vegetable beds”."
    ]
    assert len(front) == 1, "slide 2's shapes do not overlap: none of them is in front of another"
    kinds = {c.question for c in of_type(asked, "shape-type")}
    star = "the shape holding the text “Herb corner” on slide 1"
    assert f"What type of shape (preset geometry) is {star}?" in kinds


def test_explain_shows_how_a_question_was_qualified(tmp_path: Path) -> None:
    path = CORPUS / "excel" / "TemplateWithTableSourcePivotTables.xlsx"
    qualified = next(c for c in questions(path, tmp_path) if c.notes)
    printed: list[str] = []
    _candidate(printed.append, qualified, "kept", None)
    assert any(line.startswith("  - generation: ") for line in printed)


def test_a_merged_slide_table_header_covers_its_columns(tmp_path: Path) -> None:
    made = Presentation()
    slide = made.slides.add_slide(made.slide_layouts[5])
    shape = slide.shapes.add_table(3, 3, PptInches(1), PptInches(2), PptInches(6), PptInches(2))
    table = shape.table
    table.cell(0, 1).merge(table.cell(0, 2))
    for (row, column), text in {
        (0, 0): "Site",
        (0, 1): "Visits",
        (1, 0): "North",
        (1, 1): "12",
        (1, 2): "15",
        (2, 0): "South",
        (2, 1): "7",
        (2, 2): "9",
    }.items():
        table.cell(row, column).text = text
    path = tmp_path / "merged.pptx"
    made.save(path)
    merged = of_type(questions(path, tmp_path), "table-merged-header")
    assert merged and all(len(item.answer) == 2 for item in merged)
    assert all("“Visits”" in item.question for item in merged)


def test_a_value_found_once_on_the_sheet_asks_for_its_label(tmp_path: Path) -> None:
    asked = questions(CORPUS / "excel" / "45544.xlsx", tmp_path)
    (relation,) = of_type(asked, "label-next-to-value")
    assert relation.question == (
        "On sheet 'Profile of Class', which label sits next to the value 32.0%?"
    )
    assert relation.answer == ["The label 'International' sits next to 32.0%."]
