"""Model mode end to end: `fidelity build --model` on real corpus files against the local stub."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from pathlib import Path

import pytest

from fidelity.cli import main
from fidelity.core.config import ModelsConfig
from tests.support.numbered import each_alone
from tests.support.openai_stub import StubServer, json_reply, schema_name, text_of
from tests.support.page_counts import DECLARED_PAGES_TOML
from tests.support.paths import CORPUS

pytestmark = pytest.mark.slow  # whole builds or corpus-wide work: not in make test-quick

WORD_FILE = CORPUS / "word" / "018367.docx"


def passage(text: str) -> str:
    match = re.search(r"<<<\n(.*?)\n>>>", text, re.DOTALL)
    return match.group(1) if match else ""


def span(text: str) -> str:
    """A deterministic answer span taken from the text (the same for draft and answers)."""
    words = re.findall(r"[A-Za-z][A-Za-z]{3,}", text)
    return " ".join(words[2:4]) if len(words) >= 4 else (words[0] if words else "none")


def generic_model(body: dict) -> dict:
    """A stand-in model whose answers are always copied from the prompt it was given."""
    name, text = schema_name(body), text_of(body)
    if name == "TextQuestions":
        value = span(passage(text))
        question = {
            "question": f"Which words follow in the passage about {value}?",
            "answer": [f"They are {value}."],
            "value": value,
            "evidence": value,
        }
        return json_reply({"questions": [question]})
    if name == "TextAnswers":
        value = span(passage(text))
        return json_reply(
            {"answers": [{"number": 1, "answerable": True, "answer": value, "value": value}]}
        )
    if name == "TableQuestions":
        cells = re.findall(r">([^<>]*[0-9][^<>]*)<", passage(text))
        value = cells[-1] if cells else "none"
        return json_reply(
            {
                "questions": [
                    {
                        "question": f"Which cell holds {value}?",
                        "answer": [value],
                        "value": value,
                        "row_label": "",
                        "column_label": "",
                    }
                ]
            }
        )
    if name == "VisualTriage":
        return json_reply({"informative": True, "content_type": "chart", "reason": "test"})
    if name == "VisualQuestions":
        return json_reply(
            {
                "questions": [
                    {
                        "question_with_reference": "In the figure, what is the title?",
                        "question_standalone": "What is the figure's title?",
                        "answer": ["The title is Trust Fund."],
                        "value": "Trust Fund",
                    }
                ]
            }
        )
    if name == "FactQuestions":
        facts = re.findall(r"^\[([^\]]+)\] .*\n  facts: .*\n  text: (.*)$", text, re.MULTILINE)
        questions = [
            {
                "fact_id": fact_id,
                "question_type": "element text",
                "question": f"What does element {fact_id} say?",
                "answer": [f"It says {span(fact_text)}."],
                "value": span(fact_text),
            }
            for fact_id, fact_text in facts[:6]
        ]
        return json_reply({"questions": questions})
    if name == "ReAnswer":  # the groundedness re-ask (filters/answerer.py): never answerable
        return json_reply({"answer": "unknown", "answerable": False})
    if name == "ReAnswers":  # the same, for questions asked together
        return each_alone(generic_model)(body)
    if name == "Grade":  # the quality grader (filters/grading.py)
        return json_reply({"clarity": 4, "precision": 4, "value": 4, "rationale": "test"})
    raise AssertionError(f"unexpected request {name!r}")


@pytest.fixture
def stub(monkeypatch, tmp_path):
    working = tmp_path / "working"  # its fidelity.toml: declared page counts, nothing else
    working.mkdir()
    (working / "fidelity.toml").write_text(DECLARED_PAGES_TOML)
    with StubServer(generic_model) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-pipeline-test-key")
        monkeypatch.chdir(working)
        yield server


def drafting_requests(stub: StubServer) -> list[dict]:
    """Chat requests of the generators (the filters' re-asks and grades left out)."""
    filtering = ("ReAnswer", "ReAnswers", "Grade")
    return [r for r in stub.chat_requests() if schema_name(r["json"]) not in filtering]


def rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.mark.needs("libreoffice")  # its build renders or converts through LibreOffice
def test_build_with_model_drafts_records_and_reports(stub, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["build", str(WORD_FILE), "-o", str(out), "--model", "stub-model"]) == 0
    produced = rows(out / "questions.jsonl") + rows(out / "rejected.jsonl")
    generators = {row["generator"] for row in produced}
    assert {"rules", "model:text", "model:table", "model:facts"} <= generators
    assert {row["mode"] for row in produced} == {"model"}
    model_rows = [row for row in produced if row["generator"].startswith("model:")]
    assert all("model=stub-model" in row["generator_version"] for row in model_rows)
    with sqlite3.connect(out / "run.sqlite") as db:
        (models,) = db.execute("SELECT value FROM meta WHERE key='models'").fetchone()
    assert ModelsConfig.from_toml(json.loads(models)) == ModelsConfig(model="stub-model")
    report = json.loads((out / "model_usage.json").read_text())
    calls = report["this_run"]["generate / stub-model"]["calls"]
    assert calls == len(drafting_requests(stub)) > 0
    assert "Model usage (this run)" in capsys.readouterr().err
    images = [
        part
        for request in stub.chat_requests()
        for message in request["json"]["messages"]
        if isinstance(message["content"], list)
        for part in message["content"]
        if part["type"] == "image_url"
    ]
    assert images and all(p["image_url"]["url"].startswith("data:image/") for p in images)
    # A rerun into the same folder makes no call (the file is done, the records are kept).
    sent = len(stub.requests)
    assert main(["build", str(WORD_FILE), "-o", str(out), "--model", "stub-model"]) == 0
    assert len(stub.requests) == sent


def test_a_new_build_from_kept_records_makes_no_new_call(stub, tmp_path):
    first = tmp_path / "first"
    main(["build", str(WORD_FILE), "-o", str(first), "--model", "stub-model"])
    sent = len(stub.requests)
    second = tmp_path / "second"
    second.mkdir()
    shutil.copy(first / "run.sqlite", second / "run.sqlite")
    with sqlite3.connect(second / "run.sqlite") as db:  # forget everything but the model calls
        db.executescript("DELETE FROM files; DELETE FROM candidates; DELETE FROM decisions;")
    main(["build", str(WORD_FILE), "-o", str(second), "--model", "stub-model"])
    assert len(stub.requests) == sent
    assert rows(second / "questions.jsonl") == rows(first / "questions.jsonl")


def test_without_model_the_run_stays_offline_even_with_a_key(stub, tmp_path):
    out = tmp_path / "out"
    assert main(["build", str(WORD_FILE), "-o", str(out)]) == 0
    assert not stub.requests
    assert {row["mode"] for row in rows(out / "questions.jsonl")} == {"offline"}
    assert not (out / "model_usage.json").exists()


def test_batch_mode_generates_through_the_batch_api(stub, tmp_path):
    config = tmp_path / "fidelity.toml"
    batch = "[models]\nmodel = 'stub-model'\nbatch = true\nbatch_poll_seconds = 0\n"
    config.write_text(batch + DECLARED_PAGES_TOML)
    out = tmp_path / "out"
    assert main(["--config", str(config), "build", str(WORD_FILE), "-o", str(out)]) == 0
    assert not drafting_requests(stub)  # (the filters' calls are not batched)
    assert len([r for r in stub.requests if r["path"] == "/v1/batches"]) >= 2
    produced = rows(out / "questions.jsonl") + rows(out / "rejected.jsonl")
    assert {"model:text", "model:facts"} <= {row["generator"] for row in produced}
    report = json.loads((out / "model_usage.json").read_text())
    assert report["generation"]["model:text: drafted"] > 0
    assert "model:text: no draft (model call failed)" not in report["generation"]
