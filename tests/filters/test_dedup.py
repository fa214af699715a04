"""Element-aware de-duplication and qualification of recurring questions, on real corpus files."""

from __future__ import annotations

from fidelity.core.document import Candidate
from filters import dedup
from filters.qualify import qualify
from generators import rules
from generators.draft import candidate
from generators.rules import generate


def rejected(candidates: list[Candidate]) -> dict[str, str]:
    return {d.candidate_id: d.reason for d in dedup.deduplicate(candidates)}


def test_two_columns_of_one_table_row_are_two_questions(typical):
    table = next(a for a in typical.artifacts if a.kind == "table")
    row = next(r for r in table.facts["rows"] if r[0] == "Latin America")
    header = table.facts["rows"][0]

    def cell(column: int, answer: str | None = None) -> Candidate:
        value = answer or row[column]
        question = (
            f"In the table on slide 8, what is the value in the row “Latin America” "
            f"under the column “{header[column]}”?"
        )
        return candidate(typical, table, "table-cell", question, [f"It is {value}."], value)

    first, second = cell(1), cell(2)
    assert first.probe.value != second.probe.value
    assert rejected([first, second]) == {}
    # the same element asked twice with the same answer is a duplicate
    again = cell(1).model_copy(update={"id": "again", "question": first.question + " (table)"})
    assert set(rejected([first, again])) == {"again"}


def test_neighbouring_sheet_names_and_hyperlinks_are_not_duplicates(corpus, typical, extracted):
    document = extracted(corpus / "excel" / "45544.xlsx")  # five visible sheets
    items = [c for c in generate(document) if c.question_type == "sheet-order"]
    assert len(items) >= 3
    assert rejected(items) == {}
    links = [c for c in generate(typical) if c.category == "Hyperlink"]
    assert rejected(links) == {}


def test_a_name_on_three_sheets_becomes_three_qualified_questions(corpus, extracted):
    path = corpus / "excel" / "TemplateWithTableSourcePivotTables.xlsx"
    document = extracted(path)
    shared = [
        a for a in document.artifacts if a.id.startswith("name-") and a.facts["scope"] is not None
    ]
    same = [a for a in shared if a.facts["name"] == "Query_from_SILPEN"]
    assert len(same) >= 3
    question = "What does the defined name 'Query_from_SILPEN' refer to?"
    asked = [
        candidate(document, a, "defined-name", question, [a.facts["refers_to"]], "x") for a in same
    ]
    qualified = qualify(document, asked)
    assert len({c.question for c in qualified}) == len(same)
    for artifact, item in zip(same, qualified, strict=True):
        assert item.question == f"On sheet '{artifact.facts['scope']}', w{question[1:]}"
        assert item.id == Candidate.make_id(item.file_sha, item.artifact_id, item.question)
    assert qualify(document, qualified) == qualified  # a replay changes nothing
    assert rejected(qualified) == {}


def test_the_same_question_with_different_answers_and_no_place_is_ambiguous(typical):
    table = next(a for a in typical.artifacts if a.kind == "table")
    question = "What is the value in the row “Latin America”?"
    one = candidate(typical, table, "table-cell", question, ["It is 1."], "1")
    other = candidate(typical, table, "table-cell", question, ["It is 2."], "2")
    other = other.model_copy(update={"id": "other"})
    assert qualify(typical, [one, other]) == [one, other]  # one element: no place tells them apart
    reasons = rejected([one, other])
    assert set(reasons) == {one.id, "other"}
    assert all(reason.startswith("ambiguous") for reason in reasons.values())


def test_one_question_on_copied_slides_is_asked_once(corpus, extracted, monkeypatch):
    document = extracted(corpus / "powerpoint" / "stress013.pptx")
    # the rules ask one property value once per file; de-duplication meets drafts of any kind
    monkeypatch.setattr(rules, "PER_ANSWER", 99)
    groups = [
        c
        for c in generate(document)
        if c.question_type == "group-members" and "“Benchmark suite”" in c.question
    ]
    assert len(groups) >= 2 and len({c.artifact_id for c in groups}) == len(groups)
    assert len({" ".join(c.answer) for c in groups}) == 1
    assert len(rejected(groups)) == len(groups) - 1
    # different answers on two slides stay two questions
    titles = [c for c in generate(document) if c.question_type == "slide-title"][:2]
    assert len(titles) == 2 and rejected(titles) == {}
    # named by number alone, two slides' frontmost pictures are two facts
    fronts = [
        c
        for c in generate(document)
        if c.question_type == "z-order-front" and c.answer == [c.answer[0]]
    ]
    answers = [c.answer for c in fronts]
    same = [c for c in fronts if c.answer == max(answers, key=answers.count)]
    assert len(same) >= 2 and rejected(same) == {}
