"""The element-aware leakage test on real corpus files, in both directions."""

from __future__ import annotations

from pptx import Presentation
from pptx.util import Inches

from extractors import extract_file
from fidelity.core.document import Candidate, Document
from fidelity.core.views import view_context
from filters import leakage
from filters.ablation import ablation_views
from filters.groundedness import check_document
from generators.draft import candidate
from generators.rules import excel, generate


def ablation(document: Document, item: Candidate) -> list:
    (outcome,) = check_document(document, [item])
    return [d for d, _ in outcome.decisions if d.check.startswith("ablation:")]


def test_a_note_cloze_is_rejected_when_its_own_slide_states_the_word(typical):
    note = next(a for a in typical.artifacts if a.kind == "note" and a.facts["slide"] == 12)
    sentence = "Add a pitchbook content ____ to the AutoContent Wizard."
    item = candidate(
        typical,
        note,
        "note-cloze",
        f"In the speaker notes of slide 12, what fills the blank in: “{sentence}”?",
        ["The missing text is “presentation”."],
        value="presentation",
        anchor=[sentence.replace("____", " ")],
    )
    (decision,) = ablation(typical, item)
    assert decision.verdict == "fail"
    assert "on slide 12" in decision.reason and "Pitchbook Presentation" in decision.answered
    assert "anchors ['add a pitchbook content to the autocontent wizard']" in decision.reason
    # the anchored-line test alone never sees the slide's own shape
    view = ablation_views(typical, note)[0]
    lines = leakage.lines(view_context(typical, view).text)
    assert leakage.test(lines, item.probe).verdict == "pass"


def test_a_word_on_another_slide_does_not_reject_a_note_cloze(typical):
    note = next(a for a in typical.artifacts if a.kind == "note" and a.facts["slide"] == 9)
    sentence = "The only way to make this happen is for the ____ of communicating and collaborating"
    item = candidate(
        typical,
        note,
        "note-cloze",
        f"In the speaker notes of slide 9, what fills the blank in: “{sentence}”?",
        ["The missing text is “process”."],
        value="process",
        anchor=[sentence.replace("____", " ")],
    )
    decisions = ablation(typical, item)
    assert [d.verdict for d in decisions] == ["pass", "pass"]
    assert "appears without its anchors in: slide 12 / notes" in decisions[0].reason
    assert decisions[1].view == "no-notes" and "appears" not in decisions[1].reason


def test_another_slide_s_shape_at_the_same_position_does_not_reject(corpus, extracted):
    path = corpus / "powerpoint" / "aascu.org_hbcu_leadershipsummit_cooper_.pptx"
    deck = extracted(path)
    structure = next(
        a for a in deck.artifacts if a.kind == "slide-structure" and a.facts["slide"] == 1
    )
    value = "left 5.17 in, top 6.50 in"
    question = "Where is the top-left corner of [Rectangle 9] on slide 1?"
    item = candidate(
        deck,
        structure,
        "shape-position",
        question,
        [f"[Rectangle 9] is placed at {value}."],
        value=value,
        anchor=["Shape [Rectangle 9] on slide 1"],
    )
    (decision,) = ablation(deck, item)
    assert decision.verdict == "pass"
    assert "slide 3" in decision.reason
    # the slide number in the anchor singles the element out: slide 3's line lacks it
    view = ablation_views(deck, structure)[0]
    lines = leakage.lines(view_context(deck, view).text)
    assert leakage.test(lines, item.probe).verdict == "pass"


def test_the_same_formula_on_another_sheet_still_gives_the_content_away(corpus, extracted):
    path = corpus / "excel" / "2023-half-year-analyses-by-segment.xlsx"
    document = extracted(path)
    formulas = {
        a.locator: a for a in document.artifacts if a.kind == "formula" and a.facts["cell"] == "B18"
    }
    target = formulas["'OS-Rev.and results 30 06 2023'!B18"]
    other = formulas["'OS-Other information 30 06 2023'!B18"]
    assert target.facts["formula"] == other.facts["formula"] == "=SUM(B9:B17)"
    item = candidate(
        document,
        target,
        "formula-text",
        "What formula is entered in cell B18 of sheet 'OS-Rev.and results 30 06 2023'?",
        ["Cell B18 holds =SUM(B9:B17)."],
        value="=SUM(B9:B17)",
        anchor=["B18"],
    )
    decisions = ablation(document, item)
    assert decisions[0].verdict == "fail"
    assert f"by {other.locator}" in decisions[0].reason


def test_an_element_of_another_category_stating_the_fact_still_rejects(typical):
    title = next(
        a
        for a in typical.artifacts
        if a.where.slide == 1 and a.where.shape is not None and a.where.shape.id == "95239"
    )
    value = "Typical Presentation"
    assert value in title.text
    item = candidate(
        typical,
        title,
        "slide-title",
        "What is the title of slide 1?",
        [f"The title of slide 1 is “{value}”."],
        value=value,
        anchor=["title"],
    )
    (decision,) = ablation(typical, item)
    assert decision.verdict == "fail"  # the deck's Title property says it too
    assert "by docProps/core.xml title" in decision.reason


def outcomes_of(document: Document, kind: str, question_type: str, where: str) -> list:
    """Check outcomes of the rule questions of `question_type` whose question names `where`."""
    rules = excel.RULES[kind]
    items = [
        item
        for artifact in document.artifacts
        if artifact.kind == kind
        for item in rules(document, artifact)
        if item.question_type == question_type and where in item.question
    ]
    assert items
    return check_document(document, items)


def test_a_formula_is_not_taken_for_its_neighbour_by_a_long_anchor(corpus, extracted):
    document = extracted(corpus / "excel" / "stress002.xlsx")
    where = "cell C4 of sheet 'Schedule D Supplemental Tables'"
    (outcome,) = outcomes_of(document, "formula", "formula-cross-sheet", where)
    # D4 reads the same sheet: its locator shares the sheet's words, not the cell C4
    assert outcome.status == "kept", outcome.reason


def test_the_same_comment_on_a_copied_sheet_does_not_reject_either_copy(corpus, extracted):
    document = extracted(corpus / "excel" / "stress002.xlsx")
    both = [
        outcome
        for sheet in ("Schedule A", "CS Worksheet")
        for outcome in outcomes_of(
            document, "comment", "comment-author", f"cell B6 of sheet '{sheet}'"
        )
    ]
    assert len(both) == 2
    assert all(outcome.status == "kept" for outcome in both), [o.reason for o in both]


def test_another_pivot_with_the_same_fields_does_not_reject(corpus, extracted):
    document = extracted(corpus / "excel" / "TemplateWithTableSourcePivotTables.xlsx")
    for name in ("'PivotTable5'", "'GeneratedYieldCurvePivotTable'"):
        (outcome,) = outcomes_of(document, "pivot", "pivot-row-fields", name)
        assert outcome.status == "kept", outcome.reason


def statuses(deck, tmp_path, question_type: str) -> dict[str, str]:
    """answer -> outcome status of the deck's offline candidates of one question type."""
    path = tmp_path / "deck.pptx"
    deck.save(path)
    document = Document(sha256="8" * 64, app="powerpoint", format="pptx", source=str(path))
    document = extract_file(path, document, tmp_path / "media")
    asked = [c for c in generate(document) if c.question_type == question_type]
    return {o.candidate.probe.value: o.status for o in check_document(document, asked)}


def test_a_short_answer_stated_in_other_words_order_still_leaks(tmp_path):
    made = Presentation()
    slide = made.slides.add_slide(made.slide_layouts[5])
    slide.shapes.title.text = "Where crops grow"
    rows = [["Crop", "Region"], ["Apples", "North coast"], ["Pears", "South valley"]]
    rows += [["Plums", "East hills"]]
    table = slide.shapes.add_table(4, 2, Inches(1), Inches(2), Inches(6), Inches(2)).table
    for r, row in enumerate(rows):
        for c, text in enumerate(row):
            table.cell(r, c).text = text
    other = made.slides.add_slide(made.slide_layouts[5])
    other.shapes.title.text = "Field notes"
    box = other.shapes.add_textbox(Inches(1), Inches(2), Inches(6), Inches(1))
    box.text_frame.text = "Apples grow best on the coast, north of the old harbour."
    status = statuses(made, tmp_path, "table-cell")
    assert status.pop("North coast") == "rejected"  # slide 2 states it, words reordered
    assert status and set(status.values()) == {"kept"}


def test_a_cloze_whose_phrase_another_passage_repeats_is_rejected(tmp_path):
    def deck(second: str) -> list:
        made = Presentation()
        for text in (
            "Our Kestrel volunteers planted young apple saplings along the riverbank this spring.",
            second,
        ):
            slide = made.slides.add_slide(made.slide_layouts[6])
            box = slide.shapes.add_textbox(Inches(1), Inches(1), Inches(8), Inches(1))
            box.text_frame.text = text
        path = tmp_path / f"{len(second)}.pptx"
        made.save(path)
        document = Document(sha256="9" * 64, app="powerpoint", format="pptx", source=str(path))
        document = extract_file(path, document, tmp_path / "media" / path.stem)
        clozes = [
            c
            for c in generate(document)
            if c.question_type == "slide-text-cloze" and "On slide 1," in c.question
        ]
        assert [c.probe.value for c in clozes] == ["Kestrel"]
        return check_document(document, clozes)

    (repeated,) = deck("Last year our Kestrel volunteers planted oaks beside the school gates.")
    assert repeated.status == "rejected" and "repeats the blank's phrase" in repeated.reason
    (elsewhere,) = deck("Many Kestrel members joined the harvest festival by the school gates.")
    assert elsewhere.status == "kept"


def test_a_long_title_is_not_leaked_by_a_near_copy_that_differs_in_a_telling_word(tmp_path):
    made = Presentation()
    for title in (
        "Bull age SD (mo) at daughter birth",
        "Herd sizes across the region",
        "Bull age SD (mo) at daughter calving",
        "What is a profiler",
        "What is a profiler tool",
    ):
        made.slides.add_slide(made.slide_layouts[5]).shapes.title.text = title
    status = statuses(made, tmp_path, "slide-title")
    assert status["Bull age SD (mo) at daughter calving"] == "kept"
    assert status["Bull age SD (mo) at daughter birth"] == "kept"
    assert status["What is a profiler"] == "kept"  # a longer title only contains it
