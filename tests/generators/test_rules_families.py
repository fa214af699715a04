"""Question families beyond lookups and extremes (issue 30): comparisons over tables and
charts, list answers and joins of two elements, each with a question it asks and one it
refuses, on files built with python-docx and python-pptx."""

from __future__ import annotations

from pathlib import Path

import docx
import pytest
from lxml import etree
from openpyxl import Workbook, load_workbook
from openpyxl.comments import Comment
from pptx import Presentation
from pptx.chart.data import CategoryChartData
from pptx.enum.chart import XL_CHART_TYPE
from pptx.util import Inches

from extractors import extract_file as extract
from fidelity.core.document import Candidate, Document
from filters.groundedness import check_document
from generators.rules import generate

APP = {".docx": "word", ".pptx": "powerpoint", ".xlsx": "excel"}
SALES = [("North", "120"), ("South", "185"), ("East", "240"), ("West", "105"), ("Central", "150")]


def load(path: Path, tmp_path: Path) -> Document:
    document = Document(
        sha256="7" * 64, app=APP[path.suffix], format=path.suffix[1:], source=str(path)
    )
    return extract(path, document, tmp_path / "media" / path.stem)


def of_type(candidates: list[Candidate], question_type: str) -> list[Candidate]:
    return [c for c in candidates if c.question_type == question_type]


def sales_report(path: Path, rows: list[tuple[str, str]], text: str = "") -> Path:
    made = docx.Document()
    made.add_heading("Regional results", level=1)
    made.add_paragraph(text or "The regions below reported their unit sales for the spring.")
    table = made.add_table(rows=len(rows) + 1, cols=2)
    for i, (label, value) in enumerate([("Region", "Units sold"), *rows]):
        table.cell(i, 0).text, table.cell(i, 1).text = label, value
    made.save(path)
    return path


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Document, list[Candidate]]:
    folder = tmp_path_factory.mktemp("families")
    document = load(sales_report(folder / "sales.docx", SALES), folder)
    return document, generate(document)


def test_the_second_highest_row_is_asked_with_its_value(report) -> None:
    _, candidates = report
    (second,) = of_type(candidates, "table-second")
    assert "second" in second.question and "“Units sold”" in second.question
    stated = " ".join(second.answer)
    # 240 East, 185 South, 150 Central, 120 North, 105 West
    assert ("South" in stated and "185" in stated) or ("North" in stated and "120" in stated)


def test_a_difference_names_both_rows_and_is_computed(report) -> None:
    _, candidates = report
    (gap,) = of_type(candidates, "table-difference")
    values = dict(SALES)
    high, low = (label for label in values if f"“{label}”" in gap.question)
    if int(values[high]) < int(values[low]):
        high, low = low, high
    assert gap.answer[-1] == f"The difference is {int(values[high]) - int(values[low])}."


def test_the_rows_above_a_stated_value_are_listed_in_full(report) -> None:
    _, candidates = report
    (above,) = of_type(candidates, "table-above")
    bound = int(above.question.split("greater than ")[1].split()[0])
    listed = {label for label, value in SALES if int(value) > bound}
    assert 1 <= len(listed) <= 4
    assert {label for label in listed if any(f"“{label}”" in s for s in above.answer)} == listed
    assert len(above.answer) == len(listed) + 1  # every row, and that no other row qualifies


def test_a_column_sum_is_asked_when_nothing_states_it(report) -> None:
    document, candidates = report
    (total,) = of_type(candidates, "table-sum")
    assert total.answer == ["The 5 values in the column “Units sold” add up to 800."]
    outcome = {o.candidate.id: o for o in check_document(document, candidates)}[total.id]
    assert outcome.status != "rejected"


def test_a_table_with_a_total_row_gets_no_comparison_beyond_the_extreme(tmp_path: Path) -> None:
    rows = [*SALES, ("Total", "800")]
    document = load(sales_report(tmp_path / "totals.docx", rows), tmp_path)
    asked = {c.question_type for c in generate(document)}
    assert not asked & {"table-second", "table-difference", "table-above", "table-sum"}


def test_a_sum_the_text_states_is_not_asked(tmp_path: Path) -> None:
    path = sales_report(tmp_path / "stated.docx", SALES, "Together the regions sold 800 units.")
    assert not of_type(generate(load(path, tmp_path)), "table-sum")


def test_the_leakage_filter_rejects_a_second_highest_the_text_states(tmp_path: Path) -> None:
    text = "Central sold 150 units, North 120, East 240, South 185 and West 105."
    document = load(sales_report(tmp_path / "told.docx", SALES, text), tmp_path)
    (second,) = of_type(generate(document), "table-second")
    (outcome,) = check_document(document, [second])
    assert outcome.status == "rejected"


def test_codes_and_scale_points_are_not_added_up(tmp_path: Path) -> None:
    rows = [("Alpha", "2019"), ("Beta", "2020"), ("Gamma", "2021"), ("Delta", "2018")]
    document = load(sales_report(tmp_path / "years.docx", rows), tmp_path)
    asked = {c.question_type for c in generate(document)}
    assert not asked & {"table-difference", "table-sum", "table-above"}


# -- charts ------------------------------------------------------------------------------


def chart_deck(
    path: Path,
    series: dict[str, tuple[float, ...]],
    categories: list[str],
    kind: XL_CHART_TYPE = XL_CHART_TYPE.COLUMN_CLUSTERED,
) -> Path:
    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    slide.shapes.title.text = "Harvest by orchard"
    data = CategoryChartData()
    data.categories = categories
    for name, values in series.items():
        data.add_series(name, values)
    slide.shapes.add_chart(kind, Inches(1), Inches(1.5), Inches(8), Inches(5), data)
    deck.save(path)
    return path


def test_a_chart_asks_its_second_highest_category_and_a_series_gap(tmp_path: Path) -> None:
    series = {"Apples": (12.0, 30.0, 18.0, 25.0), "Pears": (10.0, 14.0, 21.0, 9.0)}
    path = chart_deck(tmp_path / "chart.pptx", series, ["Hill", "River", "Lane", "Mill"])
    candidates = generate(load(path, tmp_path))
    (second,) = of_type(candidates, "chart-second")
    assert "“Apples”" in second.question
    assert second.answer in (
        ["“Mill” has the second highest value of the series “Apples”.", "That value is 25."],
        ["“Lane” has the second lowest value of the series “Apples”.", "That value is 18."],
    )
    (gap,) = of_type(candidates, "chart-difference")
    category = gap.question.split("for “")[1].split("”")[0]
    index = ["Hill", "River", "Lane", "Mill"].index(category)
    apples, pears = series["Apples"][index], series["Pears"][index]
    assert gap.answer[-1] == f"The difference is {abs(apples - pears):g}."


def test_a_gap_a_table_also_gives_is_not_asked_of_the_chart(tmp_path: Path) -> None:
    series = {"Apples": (12.0, 30.0, 18.0, 25.0), "Pears": (10.0, 14.0, 21.0, 9.0)}
    categories = ["Hill", "River", "Lane", "Mill"]
    path = chart_deck(tmp_path / "both.pptx", series, categories)
    deck = Presentation(str(path))
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    slide.shapes.title.text = "The same harvest in figures"
    shape = slide.shapes.add_table(5, 3, Inches(1), Inches(1.5), Inches(6), Inches(3))
    for i, row in enumerate(
        [("Orchard", "Apples", "Pears")]
        + [(c, f"{a:g}", f"{p:g}") for c, a, p in zip(categories, *series.values(), strict=True)]
    ):
        for j, text in enumerate(row):
            shape.table.cell(i, j).text = text
    deck.save(path)
    assert not of_type(generate(load(path, tmp_path)), "chart-difference")


def test_a_chart_of_localized_sample_data_is_not_asked(tmp_path: Path) -> None:
    series = {"Ряд 1": (4.3, 2.5, 3.5, 4.5), "Ряд 2": (2.4, 4.4, 1.8, 2.8)}
    categories = ["Категория 1", "Категория 2", "Категория 3", "Категория 4"]
    path = chart_deck(tmp_path / "sample.pptx", series, categories)
    asked = {c.question_type for c in generate(load(path, tmp_path))}
    assert not asked & {"chart-second", "chart-difference", "chart-value", "chart-extreme"}


def test_a_pie_of_powerpoints_sample_sales_is_not_asked(tmp_path: Path) -> None:
    series = {"Sales": (8.2, 3.2, 1.4, 1.2)}
    categories = ["1st Qtr", "2nd Qtr", "3rd Qtr", "4th Qtr"]
    path = chart_deck(tmp_path / "pie.pptx", series, categories, XL_CHART_TYPE.PIE)
    document = load(path, tmp_path)
    (chart,) = [a for a in document.artifacts if a.kind == "chart"]
    assert chart.facts["sample_data"] is True
    assert not [c for c in generate(document) if c.category == "Chart"]
    edited = chart_deck(tmp_path / "edited.pptx", {"Sales": (8.2, 3.2, 1.4, 9.9)}, categories)
    (own,) = [a for a in load(edited, tmp_path).artifacts if a.kind == "chart"]
    assert own.facts["sample_data"] is False


# -- sections and speaker notes ----------------------------------------------------------

P14 = "http://schemas.microsoft.com/office/powerpoint/2010/main"
SECTIONS_URI = "{521415D9-36F7-43E2-AB2F-B90AF26B5E84}"


def sectioned_deck(path: Path, sections: dict[str, list[str]], notes: dict[str, str]) -> Path:
    """A deck whose slides (titled by the lists' items) fall into the named sections,
    with speaker notes on the slides `notes` names."""
    deck = Presentation()
    ids: dict[str, list[str]] = {}
    for name, titles in sections.items():
        for title in titles:
            slide = deck.slides.add_slide(deck.slide_layouts[5])
            slide.shapes.title.text = title
            if title in notes:
                slide.notes_slide.notes_text_frame.text = notes[title]
            ids.setdefault(name, []).append(str(slide.slide_id))
    root = deck.part._element
    ext_list = root.find("{http://schemas.openxmlformats.org/presentationml/2006/main}extLst")
    if ext_list is None:
        ext_list = etree.SubElement(
            root, "{http://schemas.openxmlformats.org/presentationml/2006/main}extLst"
        )
    ext = etree.SubElement(
        ext_list, "{http://schemas.openxmlformats.org/presentationml/2006/main}ext"
    )
    ext.set("uri", SECTIONS_URI)
    listing = etree.SubElement(ext, f"{{{P14}}}sectionLst")
    for number, (name, slide_ids) in enumerate(ids.items()):
        section = etree.SubElement(listing, f"{{{P14}}}section")
        section.set("name", name)
        section.set("id", f"{{0000000{number}-0000-0000-0000-000000000000}}")
        listed = etree.SubElement(section, f"{{{P14}}}sldIdLst")
        for slide_id in slide_ids:
            etree.SubElement(listed, f"{{{P14}}}sldId").set("id", slide_id)
    deck.save(path)
    return path


SECTIONS = {
    "Welcome": ["Agenda", "Our team"],
    "Field work": ["Soil samples", "Water quality", "Bird counts"],
    "Wrap-up": [f"Closing thought {i}" for i in range(1, 8)],
}


def test_every_slide_of_a_section_is_listed(tmp_path: Path) -> None:
    path = sectioned_deck(tmp_path / "sections.pptx", SECTIONS, {})
    candidates = of_type(generate(load(path, tmp_path)), "section-slides")
    by_section = {c.question.split("“")[1].split("”")[0]: c for c in candidates}
    field = by_section["Field work"]
    assert field.answer == [
        "Slide 3 (“Soil samples”) is in the section “Field work”.",
        "Slide 4 (“Water quality”) is in the section “Field work”.",
        "Slide 5 (“Bird counts”) is in the section “Field work”.",
        "No other slide is in the section “Field work”.",
    ]
    assert "Wrap-up" not in by_section  # seven slides: too long a list to ask


def test_which_slides_notes_say_a_sentence_nothing_else_says(tmp_path: Path) -> None:
    notes = {
        "Soil samples": "Remind everyone that the nitrogen measurements arrived late.",
        "Bird counts": "Thank the volunteer birdwatchers before moving on.",
        # shares a word with its slide's title, which would point to the slide unread
        "Agenda": "The agenda lists every topic we cover this morning.",
    }
    path = sectioned_deck(tmp_path / "notes.pptx", SECTIONS, notes)
    document = load(path, tmp_path)
    asked = of_type(generate(document), "note-slide")
    slides = {c.answer[0].split("slide ")[1].split()[0] for c in asked}
    assert slides == {"3", "5"}
    for item in asked:
        phrase = item.question.split("“")[1].split("”")[0]
        holders = [t for t, said in notes.items() if phrase.lower() in said.lower()]
        assert len(holders) == 1 and holders[0] not in phrase
    outcomes = check_document(document, asked)
    assert all(o.status != "rejected" for o in outcomes)


def test_a_notes_sentence_a_slide_also_says_is_not_asked(tmp_path: Path) -> None:
    sections = {"Only": ["Nitrogen measurements arrived late", "Volunteer birdwatchers"]}
    notes = {
        "Nitrogen measurements arrived late": "Nitrogen measurements arrived late.",
        "Volunteer birdwatchers": "Volunteer birdwatchers helped.",
    }
    path = sectioned_deck(tmp_path / "echo.pptx", sections, notes)
    assert not of_type(generate(load(path, tmp_path)), "note-slide")


# -- a sentence and its section ----------------------------------------------------------


def sectioned_report(path: Path, sections: dict[str, list[str]]) -> Path:
    made = docx.Document()
    for heading, paragraphs in sections.items():
        made.add_heading(heading, level=1)
        for text in paragraphs:
            made.add_paragraph(text)
    made.save(path)
    return path


def test_the_heading_a_sentence_stands_under_is_asked(tmp_path: Path) -> None:
    sections = {
        "Methods": ["Samples were frozen overnight and weighed twice by two separate technicians."],
        "Findings": ["The eastern orchard produced nearly twice the harvest of the western one."],
        "Outlook": ["Next spring the cooperative intends to plant hedges along every boundary."],
    }
    document = load(sectioned_report(tmp_path / "report.docx", sections), tmp_path)
    asked = of_type(generate(document), "text-heading")
    assert {c.answer[0].split("“")[1].split("”")[0] for c in asked} == set(sections)
    for item in asked:
        heading = item.answer[0].split("“")[1].split("”")[0]
        assert sections[heading][0] in item.question
    assert all(o.status != "rejected" for o in check_document(document, asked))


def test_a_sentence_that_names_its_heading_or_recurs_is_not_asked(tmp_path: Path) -> None:
    repeated = "The eastern orchard produced nearly twice the harvest of the western one."
    sections = {
        "Methods": ["Our methods were reviewed twice by the regional board of growers."],
        "Findings": [repeated],
        "Outlook": [repeated.replace("nearly", "almost")],
    }
    document = load(sectioned_report(tmp_path / "echo.docx", sections), tmp_path)
    assert not of_type(generate(document), "text-heading")


# -- worksheet ranges: only what a number format's rounding keeps -------------------------


def workbook(path: Path, rows: list[tuple[str, float]]) -> Path:
    book = Workbook()
    sheet = book.active
    sheet.title = "Peaks"
    sheet.append(["Mountain", "Height (m)"])
    for label, value in rows:
        sheet.append([label, value])
        sheet.cell(sheet.max_row, 2).number_format = "#,##0"
    book.save(path)
    return path


PEAKS = [
    ("Everest", 8848.86),
    ("K2", 8611.0),
    ("Lhotse", 8516.0),
    ("Makalu", 8485.0),
    ("Cho Oyu", 8188.0),
]


def test_a_range_asks_its_order_and_the_rows_above_a_named_row(tmp_path: Path) -> None:
    path = workbook(tmp_path / "peaks.xlsx", PEAKS)
    document = Document(sha256="7" * 64, app="excel", format="xlsx", source=str(path))
    candidates = generate(extract(path, document, tmp_path / "media"))
    (second,) = of_type(candidates, "table-second")
    assert second.answer in (
        [
            "The row “K2” has the second highest value in the column “Height (m)”.",
            "That value is 8,611.",
        ],
        [
            "The row “Makalu” has the second lowest value in the column “Height (m)”.",
            "That value is 8,485.",
        ],
    )
    (above,) = of_type(candidates, "table-above")
    named = above.question.split("than the row “")[1].split("”")[0]
    bound = dict(PEAKS)[named]
    assert len(above.answer) == sum(v > bound for _, v in PEAKS) + 1
    # shown values may be rounded (8,849 for 8,848.86): no difference or sum is computed
    assert not of_type(candidates, "table-difference") and not of_type(candidates, "table-sum")


def test_a_range_whose_first_row_subtotals_the_rest_is_not_compared(tmp_path: Path) -> None:
    rows = [("Asia", 42649.0), *PEAKS]
    path = workbook(tmp_path / "grouped.xlsx", rows)
    document = Document(sha256="7" * 64, app="excel", format="xlsx", source=str(path))
    candidates = generate(extract(path, document, tmp_path / "media"))
    assert not of_type(candidates, "table-second") and not of_type(candidates, "table-above")


# -- rows that show a stated category ------------------------------------------------------


def status_report(path: Path, rows: list[tuple[str, str, str]]) -> Path:
    made = docx.Document()
    made.add_paragraph("Task status at the end of the quarter.")
    table = made.add_table(rows=len(rows) + 1, cols=3)
    for i, row in enumerate([("Task", "Owner", "Status"), *rows]):
        for j, text in enumerate(row):
            table.cell(i, j).text = text
    made.save(path)
    return path


def test_every_row_showing_a_stated_category_is_listed(tmp_path: Path) -> None:
    rows = [
        ("Survey design", "Ana", "Done"),
        ("Field visits", "Ben", "Late"),
        ("Data entry", "Chen", "Done"),
        ("Report draft", "Dara", "Open"),
        ("Peer review", "Eli", "Open"),
    ]
    document = load(status_report(tmp_path / "status.docx", rows), tmp_path)
    (listed,) = of_type(generate(document), "table-rows-with")
    value = listed.question.split("show “")[1].split("”")[0]
    column = listed.question.split("column “")[1].split("”")[0]
    index = ("Task", "Owner", "Status").index(column)
    expected = [row[0] for row in rows if row[index] == value]
    assert 2 <= len(expected) <= 4
    assert listed.answer[:-1] == [
        f"The row “{task}” shows “{value}” under “{column}”." for task in expected
    ]


def test_a_column_of_distinct_or_uniform_values_is_not_filtered(tmp_path: Path) -> None:
    rows = [
        ("Survey design", "Ana", "Done"),
        ("Field visits", "Ben", "Done"),
        ("Data entry", "Chen", "Done"),
        ("Report draft", "Dara", "Done"),
    ]
    document = load(status_report(tmp_path / "uniform.docx", rows), tmp_path)
    assert not of_type(generate(document), "table-rows-with")


def test_a_heading_named_after_its_style_or_used_twice_is_not_an_answer(tmp_path: Path) -> None:
    made = docx.Document()
    for heading, text in [
        (
            "Heading 2",
            "Samples were frozen overnight and weighed twice by two separate technicians.",
        ),
        ("Findings", "The eastern orchard produced nearly twice the harvest of the western one."),
        ("Outlook", "Next spring the cooperative intends to plant hedges along every boundary."),
        ("Findings", "Volunteers counted more swallows than in any summer since records began."),
    ]:
        made.add_heading(heading, level=1)
        made.add_paragraph(text)
    made.save(tmp_path / "styled.docx")
    asked = of_type(generate(load(tmp_path / "styled.docx", tmp_path)), "text-heading")
    assert [c.answer for c in asked] == [["That sentence is in the section headed “Outlook”."]]


# -- every item of a short list ------------------------------------------------------------


def listed(path: Path, lead: str, items: list[str], style: str = "List Bullet") -> Path:
    made = docx.Document()
    made.add_paragraph("Members agreed on the following points at the spring meeting.")
    made.add_paragraph(lead)
    for item in items:
        made.add_paragraph(item, style=style)
    made.add_paragraph("The next meeting takes place in the autumn.")
    made.save(path)
    return path


def test_every_item_of_a_short_list_is_the_answer(tmp_path: Path) -> None:
    items = ["Repair the north fence.", "Order new seedlings.", "Hire two pickers for August."]
    path = listed(tmp_path / "list.docx", "The committee will:", items)
    (question,) = of_type(generate(load(path, tmp_path)), "text-list")
    assert (
        question.question == "Which items does the list introduced by “The committee will:” give?"
    )
    assert question.answer == [
        "Item 1: Repair the north fence.",
        "Item 2: Order new seedlings.",
        "Item 3: Hire two pickers for August.",
        "The list has these 3 items and no others.",
    ]


def test_a_list_of_filler_items_or_too_many_items_is_not_asked(tmp_path: Path) -> None:
    filler = listed(tmp_path / "filler.docx", "Here is a list:", ["Bullet 1", "Bullet 2"])
    assert not of_type(generate(load(filler, tmp_path)), "text-list")
    long = [f"Plant row {name} with pears." for name in "ABCDEFG"]
    many = listed(tmp_path / "many.docx", "The rows to plant:", long)
    assert not of_type(generate(load(many, tmp_path)), "text-list")


# -- a comment and the cell it annotates ----------------------------------------------------


def commented_book(path: Path, comments: dict[str, tuple[str, str]]) -> Path:
    """A workbook whose cells (address → value, comment) carry comments."""
    book = Workbook()
    sheet = book.active
    sheet.title = "Budget"
    for ref, (value, text) in comments.items():
        sheet[ref] = value
        sheet[ref].comment = Comment(text, "Ana")
    book.save(path)
    return path


def test_the_cell_a_comment_annotates_is_asked_by_the_comments_words(tmp_path: Path) -> None:
    path = commented_book(
        tmp_path / "budget.xlsx",
        {
            "A2": ("Travel allowance", "Check the rate with finance before sending"),
            "A3": ("A3", "This cell reads its own address here"),
        },
    )
    document = Document(sha256="7" * 64, app="excel", format="xlsx", source=str(path))
    asked = of_type(generate(extract(path, document, tmp_path / "media")), "comment-cell-value")
    assert [c.answer for c in asked] == [
        ["The comment is on cell A2, which shows “Travel allowance”."]
    ]
    assert "“Check the rate with finance before sending”" in asked[0].question


def test_a_comment_on_an_empty_cell_or_one_echoing_it_gives_no_value(tmp_path: Path) -> None:
    path = commented_book(
        tmp_path / "echo.xlsx",
        {
            "A2": ("finance", "Check the rate with finance before sending"),
            # the comment explains the label in the label's own words: guessed, not read
            "A4": ("Mileage rate per kilometre", "The mileage rate paid per kilometre driven"),
            "A6": ("Approved", "ana: test note"),  # an author's name and two words
        },
    )
    document = Document(sha256="7" * 64, app="excel", format="xlsx", source=str(path))
    assert not of_type(generate(extract(path, document, tmp_path / "media")), "comment-cell-value")


def test_a_commented_term_the_workbook_defines_elsewhere_is_not_asked(tmp_path: Path) -> None:
    path = commented_book(
        tmp_path / "terms.xlsx",
        {"B6": ("Plaintiff", "Person who files the current action with the court")},
    )
    book = load_workbook(path)
    glossary = book.create_sheet("Explanation of Terms")
    glossary.append(["Plaintiff", "The party who brings a case against another in court."])
    book.save(path)
    document = Document(sha256="7" * 64, app="excel", format="xlsx", source=str(path))
    assert not of_type(generate(extract(path, document, tmp_path / "media")), "comment-cell-value")
