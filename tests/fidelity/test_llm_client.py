"""The model client against a local OpenAI-compatible stub: requests, records, retries, budget."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from PIL import Image
from pydantic import BaseModel

from fidelity.core.config import Config, ModelsConfig
from fidelity.core.llm import LLMClient, system, user
from fidelity.core.store import RunStore
from tests.support.openai_stub import (
    StubServer,
    completion,
    error,
    faulty,
    json_reply,
    schema_name,
    slow,
)

SECRET = "sk-test-0123456789abcdef"


class Pick(BaseModel):
    choice: str
    count: int


@pytest.fixture
def stub():
    with StubServer() as server:
        yield server


@pytest.fixture(autouse=True)
def api_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


class Harness:
    def __init__(self, stub: StubServer, root: Path, **settings) -> None:
        values = {
            "model": "gen-model",
            "base_url": stub.base_url,
            "prices": {"gen-model": {"input": 2.0, "output": 10.0}},
            "timeout": 5.0,
            **settings,
        }
        self.settings = ModelsConfig(**values)
        self.root = root
        self.store = RunStore(root / "run.sqlite")
        self.sleeps: list[float] = []
        self.notes: list[str] = []
        self.client = self.new_client()

    def new_client(self, **kwargs) -> LLMClient:
        return LLMClient(
            self.settings,
            self.store,
            self.root,
            sleep=self.sleeps.append,
            notify=self.notes.append,
            **kwargs,
        )

    def ask(self, text: str = "pick one", schema=Pick, role: str = "generator", **kwargs):
        return self.client.complete(role, [system("You pick."), user(text)], schema, **kwargs)


@pytest.fixture
def harness(stub, tmp_path):
    return Harness(stub, tmp_path)


def test_request_carries_schema_and_reply_is_parsed(stub, harness):
    stub.script.append(json_reply({"choice": "red", "count": 2}))
    reply = harness.ask("pick a colour")
    assert reply.ok and reply.parsed == Pick(choice="red", count=2)
    (request,) = stub.chat_requests()
    body = request["json"]
    assert body["model"] == "gen-model"
    assert body["response_format"]["type"] == "json_schema"
    schema = body["response_format"]["json_schema"]
    assert schema["name"] == "Pick" and schema["strict"] is True
    assert schema["schema"]["required"] == ["choice", "count"]
    assert schema["schema"]["additionalProperties"] is False
    assert body["messages"][0]["role"] == "system"
    assert "JSON schema" in body["messages"][0]["content"]
    assert body["messages"][1] == {"role": "user", "content": "pick a colour"}
    assert request["headers"]["authorization"] == f"Bearer {SECRET}"


def test_second_run_sends_nothing_and_key_is_never_stored(stub, harness, tmp_path):
    stub.script.append(json_reply({"choice": "red", "count": 2}))
    first = harness.ask()
    harness.store.close()
    again = Harness(stub, tmp_path)
    second = again.ask()
    assert len(stub.chat_requests()) == 1
    assert second.cached and second.parsed == first.parsed
    assert second.record_id == first.record_id
    record = again.store.model_call(first.record_id)
    assert record["request"]["messages"][1]["content"] == "pick one"
    assert record["usage"]["prompt_tokens"] == 100
    again.store.close()
    for path in tmp_path.glob("run.sqlite*"):
        assert SECRET.encode() not in path.read_bytes()
        assert b"authorization" not in path.read_bytes().lower()


def test_changed_parameters_make_a_new_call(stub, harness):
    stub.script.extend([json_reply({"choice": "a", "count": 1})] * 2)
    harness.ask()
    harness.ask(params={"temperature": 0.7})
    assert len(stub.chat_requests()) == 2
    assert stub.chat_requests()[1]["json"]["temperature"] == 0.7


def test_malformed_reply_is_repaired_once_with_the_validation_error(stub, harness):
    stub.script.extend([completion("sure! red"), json_reply({"choice": "red", "count": 3})])
    reply = harness.ask()
    assert reply.ok and reply.parsed.count == 3
    first, repair = stub.chat_requests()
    messages = repair["json"]["messages"]
    assert messages[-2] == {"role": "assistant", "content": "sure! red"}
    assert "not JSON" in messages[-1]["content"]
    assert "invalid reply" in harness.store.model_call(first_key(harness, first))["error"]


def first_key(harness: Harness, request: dict) -> str:
    """The record key of a request the stub saw (the record whose request matches)."""
    rows = harness.store.db.execute("SELECT key, request FROM model_calls").fetchall()
    for key, raw in rows:
        if json.loads(raw)["messages"] == request["json"]["messages"]:
            return key
    raise AssertionError("no record for that request")


def test_twice_malformed_is_recorded_and_returned_not_raised(stub, harness):
    stub.script.extend([completion("{}"), completion('{"choice": "x"}')])
    reply = harness.ask()
    assert not reply.ok and reply.parsed is None
    assert "after one repair" in reply.error and "count" in reply.error
    assert "after one repair" in harness.store.model_call(reply.record_id)["error"]
    again = harness.new_client()
    harness.client = again
    replayed = harness.ask()
    assert replayed.error == reply.error and len(stub.chat_requests()) == 2


def test_fenced_json_is_accepted(stub, harness):
    stub.script.append(completion('```json\n{"choice": "b", "count": 1}\n```'))
    assert harness.ask().parsed == Pick(choice="b", count=1)


def test_rate_limit_honours_retry_after_and_server_errors_back_off(stub, harness):
    stub.script.extend(
        [error(429, retry_after="2"), error(503), json_reply({"choice": "c", "count": 1})]
    )
    reply = harness.ask()
    assert reply.ok
    assert len(stub.chat_requests()) == 3
    assert harness.sleeps[0] == 2.0
    assert 0 < harness.sleeps[1] <= harness.settings.backoff_max


def test_slow_reply_times_out_and_is_retried(stub, tmp_path):
    harness = Harness(stub, tmp_path, timeout=0.3)
    stub.script.extend(
        [
            slow(1.5, json_reply({"choice": "late", "count": 0})),
            json_reply({"choice": "ok", "count": 1}),
        ]
    )
    reply = harness.ask()
    assert reply.parsed == Pick(choice="ok", count=1)
    assert len(harness.sleeps) == 1


def test_retries_are_bounded_and_failure_is_recorded_not_cached(stub, tmp_path):
    harness = Harness(stub, tmp_path, max_retries=2)
    stub.script.extend([error(500)] * 3 + [json_reply({"choice": "d", "count": 4})])
    reply = harness.ask()
    assert not reply.ok and "500" in reply.error
    assert harness.store.model_call(reply.record_id)["response"] is None
    assert harness.ask().parsed.count == 4  # a failure is retried on the next run


def test_client_errors_are_not_retried(stub, harness):
    stub.script.append(error(404, "model not found"))
    reply = harness.ask()
    assert "NotFoundError 404" in reply.error and len(stub.chat_requests()) == 1


def test_rejected_credentials_stop_further_calls(stub, harness):
    stub.script.append(error(401, f"Incorrect API key provided: {SECRET}"))
    first = harness.ask("one")
    second = harness.ask("two")
    assert "refused the credentials" in first.error and second.error == first.error
    assert len(stub.chat_requests()) == 1
    assert SECRET not in first.error and not any(SECRET in note for note in harness.notes)


def test_json_schema_rejection_falls_back_to_json_object(stub, harness):
    stub.script.extend(
        [
            error(400, "response_format json_schema is not supported"),
            json_reply({"choice": "e", "count": 5}),
        ]
    )
    reply = harness.ask()
    assert reply.ok
    assert stub.chat_requests()[1]["json"]["response_format"] == {"type": "json_object"}
    assert any("json_object" in note for note in harness.notes)


def test_images_are_sent_as_data_urls_and_keyed_by_content(stub, harness, tmp_path):
    media = tmp_path / "media"
    media.mkdir()
    Image.new("RGB", (40, 20), "red").save(media / "chart.png")
    Image.new("RGB", (3000, 100), "blue").save(media / "wide.bmp")
    stub.responder = lambda body: json_reply({"choice": "img", "count": 1})
    message = user("what is shown?", ["media/chart.png", "media/wide.bmp"], detail="low")
    reply = harness.client.complete("generator", [message], Pick)
    assert reply.ok
    parts = stub.chat_requests()[0]["json"]["messages"][1]["content"]
    assert parts[0] == {"type": "text", "text": "what is shown?"}
    png = parts[1]["image_url"]
    assert png["detail"] == "low"
    assert png["url"].startswith("data:image/png;base64,")
    assert base64.b64decode(png["url"].split(",", 1)[1]) == (media / "chart.png").read_bytes()
    converted = parts[2]["image_url"]["url"]
    assert converted.startswith("data:image/png;base64,")  # BMP re-encoded, shrunk
    record = harness.store.model_call(reply.record_id)
    stored = record["request"]["messages"][1]["content"][1]
    assert stored["path"] == "media/chart.png" and len(stored["sha256"]) == 64
    assert "base64" not in json.dumps(record["request"])
    Image.new("RGB", (40, 20), "green").save(media / "chart.png")
    harness.client.complete("generator", [message], Pick)
    assert len(stub.chat_requests()) == 2  # new image content, new key


def test_unreadable_or_missing_image_is_an_error_not_a_crash(stub, harness, tmp_path):
    (tmp_path / "broken.png").write_bytes(b"not an image")
    for name in ("broken.png", "missing.png"):
        reply = harness.client.complete("generator", [user("x", [name])], Pick)
        assert "image not sendable" in reply.error
    assert not stub.chat_requests() and harness.client.accounting.started == 0


def test_call_cap_stops_new_calls_and_says_so(stub, tmp_path):
    harness = Harness(stub, tmp_path, max_calls=1)
    stub.responder = lambda body: json_reply({"choice": "f", "count": 1})
    assert harness.ask("one").ok
    refused = harness.ask("two")
    assert "call cap" in refused.error
    assert harness.ask("one").ok  # recorded work is still served
    assert len(stub.chat_requests()) == 1
    assert sum("no new model calls" in note for note in harness.notes) == 1
    text = harness.client.finish(tmp_path)
    report = json.loads((tmp_path / "model_usage.json").read_text())
    assert report["budget"]["calls_not_made"] == 1
    assert "calls were not made" in text


def test_cost_budget_and_totals(stub, tmp_path):
    # 100 prompt tokens at $2/M + 20 completion tokens at $10/M = $0.0004 per call.
    harness = Harness(stub, tmp_path, budget_usd=0.0007)
    stub.responder = lambda body: json_reply({"choice": "g", "count": 1})
    results = [harness.ask(f"q{i}") for i in range(4)]
    assert [r.ok for r in results] == [True, True, False, False]
    assert len(stub.chat_requests()) == 2
    harness.client.finish(tmp_path)
    report = json.loads((tmp_path / "model_usage.json").read_text())
    tally = report["this_run"]["generate / gen-model"]
    assert tally["calls"] == 2 and tally["prompt_tokens"] == 200
    assert report["this_run_cost_usd"] == pytest.approx(0.0008)
    assert report["all_recorded_calls"]["generate / gen-model"]["cost_usd"] == pytest.approx(0.0008)


def test_cached_replies_cost_nothing_this_run(stub, harness, tmp_path):
    stub.responder = lambda body: json_reply({"choice": "h", "count": 1})
    harness.ask()
    harness.client = harness.new_client()
    harness.ask()
    harness.client.finish(tmp_path)
    report = json.loads((tmp_path / "model_usage.json").read_text())
    assert report["this_run"]["generate / gen-model"]["cached"] == 1
    assert report["this_run_cost_usd"] == 0
    assert report["all_recorded_calls"]["generate / gen-model"]["calls"] == 1


def test_per_role_models_and_stages(stub, tmp_path):
    harness = Harness(stub, tmp_path, roles={"answerer": "small-model", "grader": "judge-model"})
    stub.responder = lambda body: json_reply({"choice": body["model"], "count": 0})
    assert harness.ask(role="answerer").parsed.choice == "small-model"
    assert harness.ask(role="grader").parsed.choice == "judge-model"
    assert harness.ask(role="judge").parsed.choice == "gen-model"
    stages = [row[0] for row in harness.store.db.execute("SELECT stage FROM model_calls")]
    assert sorted(stages) == ["filter", "filter", "grade"]


def test_replay_only_never_touches_the_network(stub, harness, tmp_path):
    stub.script.append(json_reply({"choice": "i", "count": 9}))
    recorded = harness.ask()
    stub.requests.clear()
    replay = LLMClient(harness.settings, harness.store, tmp_path, replay_only=True)
    assert replay.complete("generator", [system("You pick."), user("pick one")], Pick).parsed == (
        recorded.parsed
    )
    missing = replay.complete("generator", [system("You pick."), user("other")], Pick)
    assert "replay only" in missing.error
    assert not stub.requests and replay._api is None


def test_plain_text_calls_without_schema(stub, harness):
    stub.script.append(completion("just text"))
    reply = harness.client.complete("answerer", [user("say something")])
    assert reply.ok and reply.text == "just text" and reply.parsed is None
    assert "response_format" not in stub.chat_requests()[0]["json"]


def test_concurrent_calls_are_all_recorded(stub, tmp_path):
    harness = Harness(stub, tmp_path, concurrency=4)
    stub.responder = lambda body: json_reply({"choice": body["messages"][1]["content"], "count": 0})
    replies = harness.client.map(lambda i: harness.ask(f"item {i}"), range(12))
    assert [r.parsed.choice for r in replies] == [f"item {i}" for i in range(12)]
    (count,) = harness.store.db.execute("SELECT COUNT(*) FROM model_calls").fetchone()
    assert count == 12


def test_azure_endpoint_uses_deployment_path_and_api_key_header(stub, tmp_path, monkeypatch):
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", "azure-secret")
    harness = Harness(
        stub,
        tmp_path,
        base_url=stub.root_url,
        api_version="2024-10-21",
        api_key_env="AZURE_OPENAI_API_KEY",
        model="my-deployment",
    )
    stub.script.append(json_reply({"choice": "az", "count": 1}))
    assert harness.ask().ok
    (request,) = stub.chat_requests()
    assert request["path"].startswith("/openai/deployments/my-deployment/chat/completions")
    assert "api-version=2024-10-21" in request["path"]
    assert request["headers"]["api-key"] == "azure-secret"


def test_base_url_from_environment(stub, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", stub.base_url)
    harness = Harness(stub, tmp_path, base_url="")
    stub.script.append(json_reply({"choice": "env", "count": 1}))
    assert harness.ask().ok and len(stub.chat_requests()) == 1


def test_models_section_of_the_configuration(tmp_path):
    path = tmp_path / "fidelity.toml"
    path.write_text(
        """
[run]
dedup_scope = "run"

[models]
model = "gpt-4o-mini"
base_url = "http://localhost:11434/v1"
concurrency = 2
budget_usd = 1.5

[models.roles]
grader = "gpt-4o"

[models.prices."gpt-4o-mini"]
input = 0.15
output = 0.6

[models.generation]
questions_per_chunk = 4

[models.generation.type_priority]
Font = 0.1
"""
    )
    config = Config.load(path)
    models = config.models
    assert config.dedup_scope == "run" and models.enabled
    assert models.model_for("grader") == "gpt-4o" and models.model_for("answerer") == "gpt-4o-mini"
    assert models.prices["gpt-4o-mini"]["output"] == 0.6
    assert models.generation.questions_per_chunk == 4
    assert models.generation.type_priority == {"Font": 0.1}
    assert "models" not in config.extra
    assert not Config().models.enabled
    path.write_text("[models]\nmodle = 'x'\n")
    with pytest.raises(ValueError, match="modle"):
        Config.load(path)


def test_schema_for_schema_name_helper():
    assert schema_name({"response_format": {"json_schema": {"name": "X"}}}) == "X"


def test_a_reply_that_is_not_a_completion_is_an_error(stub, harness):
    stub.script.append({"status": 200, "json": "not an object"})
    reply = harness.ask()
    assert not reply.ok and len(stub.chat_requests()) == 1


def test_azure_settings_without_endpoint_disable_calls(stub, tmp_path, monkeypatch):
    monkeypatch.delenv("AZURE_OPENAI_ENDPOINT", raising=False)
    harness = Harness(stub, tmp_path, base_url="", api_version="2024-10-21")
    reply = harness.ask()
    assert "could not be set up" in reply.error and not stub.requests


@pytest.mark.parametrize("fault", ["truncate", "cut", "reset", "garbage"])
def test_broken_replies_are_failed_calls_retried_then_recorded(stub, tmp_path, fault):
    harness = Harness(stub, tmp_path, max_retries=2)
    good = json_reply({"choice": "h", "count": 5})
    stub.script.extend([faulty(fault, good), faulty(fault, good), good])
    reply = harness.ask()
    assert reply.ok and reply.parsed.count == 5
    assert len(stub.chat_requests()) == 3 and len(harness.sleeps) == 2

    stub.script.extend([faulty(fault, good)] * 3)
    failed = harness.ask("again")
    assert not failed.ok and failed.error and len(stub.chat_requests()) == 6
    record = harness.store.model_call(failed.record_id)
    assert record["response"] is None and record["error"] == failed.error


class Sighting(BaseModel):
    answer: str
    sure: bool


def test_record_keys_are_those_recorded_before(tmp_path):
    """The run store caches replies under these keys: a change to how a request is keyed
    would make every earlier run's records unreachable (the values are the keys the
    client wrote before `call_key` became the one keying function)."""
    picture = tmp_path / "pic.png"
    picture.write_bytes(b"not decoded: only hashed into the key")
    store = RunStore(tmp_path / "run.sqlite")
    settings = ModelsConfig(model="stub-model", temperature=0.0)
    client = LLMClient(settings, store, tmp_path, replay_only=True)
    asked = [system("Answer from the picture."), user("What is shown?", [picture])]
    with_picture = client.complete("answerer", asked, Sighting, params={"seed": 7})
    plain = client.complete("generator", [user("Plain question, ünïcode")])
    assert with_picture.record_id == (
        "2124365d3f649cf8222b110ddfabfedb0ed6dab3f427d7092936ba2f652e07b2"
    )
    assert plain.record_id == "fcb2f222dd934e89f2ebe5409a4284ccde78e7eaf60db4eeb1176b3c439125b5"
    assert client.request_key("answerer", asked, Sighting, {"seed": 7}) == with_picture.record_id
    store.close()
