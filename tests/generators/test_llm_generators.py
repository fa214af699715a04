"""Model generators on hand-made documents, with a scripted model behind the local stub."""

from __future__ import annotations

import json

import pytest
from PIL import Image

from fidelity.core.config import GenerationBudget, ModelsConfig
from fidelity.core.document import Artifact, Document, placeholder_for
from fidelity.core.llm import LLMClient
from fidelity.core.locator import Locator
from fidelity.core.prompt import load, parse
from fidelity.core.store import RunStore
from generators.llm import LLMGenerators
from tests.support.openai_stub import StubServer, json_reply, schema_name, text_of

CHUNK = (
    "The Zephyr irrigation project was approved on 12 March 2021 by the steering board, "
    "which was chaired by Alice Moreno. Construction of the northern canal started in the "
    "following spring and the first water reached the Ortega farms in late 2022, ahead of "
    "the schedule set by the regional water authority."
)
TABLE_HTML = (
    "<table><tr><th>Region</th><th>Budget</th></tr>"
    "<tr><td>North</td><td>1,200</td></tr><tr><td>South</td><td>950</td></tr></table>"
)


def document(tmp_path) -> Document:
    media = tmp_path / "media"
    media.mkdir(exist_ok=True)
    Image.new("RGB", (60, 40), "navy").save(media / "chart.png")
    Image.new("RGB", (16, 16), "white").save(media / "logo.png")
    artifacts = [
        Artifact(
            id="txt-1",
            category="Text",
            kind="text",
            modality="text",
            where=Locator(section="Overview"),
            text=CHUNK,
        ),
        Artifact(
            id="txt-2",
            category="Text",
            kind="text",
            modality="text",
            where=Locator(section="Short"),
            text="Too short to ask about.",
        ),
        Artifact(
            id="tbl-1",
            category="Table",
            kind="table",
            modality="table",
            where=Locator(table_path=[1]),
            text="Region | Budget\nNorth | 1,200\nSouth | 950",
            html=TABLE_HTML,
        ),
        Artifact(
            id="tbl-2",
            category="Table",
            kind="table",
            modality="table",
            where=Locator(table_path=[2]),
            text="Other | Table",
            html="<table><tr><td>Other</td></tr></table>",
        ),
        Artifact(
            id="img-chart",
            category="Image",
            kind="image",
            modality="visual",
            where=Locator(element="image chart.png"),
            text="[Image: rainfall per month]",
            media="media/chart.png",
        ),
        Artifact(
            id="img-logo",
            category="Image",
            kind="image",
            modality="visual",
            where=Locator(element="image logo.png"),
            text="[Image: company logo]",
            media="media/logo.png",
        ),
        Artifact(
            id="img-emf",
            category="Image",
            kind="image",
            modality="visual",
            where=Locator(element="image x.emf"),
            text="[Image]",
            media="media/missing.emf",
        ),
        Artifact(
            id="chart-1",
            category="Chart",
            kind="chart",
            modality="visual",
            where=Locator(element="chart 1"),
            text="Bar chart 'Sales': North 40, South 25, East 30",
        ),
    ]
    fonts = [
        Artifact(
            id=f"font-{i}",
            category="Font",
            kind="font-span",
            modality="element",
            where=Locator(element="text", quoted=f"Heading {i}"),
            text=f"Font of the text “Heading {i}”: Verdana, {20 + i} pt, bold",
            facts={"font": "Verdana", "size_pt": 20 + i},
        )
        for i in range(5)
    ]
    comment = Artifact(
        id="cmt-1",
        category="Comment",
        kind="comment",
        modality="element",
        where=Locator(element="comment by Ann"),
        text="Comment by Ann on “Zephyr”: check the date",
        facts={"author": "Ann", "text": "check the date"},
    )
    for artifact in artifacts:
        if artifact.modality in ("text", "table", "visual"):
            artifact.placeholder = placeholder_for(artifact.id)
    body = "\n\n".join(
        [
            "# Overview",
            placeholder_for("txt-1"),
            "Budget per region is listed below.",
            placeholder_for("tbl-1"),
            placeholder_for("tbl-2"),
            placeholder_for("txt-2"),
            placeholder_for("img-chart"),
            placeholder_for("img-logo"),
            placeholder_for("img-emf"),
            placeholder_for("chart-1"),
        ]
    )
    return Document(
        sha256="a" * 64,
        app="word",
        format="docx",
        source="/files/zephyr.docx",
        body=body,
        artifacts=[*artifacts, *fonts, comment],
    )


TEXT_DRAFT = {
    "questions": [
        {
            "question": "On what date was the Zephyr irrigation project approved?",
            "answer": ["The Zephyr irrigation project was approved on 12 March 2021."],
            "value": "12 March 2021",
            "evidence": "approved on 12 March 2021",
        },
        {
            "question": "Who chaired the steering board that approved the Zephyr project?",
            "answer": ["Alice Moreno chaired the steering board."],
            "value": "Alice Moreno",
            "evidence": "chaired by Alice Moreno",
        },
        {
            "question": "What colour is the canal?",
            "answer": ["The canal is purple."],
            "value": "purple",
            "evidence": "",
        },
    ]
}
VOTES = {  # style sentence -> answers to questions 1 and 2
    "full sentences": ["It was approved on 12 March 2021", "Alice Moreno"],
    "fewest words": ["12 March 2021", "Bob Stone"],
    "one short sentence": ["March 2021", "Carla Diaz"],
}


def scripted_model(body: dict) -> dict:
    name = schema_name(body)
    text = text_of(body)
    if name == "TextQuestions":
        return json_reply(TEXT_DRAFT)
    if name == "TextAnswers":
        style = next(key for key in VOTES if key in text)
        answers = [
            {"number": n, "answerable": True, "answer": v, "value": v}
            for n, v in enumerate(VOTES[style], 1)
        ]
        answers.append({"number": 3, "answerable": False, "answer": "", "value": ""})
        return json_reply({"answers": answers})
    if name == "VisualTriage":
        logo = "company logo" in text
        return json_reply(
            {
                "informative": not logo,
                "content_type": "logo" if logo else "chart",
                "reason": "scripted",
            }
        )
    if name == "VisualQuestions":
        value = "40" if "Sales" in text else "March"
        return json_reply(
            {
                "questions": [
                    {
                        "question_with_reference": "In the figure, which month is wettest?",
                        "question_standalone": "Which month had the highest rainfall?",
                        "answer": [f"The answer is {value}."],
                        "value": value,
                    }
                ]
            }
        )
    if name == "TableQuestions":
        return json_reply(
            {
                "questions": [
                    {
                        "question": "What is the budget of the North region?",
                        "answer": ["The North region's budget is 1,200."],
                        "value": "1,200",
                        "row_label": "North",
                        "column_label": "Budget",
                    },
                    {
                        "question": "What is the total budget?",
                        "answer": ["2,150"],
                        "value": "2,150",
                        "row_label": "",
                        "column_label": "Budget",
                    },
                ]
            }
        )
    if name == "FactQuestions":
        fonts = [
            {
                "fact_id": f"font-{i}",
                "question_type": "font name",
                "question": f"Which font is used for Heading {i}?",
                "answer": ["Verdana."],
                "value": "Verdana",
            }
            for i in range(3)
        ]
        extra = [
            {
                "fact_id": "[cmt-1]",
                "question_type": "comment text",
                "question": "What does Ann's comment on 'Zephyr' say?",
                "answer": ["It says to check the date."],
                "value": "check the date",
            },
            {"fact_id": "nope", "question_type": "x", "question": "?", "answer": [], "value": "v"},
        ]
        return json_reply({"questions": fonts + extra})
    raise AssertionError(f"unexpected schema {name}")


@pytest.fixture
def stub():
    with StubServer(scripted_model) as server:
        yield server


def generators_for(stub, tmp_path, **generation) -> LLMGenerators:
    settings = ModelsConfig(
        model="gen-model",
        base_url=stub.base_url,
        with_rules=False,
        generation=GenerationBudget(**generation),
    )
    client = LLMClient(
        settings, RunStore(tmp_path / "run.sqlite"), tmp_path, notify=lambda text: None
    )
    return LLMGenerators(client, settings)


def requests_for(stub, name: str) -> list[dict]:
    return [r["json"] for r in stub.chat_requests() if schema_name(r["json"]) == name]


def test_every_generator_drafts_grounded_candidates(stub, tmp_path):
    generate = generators_for(stub, tmp_path, questions_per_chunk=3)
    candidates = generate(document(tmp_path))
    by_generator: dict[str, list] = {}
    for item in candidates:
        by_generator.setdefault(item.generator, []).append(item)
    assert set(by_generator) == {"model:text", "model:table", "model:visual", "model:facts"}
    for item in candidates:
        assert item.file_sha == "a" * 64 and item.answer and item.probe.value
        assert "model=gen-model" in item.generator_version


def test_text_keeps_only_majority_confirmed_questions(stub, tmp_path):
    candidates = generators_for(stub, tmp_path, questions_per_chunk=3)(document(tmp_path))
    text = [c for c in candidates if c.generator == "model:text"]
    assert [c.question for c in text] == [
        "On what date was the Zephyr irrigation project approved?"
    ]
    (kept,) = text
    assert kept.artifact_id == "txt-1" and kept.category == "Text"
    assert kept.probe.value == "12 March 2021"
    assert {"zephyr", "irrigation", "project", "approved"} <= set(kept.probe.anchor)
    assert kept.generator_version.startswith("text-questions@1+text-answers@1")
    (draft,) = requests_for(stub, "TextQuestions")  # the short chunk was not sent
    assert CHUNK in text_of(draft) and "up to 3 questions" in text_of(draft)
    answers = requests_for(stub, "TextAnswers")
    assert len(answers) == 3
    for request in answers:
        assert "1. On what date" in text_of(request) and "purple" not in text_of(request)


def test_table_questions_see_html_and_marked_narrative(stub, tmp_path):
    candidates = generators_for(stub, tmp_path)(document(tmp_path))
    table = [c for c in candidates if c.generator == "model:table"]
    # tbl-2 got the same scripted reply, but 1,200 is not one of its cells; 2,150 is a sum.
    assert [(c.artifact_id, c.probe.value) for c in table] == [("tbl-1", "1,200")]
    first = table[0]
    assert first.question_type == "table-lookup" and first.probe.anchor == ["North"]
    request = next(r for r in requests_for(stub, "TableQuestions") if "<th>Region" in text_of(r))
    prompt = text_of(request)
    assert "[[TARGET TABLE]]" in prompt and "[[another table]]" in prompt
    assert "Budget per region is listed below." in prompt and "Zephyr" in prompt


def test_visual_triage_drops_logos_and_asks_two_forms(stub, tmp_path):
    candidates = generators_for(stub, tmp_path)(document(tmp_path))
    visual = [c for c in candidates if c.generator == "model:visual"]
    assert {c.artifact_id for c in visual} == {"img-chart", "chart-1"}
    forms = sorted(c.question_type for c in visual if c.artifact_id == "img-chart")
    assert forms == ["visual-referenced", "visual-standalone"]
    triage = requests_for(stub, "VisualTriage")
    assert len(triage) == 2  # chart image and logo; the missing EMF is skipped
    for request in triage:
        image = request["messages"][1]["content"][1]["image_url"]
        assert image["detail"] == "low" and image["url"].startswith("data:image/png;base64,")
    asked = requests_for(stub, "VisualQuestions")
    with_image = [r for r in asked if isinstance(r["messages"][1]["content"], list)]
    assert len(with_image) == 1 and "rainfall per month" in text_of(with_image[0])
    chart_only = [r for r in asked if not isinstance(r["messages"][1]["content"], list)]
    assert "North 40" in text_of(chart_only[0])  # a chart with no image: drafted from its data
    assert "visual-triage@1+visual-questions@2" in visual[0].generator_version


def test_fact_questions_follow_type_priorities_and_quotas(stub, tmp_path):
    candidates = generators_for(stub, tmp_path, questions_per_fact_type=2)(document(tmp_path))
    facts = [c for c in candidates if c.generator == "model:facts"]
    assert [(c.artifact_id, c.category) for c in facts] == [
        ("cmt-1", "Comment"),
        ("font-0", "Font"),
    ]
    comment = facts[0]
    assert comment.question_type == "fact:comment-text" and comment.probe.value == "check the date"
    (request,) = requests_for(stub, "FactQuestions")
    prompt = text_of(request)
    assert prompt.index("- Comment: up to 2") < prompt.index("- Font: up to 1")
    assert "[cmt-1] Comment / comment" in prompt and "Verdana" in prompt
    assert "facts-word@2" in comment.generator_version


def test_facts_shown_per_type_is_a_spread_sample(stub, tmp_path):
    generate = generators_for(stub, tmp_path, facts_shown_per_type=2)
    generate(document(tmp_path))
    prompt = text_of(requests_for(stub, "FactQuestions")[0])
    assert "[font-0]" in prompt and "[font-2]" in prompt and "[font-1]" not in prompt


def test_rerun_sends_nothing_and_gives_the_same_candidates(stub, tmp_path):
    first = generators_for(stub, tmp_path)(document(tmp_path))
    sent = len(stub.chat_requests())
    second = generators_for(stub, tmp_path)(document(tmp_path))
    assert len(stub.chat_requests()) == sent
    assert [c.model_dump() for c in first] == [c.model_dump() for c in second]


def test_failed_model_calls_drop_drafts_without_stopping(stub, tmp_path):
    stub.responder = lambda body: {"status": 400, "json": {"error": {"message": "bad"}}}
    assert generators_for(stub, tmp_path)(document(tmp_path)) == []


def test_rules_run_beside_the_model(stub, tmp_path, monkeypatch):
    from generators import llm as model_generators
    from generators.draft import candidate

    doc = document(tmp_path)
    rule_made = candidate(
        doc,
        doc.artifact("cmt-1"),
        "comment",
        "Who wrote the comment?",
        ["Ann wrote it."],
        "Ann",
        ["comment"],
    )
    monkeypatch.setattr(model_generators.rules, "generate", lambda d: [rule_made])
    settings = ModelsConfig(model="gen-model", base_url=stub.base_url, generators=["facts"])
    client = LLMClient(settings, RunStore(tmp_path / "run.sqlite"), tmp_path)
    out = LLMGenerators(client, settings)(doc)
    assert out[0] is rule_made and {c.generator for c in out} == {"rules", "model:facts"}


def test_prompt_files_are_versioned_and_strict():
    prompt = load("text-questions")
    assert prompt.tag == "text-questions@1"
    with pytest.raises(KeyError):
        prompt.messages(count=1, chunk="x")  # locator missing
    with pytest.raises(ValueError):
        parse("## system\nx\n## user\ny\n")
    messages = prompt.messages(count=2, locator="here", chunk="passage")
    assert messages[0]["role"] == "system" and "passage" in messages[1]["content"]
    assert "{{" not in json.dumps(messages)


def test_visual_units_are_capped_per_document(stub, tmp_path):
    generate = generators_for(stub, tmp_path, max_visuals_per_document=1)
    assert [a.id for a in generate.generators[1].units(document(tmp_path))] == ["img-chart"]
