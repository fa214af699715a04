"""Re-asks asked together: the same decisions as one at a time, no question giving another's
answer away, failed requests leaving checks undone, and replays from the recorded requests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fidelity.cli import main as fidelity
from fidelity.core.config import Config, FilterSettings, ModelsConfig
from fidelity.core.document import Document
from fidelity.core.store import RunStore
from fidelity.core.views import ViewContext
from fidelity.pipeline import default_stages, filter_candidates, store_outcomes
from fidelity.replay import replay_file
from filters.batching import Ask, apart, batches
from filters.groundedness import Outcome
from generators.draft import candidate
from tests.filters.test_filters_llm import make_candidates, make_document, stub_model
from tests.support.numbered import each_alone, questions_of
from tests.support.openai_stub import StubServer, error, json_reply, schema_name, text_of
from tests.support.reading_model import reading_model

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
MODEL = ModelsConfig(model="stub-model", max_retries=0)
# A question that names the answer of the "leaky" one (who chaired the board), and is
# answered by the text the other one is about.
NAMING = "When was the project approved by the board that Alice Moreno chaired?"


def with_naming(document: Document) -> list:
    candidates = make_candidates(document)
    naming = candidate(
        document, document.artifact("txt-1"), "naming", NAMING, ["12 March 2021"], "12 March 2021"
    )
    return [*candidates.values(), naming]


def run(document: Document, candidates: list, store: RunStore, per_request: int) -> list[Outcome]:
    config = Config(models=MODEL, filters=FilterSettings(batch_questions=per_request))
    stages, _ = default_stages(config, store, store.path.parent)
    store.set_meta("mode", stages.mode)
    outcomes = filter_candidates(document, candidates, stages)
    with store.transaction():
        store.put_file(document.sha256, document.source, "done", document=document)
        store_outcomes(store, outcomes)
    return outcomes


def settled(outcomes: list[Outcome]) -> list[tuple]:
    """What a candidate's checks decided, without the ids of the calls behind them."""
    return [
        (
            outcome.candidate.id,
            outcome.status,
            outcome.rejected_by,
            [
                (d.check, d.view, d.context_hash, d.answered, d.match, d.verdict)
                for d, _ in outcome.decisions
            ],
        )
        for outcome in outcomes
    ]


def asked_together(stub: StubServer) -> list[list[str]]:
    return [
        [question for _, question in questions_of(text_of(r["json"]))]
        for r in stub.chat_requests()
        if schema_name(r["json"]) == "ReAnswers"
    ]


@pytest.fixture
def endpoint(monkeypatch):
    with StubServer(each_alone(stub_model)) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-batching-test-key")
        yield server


def test_a_question_stating_another_answer_is_asked_apart(tmp_path):
    document = make_document(tmp_path)
    candidates = with_naming(document)
    leaky, naming = candidates[-2], candidates[-1]
    assert not apart(leaky, naming) and apart(candidates[0], naming)
    empty = ViewContext("no-context", "")
    full = ViewContext("full", "the document")
    asks = [Ask(c, empty, "no-context") for c in candidates]
    asks += [Ask(c, full, "answerable:full") for c in candidates]
    grouped = batches(asks, size=20)
    together = [{asks[i].candidate.id for i in group} for group in grouped]
    assert all(
        {asks[i].check for i in group} in ({"no-context"}, {"answerable:full"}) for group in grouped
    )
    assert not any({leaky.id, naming.id} <= group for group in together)
    assert len(grouped) == 4  # per context: the naming question joins no batch with the leaky one
    assert all(len(group) <= 3 for group in batches(asks, size=3))


def test_asking_together_decides_as_asking_one_at_a_time(endpoint, tmp_path):
    document = make_document(tmp_path)
    candidates = with_naming(document)
    alone = run(document, candidates, RunStore(tmp_path / "alone.sqlite"), per_request=1)
    sent_alone = len(endpoint.chat_requests())
    assert asked_together(endpoint) == []
    store = RunStore(tmp_path / "together.sqlite")
    together = run(document, candidates, store, per_request=20)
    sent_together = len(endpoint.chat_requests()) - sent_alone
    assert settled(together) == settled(alone)
    assert {o.status for o in together} >= {"kept", "rejected"}
    assert sent_together < sent_alone
    groups = asked_together(endpoint)
    assert groups and max(len(group) for group in groups) > 2
    assert not any({NAMING, "Who chaired the steering board?"} <= set(group) for group in groups)
    # Every decision names the request its answer came from, and a replay from the records
    # alone (the whole file, or one candidate: asked with others, replayed alone) agrees.
    for outcome in together:
        for decision, _ in outcome.decisions:
            if decision.check.startswith(("no-context", "answerable:")):
                assert store.model_call(decision.model_call.split(",")[0]) is not None
    assert replay_file(store, document.sha256, tmp_path, Config()).differences == []
    one = together[0].candidate.id
    assert replay_file(store, document.sha256, tmp_path, Config(), only=one).differences == []


def test_a_failed_request_leaves_each_of_its_questions_undone(tmp_path, monkeypatch):
    """A request of numbered questions that fails leaves each of them `skipped` and its
    candidate incomplete; a reply that skips a number leaves only that question undone."""

    def failing(body: dict) -> dict:
        if schema_name(body) != "ReAnswers":
            return stub_model(body)
        questions = questions_of(text_of(body))
        if "Document:" not in text_of(body):  # the no-context questions: the request fails
            return error(500, "overloaded")
        answers = each_alone(stub_model)(body)
        content = json.loads(answers["json"]["choices"][0]["message"]["content"])
        content["answers"] = [a for a in content["answers"] if a["number"] != len(questions)]
        return json_reply(content)

    document = make_document(tmp_path)
    candidates = list(make_candidates(document).values())
    with StubServer(failing) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-batching-test-key")
        outcomes = run(document, candidates, RunStore(tmp_path / "run.sqlite"), per_request=20)
    calls = set()
    for outcome in outcomes:
        guess, (asked, _), *_ = outcome.decisions
        assert asked.check == "no-context" and asked.verdict == "skipped"
        assert "no usable model answer" in asked.reason and "overloaded" in asked.reason
        assert outcome.status == "incomplete"
        calls.add(asked.model_call)
    assert len(calls) == 1  # one request asked them all
    unanswered = [
        decision
        for outcome in outcomes
        for decision, _ in outcome.decisions[2:]
        if "has no answer" in decision.reason
    ]
    assert unanswered and all(d.verdict in ("skipped", "pass", "unverified") for d in unanswered)
    assert all(d.model_call for d in unanswered)


@pytest.mark.slow
def test_a_fixture_build_keeps_and_drops_alike_asked_together_or_alone(tmp_path, monkeypatch):
    """The bundled deck in model mode against the deterministic reading model."""
    with StubServer(reading_model) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-batching-test-key")
        monkeypatch.chdir(tmp_path)
        results = {}
        for per_request in (1, 20):
            config = tmp_path / f"{per_request}.toml"
            config.write_text(
                '[models]\nmodel = "stub-model"\nmax_retries = 0\n'
                f"[filters]\nbatch_questions = {per_request}\n"
            )
            out = tmp_path / f"out-{per_request}"
            deck = FIXTURES / "garden_review.pptx"
            assert fidelity(["--config", str(config), "build", str(deck), "-o", str(out)]) == 0
            rows = [
                json.loads(line)
                for name in ("questions", "rejected", "incomplete")
                for line in (out / f"{name}.jsonl").read_text().splitlines()
            ]
            results[per_request] = {
                row["id"]: (row["status"], [(c["check"], c["verdict"]) for c in row["checks"]])
                for row in rows
            }
            usage = json.loads((out / "model_usage.json").read_text())["this_run"]
            results[f"calls {per_request}"] = usage["filter / stub-model"]["calls"]
    assert results[1] == results[20] and len(results[1]) > 20
    assert results["calls 20"] * 2 < results["calls 1"]
