"""Batch API mode for generation: rounds through /v1/files and /v1/batches, results as records."""

from __future__ import annotations

import json

import pytest
from pydantic import BaseModel

from fidelity.core.config import ModelsConfig
from fidelity.core.llm import LLMClient, user
from fidelity.core.llm.batch import META_KEY, Collector, _submit, prefetch
from fidelity.core.store import RunStore
from tests.support.openai_stub import StubServer, completion, json_reply, text_of


class Pick(BaseModel):
    choice: str
    count: int


@pytest.fixture
def stub():
    with StubServer(lambda body: json_reply({"choice": text_of(body)[-1:], "count": 1})) as server:
        yield server


def make_client(stub: StubServer, tmp_path, store: RunStore | None = None) -> LLMClient:
    settings = ModelsConfig(
        model="gen-model",
        base_url=stub.base_url,
        batch=True,
        batch_poll_seconds=0,
        prices={"gen-model": {"input": 2.0, "output": 10.0}},
    )
    store = store or RunStore(tmp_path / "run.sqlite")
    return LLMClient(settings, store, tmp_path, sleep=lambda s: None, notify=lambda t: None)


def two_steps(client: LLMClient, seen: list) -> None:
    """A generator that asks a second question about the first answer."""
    client.accounting.count("two-steps", "ran")
    first = client.complete("generator", [user("step a")], Pick)
    seen.append(first)
    if first.ok:
        client.complete("generator", [user(f"step b after {first.parsed.choice}")], Pick)


def test_generation_runs_in_batch_rounds_then_from_records(stub, tmp_path):
    client = make_client(stub, tmp_path)
    seen: list = []
    assert prefetch(client, lambda: two_steps(client, seen)) == 2
    assert seen[0].pending and seen[-1].ok
    assert not stub.chat_requests()
    uploads = [r for r in stub.requests if r["path"] == "/v1/files"]
    assert len(uploads) == 2
    first_file = stub.files["file-1"].decode().splitlines()
    line = json.loads(first_file[0])
    assert line["url"] == "/v1/chat/completions"
    assert line["body"]["response_format"]["json_schema"]["name"] == "Pick"
    assert line["body"]["messages"][-1]["content"] == "step a"
    created = [r["json"] for r in stub.requests if r["path"] == "/v1/batches"]
    assert created[0]["completion_window"] == "24h"
    assert client.store.meta(META_KEY) is None
    # The generation pass proper is served entirely from the records.
    assert not client.accounting.generation  # collection passes are not counted
    seen.clear()
    two_steps(client, seen)
    assert seen[0].cached and not stub.chat_requests()
    assert client.accounting.generation["two-steps: ran"] == 1
    client.finish(tmp_path)
    report = json.loads((tmp_path / "model_usage.json").read_text())
    # Two calls at $0.0004 each, half price in batch mode.
    assert report["this_run_cost_usd"] == pytest.approx(0.0004)


def test_malformed_batch_reply_is_repaired_in_the_next_round(stub, tmp_path):
    stub.script.append(completion("no json here"))
    client = make_client(stub, tmp_path)
    replies: list = []
    rounds = prefetch(
        client, lambda: replies.append(client.complete("generator", [user("x")], Pick))
    )
    assert rounds == 2 and replies[-1].ok
    repair_body = json.loads(stub.files["file-3"].decode().splitlines()[0])["body"]
    assert "not JSON" in repair_body["messages"][-1]["content"]


def test_a_killed_run_resumes_its_batch_instead_of_resubmitting(stub, tmp_path):
    client = make_client(stub, tmp_path)
    collector = Collector()
    client.collector = collector
    client.complete("generator", [user("step a")], Pick)
    client.collector = None
    _submit(client, collector)  # the run dies here, the batch is in flight
    client.store.close()
    restarted = make_client(stub, tmp_path, RunStore(tmp_path / "run.sqlite"))
    replies: list = []
    rounds = prefetch(
        restarted, lambda: replies.append(restarted.complete("generator", [user("step a")], Pick))
    )
    assert rounds == 0 and replies[-1].ok
    assert len([r for r in stub.requests if r["path"] == "/v1/batches"]) == 1


def test_budget_stops_a_round_from_being_submitted(stub, tmp_path):
    client = make_client(stub, tmp_path)
    client.accounting.max_calls = 0
    assert prefetch(client, lambda: client.complete("generator", [user("x")], Pick)) == 0
    assert not stub.requests
