"""The driver's model client as cluster nodes reach it: identical requests in flight go once."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from fidelity.cluster.single_flight import OncePerRequest
from fidelity.core.config import ModelsConfig
from fidelity.core.llm import LLMClient
from fidelity.core.llm.messages import user
from fidelity.core.store import RunStore
from tests.support.openai_stub import StubServer, completion


def slow_reply(body: dict) -> dict:
    return {**completion("The answer is 42."), "delay": 0.5}


@pytest.fixture
def relay(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[StubServer, LLMClient, OncePerRequest]]:
    """A slow local endpoint, the driver's client on it and the single-flight relay."""
    with StubServer(slow_reply) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-single-flight-test")
        store = RunStore(tmp_path / "run.sqlite")
        client = LLMClient(ModelsConfig(model="stub-model", concurrency=4), store, tmp_path)
        yield server, client, OncePerRequest(client)
        store.close()


def test_identical_requests_in_flight_together_are_sent_once(relay):
    server, _, once = relay

    def ask(question: str):
        return once.complete("generator", [user(question)])

    with ThreadPoolExecutor(4) as pool:
        replies = list(pool.map(ask, ["same question"] * 4))
    assert [reply.text for reply in replies] == ["The answer is 42."] * 4
    assert len(server.chat_requests()) == 1
    assert sum(reply.cached for reply in replies) == 3  # the others read the record
    assert ask("another question").ok
    assert len(server.chat_requests()) == 2


def test_requests_that_differ_only_in_stage_share_one_record_and_one_call(relay):
    """The relay waits on the record key (the stage is not part of it): the second caller
    reads the first one's record instead of calling again."""
    server, client, once = relay

    def ask(stage: str):
        return once.complete("generator", [user("same question")], stage=stage)

    with ThreadPoolExecutor(2) as pool:
        replies = list(pool.map(ask, ["generate", "regenerate"]))
    assert len(server.chat_requests()) == 1
    assert {reply.record_id for reply in replies} == {
        client.request_key("generator", [user("same question")])
    }


def test_a_missing_picture_is_the_clients_error_not_the_relays(tmp_path):
    store = RunStore(tmp_path / "run.sqlite")
    client = LLMClient(ModelsConfig(model="stub-model"), store, tmp_path, replay_only=True)
    reply = OncePerRequest(client).complete("generator", [user("see", [tmp_path / "gone.png"])])
    assert reply.error.startswith("image not sendable: gone.png")
    store.close()
