"""Word and Excel questions a strict curator accepts on files the rules were not written from
(issue 30): no giveaways, nothing stated elsewhere, structure read as a reader sees it, one
target per question, metadata of converted files from the original, and regen that says why."""

from __future__ import annotations

import datetime
import re
import shutil
import zipfile
from collections.abc import Callable
from pathlib import Path

import docx
import pytest
from docx.enum.text import WD_COLOR_INDEX
from docx.opc.constants import RELATIONSHIP_TYPE
from docx.oxml import OxmlElement
from docx.oxml.ns import qn
from docx.shared import Inches, Pt
from openpyxl import Workbook
from openpyxl.comments import Comment
from openpyxl.formatting.rule import CellIsRule
from openpyxl.styles import PatternFill
from openpyxl.workbook.defined_name import DefinedName

from extractors import extract_file as extract
from extractors.ooxml.props import original_properties
from fidelity.core.document import Artifact, Candidate, Document
from fidelity.core.locator import Locator
from filters import guessability
from filters.groundedness import check_document
from generators import rules
from generators.draft import candidate
from generators.rules import generate, giveaway

APP = {".docx": "word", ".xlsx": "excel"}


def questions(path: Path, tmp_path: Path) -> list[Candidate]:
    document = Document(
        sha256="5" * 64, app=APP[path.suffix], format=path.suffix[1:], source=str(path)
    )
    return generate(extract(path, document, tmp_path / "media" / path.stem))


def of_type(candidates: list[Candidate], question_type: str) -> list[Candidate]:
    return [c for c in candidates if c.question_type == question_type]


def saved(made: docx.Document | Workbook, tmp_path: Path, name: str) -> Path:
    path = tmp_path / name
    made.save(path)
    return path


# -- guessable without the file ----------------------------------------------------------


def test_default_sheet_names_in_any_language_are_not_asked_by_position(tmp_path: Path) -> None:
    book = Workbook()
    book.active.title = "Budget"
    for name in ("Tabelle2", "Sheet3", "Feuil4", "Лист5"):
        book.create_sheet(name)
    asked = of_type(questions(saved(book, tmp_path, "names.xlsx"), tmp_path), "sheet-order")
    assert [c.probe.value for c in asked] == ["Budget"]
    assert all(giveaway.default_sheet_name(n) for n in ("Hoja2", "Foglio3", "Arkusz1"))


def test_sheet_ordinals_count_the_visible_tabs_only(tmp_path: Path) -> None:
    book = Workbook()
    book.active.title = "Inputs"
    book.create_sheet("Lookup").sheet_state = "hidden"
    book.create_sheet("Results")
    asked = {
        c.probe.value: c
        for c in of_type(questions(saved(book, tmp_path, "tabs.xlsx"), tmp_path), "sheet-order")
    }
    assert set(asked) == {"Inputs", "Results"}  # the hidden sheet has no place among the tabs
    assert "second sheet" in asked["Results"].question
    assert "visible tabs" in asked["Results"].question


def test_headings_at_their_built_in_size_are_not_asked(corpus: Path, tmp_path: Path) -> None:
    made = docx.Document()  # python-docx's template: Heading 1 is 14 pt, Heading 2 13 pt
    made.add_heading("Scope of the survey", level=1)
    made.add_heading("Field methods", level=2)
    styled = made.add_heading("Regional findings", level=1)
    styled.runs[0].font.size = Pt(22)
    path = saved(made, tmp_path, "headings.docx")
    sizes = [c.probe.value for c in of_type(questions(path, tmp_path), "font-size")]
    assert sizes == ["22 pt"]
    complex01 = questions(corpus / "word" / "Complex01.docx", tmp_path)
    assert not of_type(complex01, "font-size")  # 16 pt Heading 1, 13 pt Heading 2: built in


def test_the_usual_first_line_indent_is_not_asked(tmp_path: Path) -> None:
    made = docx.Document()
    usual = made.add_paragraph("Paragraphs of this report open with the customary indent.")
    usual.paragraph_format.first_line_indent = Inches(0.5)
    both = made.add_paragraph("This quotation sits further in from the margin than the rest.")
    both.paragraph_format.left_indent = Inches(1)
    both.paragraph_format.first_line_indent = Inches(0.5)
    indents = of_type(questions(saved(made, tmp_path, "indent.docx"), tmp_path), "layout-indent")
    assert [c.answer for c in indents] == [
        [
            "The paragraph is indented 1.00 in (left).",
            "The paragraph is indented 0.50 in (first-line).",
        ]
    ]


def test_sum_and_count_are_not_asked_as_a_pivots_aggregation(corpus: Path, tmp_path: Path) -> None:
    asked = questions(corpus / "excel" / "QuarterlySales.xlsx", tmp_path)
    assert not of_type(asked, "pivot-aggregation")  # Sum of Amount: what Excel picks itself
    assert of_type(asked, "pivot-row-fields")


def test_an_equation_from_words_gallery_is_not_asked(corpus: Path, tmp_path: Path) -> None:
    asked = questions(corpus / "word" / "equations.docx", tmp_path)
    assert not of_type(asked, "equation-content")  # the binomial theorem
    assert rules.word.built_in_equation(r"x = \frac{- b \pm \sqrt{b^{2} - 4ac}}{2a}")
    assert not rules.word.built_in_equation(r"E_{k} = \frac{1}{2}mv^{2} + U_{0}")


def test_text_that_names_itself_is_not_asked(corpus: Path, tmp_path: Path) -> None:
    asked = questions(corpus / "word" / "Test07.docx", tmp_path)
    for kind in ("header-text", "footer-text", "endnote-text", "footnote-text"):
        assert not of_type(asked, kind), kind  # "This is the header.", "This is the endnote."
    assert giveaway.names_itself("FOOTER GOES HERE", "footer")
    assert giveaway.names_itself("First page header", "header")
    assert not giveaway.names_itself("Notice of Privacy Practices (Revised 5/5/2017)", "header")
    assert not giveaway.names_itself("Note that the Perihelion of Pluto is closer", "footnote")


def test_a_cell_reading_its_own_address_is_not_asked(tmp_path: Path) -> None:
    book = Workbook()
    sheet = book.active
    sheet["A1"], sheet["B1"] = "Reference:", "B1"
    sheet["A2"], sheet["B2"] = "Owner:", "Dana Reyes"
    asked = of_type(questions(saved(book, tmp_path, "self.xlsx"), tmp_path), "labelled-value")
    assert [c.probe.value for c in asked] == ["Dana Reyes"]


def test_a_link_whose_text_names_its_address_is_not_asked(tmp_path: Path) -> None:
    book = Workbook()
    sheet = book.active
    sheet["A1"], sheet["A1"].hyperlink = "Apache POI", "http://poi.apache.org/"
    sheet["A2"], sheet["A2"].hyperlink = "Release notes", "http://poi.apache.org/changes.html"
    asked = of_type(questions(saved(book, tmp_path, "links.xlsx"), tmp_path), "hyperlink-target")
    assert [c.probe.value for c in asked] == ["http://poi.apache.org/changes.html"]
    assert not giveaway.link_names_target(
        "NASA’s website", "http://solarsystem.nasa.gov/planets/profile"
    )


def test_clozes_leave_filler_and_words_the_next_paragraph_repeats(tmp_path: Path) -> None:
    made = docx.Document()
    made.add_paragraph("Lorem ipsum dolor sit amet, consectetuer adipiscing Elit, sed nonummy.")
    made.add_paragraph("The harbour authority approved the Kellerman breakwater after the storm.")
    made.add_paragraph("Work on the Kellerman breakwater begins in spring, tides permitting.")
    made.add_paragraph("The pilot boats from Ostrava were repainted before the summer season.")
    asked = of_type(questions(saved(made, tmp_path, "cloze.docx"), tmp_path), "text-cloze-word")
    assert asked and all("Lorem" not in c.question for c in asked)
    assert all(c.probe.value != "Kellerman" for c in asked)  # the next paragraph states it
    forced = docx.Document()
    forced.add_paragraph("Sometimes the inspectors from Brightwater exclusively examine pumps.")
    forced.add_paragraph("FOR THE LIMITED WARRANTIES PERTAINING TO YOUR PARTICULAR Jurisdiction.")
    again = questions(saved(forced, tmp_path, "forced.docx"), tmp_path)
    blanks = {c.probe.value for c in of_type(again, "text-cloze-word")}
    assert blanks == {"Brightwater"}  # a name; not a stock word, an adverb or shouted text


# -- stated elsewhere in the file ----------------------------------------------------------


def test_properties_that_repeat_another_are_not_asked(tmp_path: Path) -> None:
    made = docx.Document()
    made.add_paragraph("Minutes of the board meeting held in the town hall.")
    when = datetime.datetime(2021, 3, 4, 5, 6, 7)
    made.core_properties.author = made.core_properties.last_modified_by = "Dana Reyes"
    made.core_properties.created = made.core_properties.modified = when
    types = {c.question_type for c in questions(saved(made, tmp_path, "props.docx"), tmp_path)}
    assert {"metadata-creator", "metadata-created"} <= types
    assert not types & {"metadata-lastModifiedBy", "metadata-modified"}
    made.core_properties.modified = datetime.datetime(2022, 1, 2, 3, 4, 5)
    made.core_properties.last_modified_by = "Lee Park"
    later = {c.question_type for c in questions(saved(made, tmp_path, "later.docx"), tmp_path)}
    assert {"metadata-lastModifiedBy", "metadata-modified"} <= later


def test_who_wrote_a_comment_is_asked_only_when_the_file_has_two_authors(tmp_path: Path) -> None:
    book = Workbook()
    sheet = book.active
    sheet["A1"].comment = Comment("Check the freight rate", "Kim")
    sheet["A2"].comment = Comment("Rate agreed with the carrier", "Kim")
    one = questions(saved(book, tmp_path, "one.xlsx"), tmp_path)
    assert of_type(one, "comment-text") and not of_type(one, "comment-author")
    sheet["A3"].comment = Comment("Ask finance about the deposit", "Lee")
    two = questions(saved(book, tmp_path, "two.xlsx"), tmp_path)
    assert len(of_type(two, "comment-author")) == 3


def test_a_note_the_body_cites_word_for_word_is_not_asked() -> None:
    document = Document(sha256="6" * 64, app="word", format="docx", source="x.docx")
    note = "Figures are rounded to the nearest thousand dollars."
    document.artifacts = [
        Artifact(
            id="text-1",
            category="Text",
            kind="text",
            modality="text",
            where=Locator(element="text 1"),
            text=f"All amounts in the tables follow one rule. {note}",
        ),
        Artifact(
            id="fn-1",
            category="Footnote",
            kind="footnote",
            modality="element",
            where=Locator(element="footnote 1"),
            facts={"note_kind": "footnote", "text": note, "number": 1, "passage": "amounts"},
        ),
    ]
    assert not rules.word.RULES["footnote"](document, document.artifacts[1])


# -- structure as a reader sees it ----------------------------------------------------------


def test_a_header_row_repeated_down_a_range_is_never_an_answer(tmp_path: Path) -> None:
    book = Workbook()
    sheet = book.active
    rows = [
        ["Item", "Qty", "Price"],
        ["Bolts", 40, 0.25],
        ["Nuts", 55, 0.1],
        ["Item", "Qty", "Price"],
        ["Washers", 80, 0.05],
        ["Rivets", 25, 0.4],
    ]
    for row in rows:
        sheet.append(row)
    asked = questions(saved(book, tmp_path, "repeat.xlsx"), tmp_path)
    lookups = of_type(asked, "cell-lookup")
    assert lookups
    assert all(c.probe.value not in ("Item", "Qty", "Price") for c in lookups)
    assert all("table-like" not in c.question for c in asked)


def test_a_glossarys_first_entry_is_not_taken_for_headers(tmp_path: Path) -> None:
    made = docx.Document()
    table = made.add_table(rows=3, cols=3)
    entries = [
        ("Aquifer", "A body of rock or sediment that holds and yields groundwater", "Hydrology"),
        ("Berm", "A raised bank of earth separating two areas of land", "Earthworks"),
        ("Culvert", "A tunnel carrying a stream under a road or railway", "Drainage"),
    ]
    for row, entry in zip(table.rows, entries, strict=True):
        for cell, text in zip(row.cells, entry, strict=True):
            cell.text = text
    asked = questions(saved(made, tmp_path, "glossary.docx"), tmp_path)
    assert not [c for c in asked if c.question_type.startswith("table-cell")]


def _field(paragraph, instruction: str, cached: str) -> None:
    field = OxmlElement("w:fldSimple")
    field.set(qn("w:instr"), instruction)
    run = OxmlElement("w:r")
    text = OxmlElement("w:t")
    text.text = cached
    run.append(text)
    field.append(run)
    paragraph._p.append(field)


def test_a_date_field_is_read_as_the_field_not_its_cached_date(tmp_path: Path) -> None:
    made = docx.Document()
    made.add_paragraph("Quarterly maintenance schedule for the pumping stations.")
    header = made.sections[0].header.paragraphs[0]
    header.add_run("Printed on ")
    _field(header, ' DATE \\@ "d MMMM yyyy" ', "4 March 2019")
    asked = questions(saved(made, tmp_path, "date.docx"), tmp_path)
    texts = [c.probe.value for c in of_type(asked, "header-text")]
    assert texts == ["Printed on (date)"]


def test_formatting_cut_inside_a_word_is_not_quoted(tmp_path: Path) -> None:
    made = docx.Document()
    paragraph = made.add_paragraph()
    first = paragraph.add_run("R")
    first.font.size = Pt(20)
    rest = paragraph.add_run("eduction scenario for the eastern district")
    rest.italic = True
    paragraph.add_run(" is described in the annex.")
    path = saved(made, tmp_path, "cut.docx")
    subjects = [c.probe.value for c in questions(path, tmp_path)] + [
        " ".join(c.question.split()) for c in questions(path, tmp_path)
    ]
    assert not any("eduction" in text and "Reduction" not in text for text in subjects)


def test_text_moved_away_by_a_tracked_change_is_not_quoted(tmp_path: Path) -> None:
    made = docx.Document()
    made.add_paragraph("Sample preparation follows the method of the pharmacopoeia.")
    paragraph = made.add_paragraph()
    moved = OxmlElement("w:moveFrom")
    moved.set(qn("w:id"), "1")
    moved.set(qn("w:author"), "Author")
    run = OxmlElement("w:r")
    properties = OxmlElement("w:rPr")
    properties.append(OxmlElement("w:b"))
    run.append(properties)
    text = OxmlElement("w:t")
    text.text = "Order of injectio"
    run.append(text)
    moved.append(run)
    paragraph._p.append(moved)  # the paragraph's only text: moved away, nothing is left
    made.add_paragraph("Inject the blank first, then the standards.")
    asked = questions(saved(made, tmp_path, "moved.docx"), tmp_path)
    assert not any("injectio" in c.question for c in asked)


def test_a_list_paragraph_is_asked_with_both_indents_or_not_at_all(tmp_path: Path) -> None:
    made = docx.Document()
    left_only = made.add_paragraph("First step of the procedure for the valves", "List Number")
    left_only.paragraph_format.left_indent = Inches(0.75)
    both = made.add_paragraph("Second step of the procedure for the pumps", "List Number")
    both.paragraph_format.left_indent = Inches(0.75)
    both.paragraph_format.first_line_indent = Inches(-0.25)
    asked = of_type(questions(saved(made, tmp_path, "list.docx"), tmp_path), "layout-indent")
    assert [c.answer for c in asked] == [
        [
            "The paragraph is indented 0.75 in (left).",
            "The paragraph is set with a 0.25 in hanging indent.",
        ]
    ]


def test_the_default_footer_is_named_by_the_pages_that_show_it(tmp_path: Path) -> None:
    made = docx.Document()
    made.add_paragraph("Annual report of the water board for the year.")
    section = made.sections[0]
    section.different_first_page_header_footer = True
    section.footer.paragraphs[0].text = "Water Board annual report 2023"
    section.first_page_footer.paragraphs[0].text = "Published by the Water Board secretariat"
    asked = {
        c.probe.value: c.question
        for c in of_type(questions(saved(made, tmp_path, "footers.docx"), tmp_path), "footer-text")
    }
    assert asked["Water Board annual report 2023"].endswith("on the pages after the first?")
    assert "first-page footer" in asked["Published by the Water Board secretariat"]


def test_nested_tables_are_numbered_as_their_locators_number_them(tmp_path: Path) -> None:
    made = docx.Document()
    outer = made.add_table(rows=3, cols=2)
    for row, (label, value) in zip(
        outer.rows, [("Site", "Depot"), ("Manager", "Ana Silva"), ("Shifts", "")], strict=True
    ):
        row.cells[0].text, row.cells[1].text = label, value
    inner = outer.rows[2].cells[1].add_table(rows=2, cols=2)
    for row, (label, value) in zip(
        inner.rows, [("Early", "06:00"), ("Late", "14:00")], strict=True
    ):
        row.cells[0].text, row.cells[1].text = label, value
    asked = [
        c
        for c in questions(saved(made, tmp_path, "nested.docx"), tmp_path)
        if c.question.startswith("In table")
    ]
    assert asked
    document = Document(sha256="5" * 64, app="word", format="docx", source="nested.docx")
    extracted = extract(tmp_path / "nested.docx", document, tmp_path / "media" / "n")
    numbers = {a.id: a.where.table for a in extracted.artifacts if a.kind == "table"}
    for item in asked:
        number = item.question.split()[2]
        assert numbers[item.artifact_id] == int(number)


# -- one target per question ---------------------------------------------------------------


def test_a_highlighted_phrase_seen_elsewhere_is_asked_with_its_paragraph(tmp_path: Path) -> None:
    made = docx.Document()
    made.add_paragraph("The budget for the new library was approved in March.")
    paragraph = made.add_paragraph("Members asked whether the ")
    marked = paragraph.add_run("budget")
    marked.font.highlight_color = WD_COLOR_INDEX.BRIGHT_GREEN
    paragraph.add_run(" covers the furniture as well as the building.")
    asked = of_type(questions(saved(made, tmp_path, "mark.docx"), tmp_path), "highlight-colour")
    assert len(asked) == 1 and "paragraph beginning “Members asked" in asked[0].question


def test_a_paragraph_start_shared_by_two_paragraphs_is_no_anchor(tmp_path: Path) -> None:
    made = docx.Document()
    opening = "Under the terms of the agreement signed by both parties in the spring, "
    made.add_paragraph(opening + "the tenant pays the rates.")
    paragraph = made.add_paragraph(opening + "the landlord ")
    paragraph.add_run("repairs the roof").font.strike = True
    paragraph.add_run(" every five years.")
    asked = questions(saved(made, tmp_path, "starts.docx"), tmp_path)
    assert not of_type(asked, "strikeout-text")
    assert of_type(asked, "strikeout-list")  # the list question names no paragraph


def test_the_same_question_is_asked_once() -> None:
    document = Document(sha256="7" * 64, app="excel", format="xlsx", source="x.xlsx")
    artifacts = [
        Artifact(
            id=name,
            category="Other",
            kind="comment",
            modality="element",
            where=Locator(element=name),
        )
        for name in ("a", "b", "c")
    ]
    same = [
        candidate(document, artifacts[0], "t", "Which rate applies?", ["5%."], value="5%"),
        candidate(document, artifacts[1], "t", "Which rate applies?", ["5%."], value="5%"),
        candidate(document, artifacts[2], "t", "Which region?", ["North."], value="North"),
        candidate(document, artifacts[2], "t", "Which region?", ["South."], value="South"),
    ]
    assert [c.question for c in rules._asked_once(same)] == ["Which rate applies?"]


# -- low value, wrong facts, false drops ---------------------------------------------------


def test_print_areas_and_custom_view_names_are_not_asked(tmp_path: Path) -> None:
    book = Workbook()
    sheet = book.active
    sheet.title = "Plan"
    sheet["A1"] = "Budget"
    for name in ("Z_6E6A1B2C_3D4E_5F60_7182_93A4B5C6D7E8_.wvu.PrintArea", "Print_Area", "Totals"):
        book.defined_names[name] = DefinedName(name, attr_text="Plan!$A$1:$B$4")
    asked = of_type(questions(saved(book, tmp_path, "names.xlsx"), tmp_path), "defined-name")
    assert [c.question for c in asked] == ["What does the defined name 'Totals' refer to?"]


def test_a_rule_range_running_to_the_last_row_is_named_as_columns(tmp_path: Path) -> None:
    book = Workbook()
    sheet = book.active
    sheet.title = "Stock"
    sheet.append(["Item", "Level"])
    red = PatternFill(start_color="FFC7CE", end_color="FFC7CE", fill_type="solid")
    sheet.conditional_formatting.add(
        "B2:B1048576", CellIsRule(operator="lessThan", formula=["5"], fill=red)
    )
    asked = of_type(questions(saved(book, tmp_path, "cf.xlsx"), tmp_path), "conditional-format")
    assert len(asked) == 1 and "column B from row 2 down" in asked[0].question
    assert "1048576" not in asked[0].question


def test_a_converted_files_properties_come_from_the_original(corpus: Path) -> None:
    original = corpus / "variants" / "50939.xls"
    document = Document(
        sha256="8" * 64, app="excel", format="xlsx", source=str(original), converted_from="xls"
    )

    def prop(key: str, value: str) -> Artifact:
        return Artifact(
            id=f"meta-core-{key}",
            category="Other",
            kind="metadata",
            modality="element",
            where=Locator(element=key),
            facts={"source": "core", "key": key, "label": key, "value": value},
        )

    document.artifacts = [
        prop("created", "2031-01-01T00:00:00Z"),  # the conversion's own time
        prop("creator", "LibreOffice"),
        prop("description", "written by the converter"),
    ]
    original_properties(document, category="Other")
    values = {a.facts["key"]: a.facts["value"] for a in document.artifacts}
    assert values == {  # the converter's description is gone, the original's title is back
        "created": "2003-07-11T10:24:06Z",
        "creator": "Gibergues Christelle (CM-DI/ESR4) *",
        "title": "Checklist template",
        "lastModifiedBy": "wsm2hi",
        "modified": "2011-03-16T14:52:04Z",
        "Company": "Robert Bosch GmbH",
    }
    assert {a.category for a in document.artifacts} == {"Other"}


@pytest.mark.parametrize("formula", ["=ERROR.TYPE(#REF!)", "=#REF!*3"])
def test_a_formula_holding_an_error_value_is_not_a_broken_name(
    formula: str, tmp_path: Path
) -> None:
    book = Workbook()
    sheet = book.active
    sheet["A1"], sheet["B1"] = "Check", formula
    path = saved(book, tmp_path, "errors.xlsx")
    document = Document(sha256="9" * 64, app="excel", format="xlsx", source=str(path))
    document = extract(path, document, tmp_path / "media" / "e")
    asked = of_type(generate(document), "formula-text")
    assert [c.probe.value for c in asked] == [formula]
    assert guessability.check(document, asked[0]).verdict == "pass"
    broken = asked[0].model_copy(update={"answer": ["'Total' refers to Plan!#REF!."]})
    assert guessability.check(document, broken).verdict == "fail"


# -- regeneration ------------------------------------------------------------------------


def test_a_table_whose_header_covers_part_of_its_columns_is_not_asked_by_row_place(
    tmp_path: Path,
) -> None:
    made = docx.Document()
    table = made.add_table(rows=4, cols=3)
    grid = [
        ("Year of Birth", "", ""),
        ("", "Manager", "Nurse"),
        ("1948", "2", "5"),
        ("1963", "4", "7"),
    ]
    for row, cells in zip(table.rows, grid, strict=True):
        for cell, text in zip(row.cells, cells, strict=True):
            cell.text = text
    asked = questions(saved(made, tmp_path, "partial.docx"), tmp_path)
    assert not of_type(asked, "table-cell-position")


def test_tables_without_row_labels_are_asked_by_place_and_regen_says_why_others_are_not(
    corpus: Path, tmp_path: Path, extracted: Callable[[Path], Document]
) -> None:
    shutil.copy(corpus / "word" / "bug57031.docx", tmp_path / "sas.docx")
    document = extracted(corpus / "word" / "bug57031.docx")
    tables = {a.id: a for a in document.artifacts if a.kind == "table"}
    asked = [c for c in generate(document, widen=50) if c.question_type == "table-cell-position"]
    assert any(c.artifact_id == "tbl-8" and "“Mean”" in c.question for c in asked)
    assert "one-column" in rules.unasked(document, tables["tbl-2"])
    assert "one row" in rules.unasked(document, tables["tbl-6"])
    memo = extracted(corpus / "word" / "memo.docx")
    empty = next(a for a in memo.artifacts if a.kind == "table" and a.id == "tbl-2")
    assert "every cell empty" in rules.unasked(memo, empty)


def test_a_charts_extremes_are_not_asked_when_its_cells_state_them(
    corpus: Path, tmp_path: Path
) -> None:
    asked = questions(corpus / "excel" / "xlsx_01.xlsx", tmp_path)
    assert of_type(asked, "chart-title") and not of_type(asked, "chart-extreme")


def test_a_cell_that_recalculates_today_is_not_asked_by_its_cached_value(tmp_path: Path) -> None:
    book = Workbook()
    sheet = book.active
    for row in (
        ["Task", "Owner", "Checked"],
        ["Pumps", "Dana", "=TODAY()"],
        ["Valves", "Lee", "=TODAY()"],
        ["Filters", "Kim", "=TODAY()"],
    ):
        sheet.append(row)
    path = saved(book, tmp_path, "today.xlsx")
    with zipfile.ZipFile(path) as package:
        parts = {name: package.read(name) for name in package.namelist()}
    sheet_xml = parts["xl/worksheets/sheet1.xml"].decode()
    parts["xl/worksheets/sheet1.xml"] = re.sub(  # the value Excel cached when it last saved
        r"<f>TODAY\(\)</f><v\s*/?>(</v>)?", "<f>TODAY()</f><v>43831</v>", sheet_xml
    ).encode()
    with zipfile.ZipFile(path, "w") as package:
        for name, data in parts.items():
            package.writestr(name, data)
    asked = of_type(questions(path, tmp_path), "cell-lookup")
    assert asked and all(c.probe.value in ("Dana", "Lee", "Kim") for c in asked)


def test_a_comment_is_also_asked_in_reverse_where_its_text_is_one_of_a_kind(
    tmp_path: Path,
) -> None:
    book = Workbook()
    sheet = book.active
    sheet.title = "Costs"
    sheet["B4"].comment = Comment("Freight rate agreed with the carrier in May", "Kim")
    sheet["B5"].comment = Comment("Check", "Lee")
    # "Check" is too short to name the comment
    asked = of_type(questions(saved(book, tmp_path, "reverse.xlsx"), tmp_path), "comment-cell")
    assert [c.answer for c in asked] == [["The comment is attached to cell B4."]]
    made = docx.Document()
    paragraph = made.add_paragraph("The pumping station needs ")
    marked = paragraph.add_run("a new gearbox")
    paragraph.add_run(" before the winter season starts.")
    made.add_comment(marked, text="Quote from the supplier is still pending", author="Kim")
    other = made.add_paragraph("Staff rota for the depot is attached below.")
    made.add_comment(other.runs[0], text="This is a comment.", author="Lee")
    words = of_type(questions(saved(made, tmp_path, "reverse.docx"), tmp_path), "comment-anchor")
    assert [c.probe.value for c in words] == ["a new gearbox"]


def test_a_span_whose_words_stand_elsewhere_is_asked_with_its_paragraph(tmp_path: Path) -> None:
    made = docx.Document()
    made.add_paragraph("The depot opens at six and the yard closes at ten.")
    paragraph = made.add_paragraph("Drivers report to ")
    paragraph.add_run("The").bold = True
    paragraph.add_run(" gatehouse before every shift starts, without exception.")
    own = made.add_paragraph("Loading bays are assigned by the ")
    own.add_run("yard supervisor on duty").italic = True
    own.add_run(" each morning.")
    toc = made.add_paragraph()
    toc.add_run("2.1 Safety rules of the depot 14").italic = True
    spans = of_type(questions(saved(made, tmp_path, "spans.docx"), tmp_path), "font-span")
    asked = {c.probe.anchor[0]: c.question for c in spans}
    assert "paragraph beginning “Drivers report to" in asked["The"]
    assert "paragraph beginning" not in asked["yard supervisor on duty"]
    assert "2.1 Safety rules of the depot 14" not in asked  # a table-of-contents line


def test_a_span_in_a_default_typeface_and_machine_written_properties_are_not_asked(
    tmp_path: Path,
) -> None:
    made = docx.Document()
    made.styles["Normal"].font.name = "Georgia"
    paragraph = made.add_paragraph("Service levels are reviewed by the ")
    paragraph.add_run("regional operations board").font.name = "Calibri"
    paragraph.add_run(" and by the ")
    paragraph.add_run("works council").font.name = "Garamond"
    paragraph.add_run(" every spring.")
    asked = of_type(questions(saved(made, tmp_path, "faces.docx"), tmp_path), "font-span")
    assert [c.probe.value for c in asked] == ["Garamond"]
    assert giveaway.names_itself("This is an endnote at the end of the document.", "endnote")
    assert rules.restated.MACHINE_VALUE.match('<Settings><Formatting Value="null" /></Settings>')


def test_text_that_states_its_own_formatting_or_kind_is_not_asked(tmp_path: Path) -> None:
    made = docx.Document()
    paragraph = made.add_paragraph("Links in this guide look like the ")
    run = paragraph.add_run("italic and bold hyperlink")
    run.bold = run.italic = True
    paragraph.add_run(" shown here, and ")
    paragraph.add_run("station names").bold = True
    paragraph.add_run(" stand out in the timetable.")
    asked = of_type(questions(saved(made, tmp_path, "own.docx"), tmp_path), "font-span")
    assert [c.probe.anchor[0] for c in asked] == ["station names"]
    assert giveaway.names_itself("TextFrame Story", "textbox")


def test_stand_in_cells_addresses_contents_lines_and_near_black_are_not_asked(
    tmp_path: Path,
) -> None:
    made = docx.Document()
    made.add_heading("Contents", level=1)
    made.add_paragraph("2.1 Safety rules of the depot 14").paragraph_format.left_indent = Inches(
        0.25
    )
    made.add_paragraph(
        "The complete specification is published at https://standards.example.org/pumps today."
    )
    paragraph = made.add_paragraph("Valves are serviced by the ")
    dark = paragraph.add_run("maintenance contractor")
    dark.font.color.rgb = docx.shared.RGBColor(0, 0, 0x0A)
    paragraph.add_run(" twice a year, in spring and in autumn.")
    table = made.add_table(rows=3, cols=3)
    for r, row in enumerate(table.rows, start=1):
        for c, cell in enumerate(row.cells, start=1):
            cell.text = f"Row {r} Col {c}"
    asked = questions(saved(made, tmp_path, "stand-ins.docx"), tmp_path)
    assert not [c for c in asked if c.category == "Table"]
    assert not of_type(asked, "layout-indent")
    clozes = [c for c in asked if c.question_type.startswith("text-cloze")]
    assert not [c for c in clozes if "standards" in c.question or "“Contents”" in c.question]
    assert not [c for c in asked if c.probe.value == "#00000A"]


@pytest.mark.parametrize(
    ("original", "expected"),
    [
        ("variants/bug58516.ppt", "1999-03-26T12:36:13Z"),  # the .ppt's own creation time
        ("bad/testODTnotaZipFile.odt", None),  # an original that cannot be read: not asked
    ],
)
def test_a_converted_decks_properties_come_from_the_original(
    corpus: Path, tmp_path: Path, original: str, expected: str | None
) -> None:
    """The PowerPoint extractor replaces a converted deck's conversion-time properties with the
    original's (a blind audit found a .ppt's creation date taken from the conversion)."""
    document = Document(
        sha256="9" * 64,
        app="powerpoint",
        format="pptx",
        source=str(corpus / original),
        converted_from="ppt",
    )
    document = extract(corpus / "powerpoint" / "bug60993.pptx", document, tmp_path / "media")
    created = [a.facts["value"] for a in document.artifacts if a.facts.get("key") == "created"]
    assert created == ([expected] if expected else [])


def test_what_a_conversion_writes_is_not_asked_of_a_converted_file(tmp_path: Path) -> None:
    made = docx.Document()
    made.add_heading("Harbour inspection notes", 1)
    for start, span, font, end in (
        ("The northern pier has ", "three cracked pilings", "DejaVu Sans", " to replace soon."),
        ("The southern pier was painted ", "marine blue enamel", "Georgia", " last summer."),
    ):
        paragraph = made.add_paragraph(start)
        paragraph.add_run(span).font.name = font
        paragraph.add_run(end)
    path = saved(made, tmp_path, "harbour.docx")

    def verdicts(converted_from: str | None) -> dict[str, str]:
        document = Document(
            sha256="6" * 64,
            app="word",
            format="docx",
            source=str(path),
            converted_from=converted_from,
        )
        document = extract(path, document, tmp_path / "media" / str(converted_from))
        return {
            c.probe.value: guessability.check(document, c).verdict
            for c in generate(document)
            if c.question_type in ("font-body", "font-span")
        }

    converted = verdicts("doc")
    assert converted["DejaVu Sans"] == "fail" and converted["Georgia"] == "pass"
    body = [value for value in converted if value not in ("DejaVu Sans", "Georgia")]
    assert body and all(converted[value] == "fail" for value in body)  # the default style
    assert set(verdicts(None).values()) == {"pass"}


def test_a_formula_reaching_another_workbook_by_link_index_is_not_asked(tmp_path: Path) -> None:
    book = Workbook()
    sheet = book.active
    sheet["A1"], sheet["B1"] = "Rate", "=[1]Rates!B2*1.2"
    sheet["A2"], sheet["B2"] = "Local", "=B1*2"
    path = saved(book, tmp_path, "linked.xlsx")
    document = Document(sha256="7" * 64, app="excel", format="xlsx", source=str(path))
    document = extract(path, document, tmp_path / "media" / "linked")
    verdicts = {
        (c.question_type, c.probe.value): guessability.check(document, c).verdict
        for c in generate(document)
        if c.question_type.startswith("formula")
    }
    assert verdicts == {
        ("formula-text", "=[1]Rates!B2*1.2"): "fail",  # not traced into the other workbook
        ("formula-precedents", "B1"): "pass",
    }


def test_a_question_another_answer_states_in_full_is_not_asked_too(tmp_path: Path) -> None:
    book = Workbook()
    book.active.title = "Summary"
    book.active["A1"], book.active["B1"] = "Total rent", "='Rent ledger'!C9"
    ledger = book.create_sheet("Rent ledger")
    ledger["C9"] = 1250
    asked = {
        c.question_type: c.probe.value
        for c in generate(extract_saved(book, tmp_path, "restated.xlsx"))
        if c.question_type.startswith("formula")
    }
    assert asked == {"formula-cross-sheet": "Rent ledger"}


def extract_saved(book: Workbook, tmp_path: Path, name: str) -> Document:
    path = saved(book, tmp_path, name)
    document = Document(sha256="8" * 64, app="excel", format="xlsx", source=str(path))
    return extract(path, document, tmp_path / "media" / path.stem)


def test_a_number_its_sentence_or_neighbours_give_is_not_blanked(tmp_path: Path) -> None:
    made = docx.Document()
    made.add_heading("Licence terms", 1)
    for text in (
        "7.10 The server product line and its client licences are covered in full here.",
        "You may make no more than fifty (50) additional copies of the software for backup.",
        "Hard drives located on the premises are covered by Section 1.5 of this agreement.",
        "Use of the product is solely as defined in Section 1.5 above for every licensed seat.",
    ):
        made.add_paragraph(text)
    asked = questions(saved(made, tmp_path, "terms.docx"), tmp_path)
    assert not {c.probe.value for c in asked} & {"7.10", "50", "1.5"}
    alone = docx.Document()
    alone.add_paragraph("The pier was inspected by 14 divers during the spring harbour survey.")
    asked = questions(saved(alone, tmp_path, "survey.docx"), tmp_path)
    assert "14" in {c.probe.value for c in of_type(asked, "text-cloze-number")}
    document = Document(sha256="5" * 64, app="word", format="docx", source="survey.docx")
    (note,) = of_type(asked, "metadata-description")  # python-docx's "generated by python-docx"
    assert guessability.check(document, note).verdict == "fail"


def _run(paragraph, text: str = "", field: str = "", instruction: str = "", italic: bool = False):
    """A run of text, a field character (begin, separate, end) or a field instruction."""
    run = paragraph.add_run(text)
    if italic:
        run.italic = True
    if field:
        char = OxmlElement("w:fldChar")
        char.set(qn("w:fldCharType"), field)
        run._r.append(char)
    if instruction:
        code = OxmlElement("w:instrText")
        code.set(qn("xml:space"), "preserve")
        code.text = instruction
        run._r.append(code)
    return run


def test_what_word_generates_or_styles_itself_is_not_asked_as_formatting(tmp_path: Path) -> None:
    made = docx.Document()
    made.add_paragraph("The harbour survey lists its sources at the end of this report.")
    start = made.add_paragraph()
    for kwargs in ({"field": "begin"}, {"instruction": " BIBLIOGRAPHY "}, {"field": "separate"}):
        _run(start, **kwargs)
    _run(start, "Mattmann, C. (2011). ")
    _run(start, "Tika in Action.", italic=True)
    entry = made.add_paragraph()
    _run(entry, "Zitting, J. (2012). ")
    _run(entry, "Parsing the World.", italic=True)
    _run(entry, field="end")
    for paragraph in (start, entry):
        paragraph.paragraph_format.left_indent = Inches(0.5)
        paragraph.paragraph_format.first_line_indent = Inches(-0.5)
    linked = made.add_paragraph("Read more on the ")
    address = "https://example.org/harbour"
    rel = made.part.relate_to(address, RELATIONSHIP_TYPE.HYPERLINK, is_external=True)
    link = OxmlElement("w:hyperlink")
    link.set(qn("r:id"), rel)
    link_run = _run(linked, "harbour project site")
    link_run.font.underline = True
    link.append(link_run._r)
    linked._p.append(link)
    own = made.add_paragraph("The divers logged ")
    _run(own, "three cracked pilings", italic=True)
    _run(own, " beside the northern pier during the spring survey.")
    own.paragraph_format.left_indent = Inches(0.5)
    own.paragraph_format.first_line_indent = Inches(-0.5)
    asked = questions(saved(made, tmp_path, "sources.docx"), tmp_path)
    spans = [c.question for c in of_type(asked, "font-span")]
    assert spans and all("three cracked pilings" in q for q in spans)
    indents = [c.question for c in of_type(asked, "layout-indent")]
    assert indents and all("The divers logged" in q for q in indents)


def test_a_sub_tables_header_row_heads_the_rows_below_it(tmp_path: Path) -> None:
    book = Workbook()
    sheet = book.active
    rows = [
        ("Household", "Income", "Net worth"),
        ("North farm", 1200, 56000),
        ("South farm", 900, 43000),
        ("Description", "Amount", "Penalty"),
        ("Filed income taxes", 300, 15),
        ("Late registration", 120, 40),
    ]
    for row in rows:
        sheet.append(row)
    path = saved(book, tmp_path, "blocks.xlsx")
    document = Document(sha256="2" * 64, app="excel", format="xlsx", source=str(path))
    document = extract(path, document, tmp_path / "media" / "blocks")
    (block,) = [a for a in document.artifacts if a.kind == "tlr"]
    heads = {item["row_label"]: item["column_header"] for item in block.facts["lookups"]}
    assert heads == {
        "North farm": "Net worth",
        "South farm": "Net worth",
        "Filed income taxes": "Penalty",
        "Late registration": "Penalty",
    }


def test_one_property_value_is_asked_once_per_file(tmp_path: Path) -> None:
    made = docx.Document()
    for number in range(6):
        heading = made.add_heading(f"Harbour district {number + 1} survey", 2)
        heading.runs[0].font.size = Pt(17)
        made.add_paragraph(f"The divers of district {number + 1} logged their dives in spring.")
    asked = questions(saved(made, tmp_path, "sizes.docx"), tmp_path)
    sizes = [c for c in of_type(asked, "font-size") if c.probe.value == "17 pt"]
    assert len(sizes) == 1


def test_tabs_named_by_their_own_place_are_not_asked_by_order(tmp_path: Path) -> None:
    book = Workbook()
    book.active.title = "S1"
    for name in ("S2", "S3", "Budget"):
        book.create_sheet(name)["A1"] = "Rent, food and travel for the household"
    names = {
        c.probe.value
        for c in of_type(questions(saved(book, tmp_path, "s.xlsx"), tmp_path), "sheet-order")
    }
    assert names == {"Budget"}


def test_captions_prompts_and_cut_sentences_are_not_quoted(tmp_path: Path) -> None:
    made = docx.Document()
    made.add_heading("Formal methods", 1)
    for ending in ("", "\t45"):  # the caption, then its line in the list of figures
        caption = made.add_paragraph("Figure 3")
        caption.add_run()._r.append(OxmlElement("w:noBreakHyphen"))
        caption.add_run(f"11: Comparison of real-time and fictitious data{ending}")
        caption.alignment = 0 if ending else 1
    made.add_paragraph("[Type sidebar content. A sidebar is a standalone supplement.]").runs[
        0
    ].font.size = Pt(20)
    made.add_paragraph(
        "Such rigour pays off for safety-critical software, e.g. for aircraft avionics or "
        "medical devices where failures are costly."
    )
    asked = questions(saved(made, tmp_path, "thesis.docx"), tmp_path)
    quoted = " ".join(c.question for c in asked)
    assert "Figure 311" not in quoted  # the non-breaking hyphen is read as the page shows it
    assert not of_type(asked, "layout-alignment")  # the list of figures repeats the caption
    assert "[Type sidebar" not in quoted
    assert "“for aircraft avionics" not in quoted


def test_a_size_every_heading_shares_is_not_asked(tmp_path: Path) -> None:
    made = docx.Document()
    for number in range(4):
        made.add_heading(f"Harbour district {number + 1}", 1).runs[0].font.size = Pt(11)
        made.add_paragraph(f"The divers of district {number + 1} logged their spring dives.")
    path = saved(made, tmp_path, "headings.docx")
    document = Document(sha256="5" * 64, app="word", format="docx", source=str(path))
    document = extract(path, document, tmp_path / "media" / "headings")
    sizes = [c for c in of_type(generate(document), "font-size") if c.probe.value == "11 pt"]
    assert sizes and all(guessability.check(document, c).verdict == "fail" for c in sizes)


def test_a_formula_a_note_describes_is_not_asked_to_be_traced(tmp_path: Path) -> None:
    book = Workbook()
    sheet = book.active
    sheet["A2"], sheet["A3"], sheet["A4"] = 5, 7, "=SUM(A2:A3)"
    sheet["B4"] = "There is a formula in A4 to sum the values in A2:A3."
    path = saved(book, tmp_path, "described.xlsx")
    document = Document(sha256="4" * 64, app="excel", format="xlsx", source=str(path))
    document = extract(path, document, tmp_path / "media" / "described")
    traced = [c for c in generate(document) if c.question_type == "formula-precedents"]
    (outcome,) = check_document(document, traced)
    assert outcome.candidate.probe.value == "A2:A3" and outcome.status == "rejected"
    assert "B4" in outcome.reason or "There is a formula" in " ".join(
        d.answered for d, _ in outcome.decisions
    )


def test_a_comment_naming_its_cells_content_is_not_asked_where_it_sits(tmp_path: Path) -> None:
    book = Workbook()
    sheet = book.active
    sheet["B1"], sheet["B2"] = "Bob", "Dana"
    sheet["B1"].comment = Comment("Bob's my best friend from school", "Lee")
    sheet["B2"].comment = Comment("joined the rowing club in March", "Lee")
    asked = of_type(questions(saved(book, tmp_path, "friends.xlsx"), tmp_path), "comment-cell")
    assert [c.probe.value.rpartition("!")[2] for c in asked] == ["B2"]


def test_a_column_of_one_value_and_tabs_of_one_colour_are_asked_once_at_most(
    tmp_path: Path,
) -> None:
    book = Workbook()
    sheet = book.active
    sheet.append(("Function", "Result", "Equal?"))
    for number, (name, result) in enumerate(
        (("BETA.DIST", 0.61), ("AGGREGATE", 12.5), ("SUMIF", 40.0)), 1
    ):
        sheet.append((name, result, True, number))
    sheet["D1"] = "Order"
    for name in ("North", "South", "East"):
        book.create_sheet(name).sheet_properties.tabColor = "00B050"
    asked = questions(saved(book, tmp_path, "checks.xlsx"), tmp_path)
    lookups = [c.question for c in of_type(asked, "cell-lookup")]
    assert lookups and not [q for q in lookups if "'Equal?'" in q or "'Order'" in q]
    assert len(of_type(asked, "sheet-tab-colour")) == 1
