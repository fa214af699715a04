"""Model mode on real corpus files, against the local stub: the positive answerable checks,
the notes-only view, formula values in the table prompt, and no yes/no Word fact questions.
"""

from __future__ import annotations

import re

import pytest

from extractors.powerpoint.views import declare
from fidelity.core.config import Config, GenerationBudget, ModelsConfig
from fidelity.core.document import Artifact
from fidelity.core.llm import LLMClient
from fidelity.core.locator import Locator
from fidelity.core.store import RunStore
from fidelity.pipeline import default_stages, filter_candidates
from filters.answerable import positive_views
from generators.draft import candidate
from generators.llm.facts import FactsGenerator
from generators.llm.table import TableGenerator
from tests.support.numbered import each_alone
from tests.support.openai_stub import StubServer, json_reply, schema_name, text_of

NOTE = "Really need to make sure we update this presentation."


def reader(body: dict) -> dict:
    """Answers the note question only from a context that holds the note; judges strictly."""
    name, text = schema_name(body), text_of(body)
    if name == "ReAnswer":
        context = re.search(r"Document:\n<<<\n(.*)\n>>>", text, re.DOTALL)
        if context and NOTE in context.group(1):
            return json_reply({"answer": NOTE, "answerable": True})
        return json_reply({"answer": "unknown", "answerable": False})
    if name == "JudgeVerdict":
        response = re.search(r"Response:\n<<<\n(.*?)\n>>>", text, re.DOTALL).group(1)
        statement = re.search(r"Statement: (.*)", text).group(1)
        return json_reply({"satisfied": response in statement, "reason": "stub"})
    if name == "Grade":
        return json_reply({"clarity": 4, "precision": 4, "value": 4, "rationale": "stub"})
    if name == "TableQuestions":
        return json_reply({"questions": []})
    if name == "FactQuestions":
        facts = re.findall(r"^\[([^\]]+)\] Comment", text, re.MULTILINE)
        asked = [
            {"question": "Is there a comment?", "value": "yes"},
            {"question": "What does the first comment say?", "value": "Trying to add a comment"},
        ]
        return json_reply(
            {
                "questions": [
                    {**q, "fact_id": facts[0], "question_type": "comment", "answer": ["It is."]}
                    for q in asked
                ]
            }
        )
    raise AssertionError(f"unexpected request {name!r}")


@pytest.fixture
def stub(monkeypatch):
    with StubServer(each_alone(reader)) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-answerable-test")
        yield server


def requests(stub: StubServer, name: str) -> list[str]:
    return [text_of(r["json"]) for r in stub.chat_requests() if schema_name(r["json"]) == name]


def test_a_note_question_needs_the_reference_from_the_file_and_from_the_notes_alone(
    stub, typical, tmp_path
):
    note = next(a for a in typical.artifacts if a.kind == "note" and a.facts["slide"] == 15)
    question = "What do the speaker notes of slide 15 say?"
    right = candidate(typical, note, "note-text", question, [NOTE], value=NOTE)
    wrong_text = NOTE.replace("update", "delete")
    wrong = candidate(typical, note, "note-text", question + " ", [wrong_text], value=wrong_text)
    store = RunStore(tmp_path / "run.sqlite")
    stages, _ = default_stages(Config(models=ModelsConfig(model="stub-model")), store, tmp_path)
    kept, rejected = filter_candidates(typical, [right, wrong], stages)
    checks = [d.check for d, _ in kept.decisions]
    assert kept.status == "kept"
    assert checks[-3:] == ["answerable:full", "answerable:notes-only", "grade"]
    notes_only = next(context for d, context in kept.decisions if d.view == "notes-only")
    assert NOTE in notes_only and "Typical Presentation" not in notes_only
    assert rejected.rejected_by == "answerable:full"
    assert rejected.reason.startswith("view full: not answerable from the file")
    store.close()


def test_layout_questions_are_asked_of_their_rendered_slide_when_there_is_one(typical):
    structure = next(
        a for a in typical.artifacts if a.kind == "slide-structure" and a.facts["slide"] == 8
    )
    assert [v.name for v in positive_views(typical, structure)] == ["full"]  # nothing rendered
    render = Artifact(
        id="ppt-render-8",
        category="Position/Association/Grouping",
        kind="slide-render",
        modality="visual",
        where=Locator(slide=8),
        text="[Rendered image of slide 8]",
        media="media/slide-8.png",
        facts={"slide": 8},
    )
    declare(render)  # as the extractor declares a slide's rendered image
    rendered = typical.model_copy(update={"artifacts": [*typical.artifacts, render]})
    (full, image) = positive_views(rendered, structure)
    assert image.name == "slide-image:8" and image.include_only == frozenset({render.id})


def test_formula_cells_reach_the_table_prompt_with_their_values(stub, corpus, tmp_path, extracted):
    path = corpus / "excel" / "2023-half-year-analyses-by-segment.xlsx"
    document = extracted(path)
    grid = next(
        a for a in document.artifacts if a.locator == "'OS-Rev.and results 30 06 2023'!A9:D18"
    )
    assert "⟦formula-" in grid.text
    client = LLMClient(ModelsConfig(model="stub-model"), RunStore(tmp_path / "r.sqlite"), tmp_path)
    TableGenerator(client, GenerationBudget()).draft(document, grid)
    (prompt,) = requests(stub, "TableQuestions")
    assert "46,293 (formula 'OS-Rev.and results 30 06 2023'!B18: =SUM(B9:B17))" in prompt


def test_word_fact_questions_never_answer_yes_or_no(stub, corpus, tmp_path, extracted):
    path = corpus / "word" / "Comment015.docx"
    document = extracted(path)
    client = LLMClient(ModelsConfig(model="stub-model"), RunStore(tmp_path / "r.sqlite"), tmp_path)
    generator = FactsGenerator(client, GenerationBudget())
    drafted = [c for unit in generator.units(document) for c in generator.draft(document, unit)]
    assert [c.probe.value for c in drafted] == ["Trying to add a comment"]
    (prompt,) = requests(stub, "FactQuestions")
    assert "Never ask a yes/no question" in prompt
