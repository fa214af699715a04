"""OpenAI Batch API mode for the generation stage.

Generation runs in rounds: during a round the client collects, instead of sending,
every generation call that has no record yet; the round's calls go to the endpoint
as one batch (a JSONL file, `/v1/batches`), and the results become ordinary records.
The next round re-runs generation, which now finds those records and asks its next
questions (answers after drafts, repairs after malformed replies); it ends when a
round collects nothing. The in-flight batch is kept in the run store's meta, so a
killed run resumes waiting on it instead of paying twice.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fidelity.core.llm.accounting import usage_of
from fidelity.core.llm.client import LLMClient

META_KEY = "llm:batch"
ENDPOINT = "/v1/chat/completions"
TERMINAL = {"completed", "failed", "expired", "cancelled"}


@dataclass
class Collector:
    """The calls a round would have sent, by key."""

    stages: frozenset[str] = frozenset({"generate"})
    requests: dict[str, dict[str, Any]] = field(default_factory=dict)
    bodies: dict[str, dict[str, Any]] = field(default_factory=dict)

    def accepts(self, stage: str) -> bool:
        return stage in self.stages

    def add(
        self, key: str, stage: str, model: str, request: dict[str, Any], body: dict[str, Any]
    ) -> None:
        self.requests[key] = {"stage": stage, "model": model, "request": request}
        self.bodies[key] = body


def prefetch(client: LLMClient, produce: Callable[[], object], max_rounds: int = 4) -> int:
    """Run `produce` (the generation over every pending document) in batch rounds.

    Returns the number of batches submitted. Stops early when the budget refuses.
    """
    import openai  # here, not at the top: a build without batch mode skips its 0.3 s import

    submitted = 0
    pending = client.store.meta(META_KEY)
    if pending:
        try:
            _finish(client, pending)
        except openai.APIError as error:
            client.say_once(f"could not resume batch {pending['id']} ({error}); submitting anew")
            client.store.set_meta(META_KEY, None)
    for _ in range(max_rounds):
        collector = Collector()
        client.collector = collector
        client.accounting.muted = True
        try:
            produce()
        finally:
            client.collector = None
            client.accounting.muted = False
        if not collector.requests:
            break
        refusal = ""
        for _key in collector.requests:
            refusal = client.accounting.reserve()
            if refusal:
                break
        if refusal:
            client.say_once(f"{refusal}: the generation batch was not submitted")
            break
        try:
            _finish(client, _submit(client, collector))
        except openai.APIError as error:
            client.say_once(f"batch mode failed ({error}); generation calls are sent one by one")
            break
        submitted += 1
    return submitted


def _submit(client: LLMClient, collector: Collector) -> dict[str, Any]:
    lines = [
        json.dumps({"custom_id": key, "method": "POST", "url": ENDPOINT, "body": body})
        for key, body in collector.bodies.items()
    ]
    payload = ("\n".join(lines) + "\n").encode()
    api = client.api()
    upload = api.files.create(file=("fidelity-batch.jsonl", io.BytesIO(payload)), purpose="batch")
    batch = api.batches.create(input_file_id=upload.id, endpoint=ENDPOINT, completion_window="24h")
    pending = {"id": batch.id, "requests": collector.requests}
    client.store.set_meta(META_KEY, pending)
    client.notify(f"submitted a generation batch of {len(lines)} calls ({batch.id})")
    return pending


def _finish(client: LLMClient, pending: dict[str, Any]) -> None:
    """Wait for the batch, record every result (or failure), forget the batch."""
    api = client.api()
    batch = api.batches.retrieve(pending["id"])
    while batch.status not in TERMINAL:
        client.sleep(client.settings.batch_poll_seconds)
        batch = api.batches.retrieve(pending["id"])
    requests: dict[str, dict[str, Any]] = pending["requests"]
    seen: set[str] = set()
    for file_id in (batch.output_file_id, batch.error_file_id):
        if not file_id:
            continue
        for line in api.files.content(file_id).text.splitlines():
            try:
                result = json.loads(line) if line.strip() else None
            except json.JSONDecodeError:  # a damaged line: its call is recorded as failed below
                continue
            if isinstance(result, dict):
                seen.add(_record_line(client, requests, result))
    for key, entry in requests.items():
        if key not in seen:
            error = f"batch {pending['id']} ended {batch.status} without a result for this call"
            client.record(key, entry["stage"], entry["model"], entry["request"], None, {}, error)
            client.accounting.add_failure(entry["stage"], entry["model"])
    client.store.set_meta(META_KEY, None)


def _record_line(
    client: LLMClient, requests: dict[str, dict[str, Any]], line: dict[str, Any]
) -> str:
    key = line.get("custom_id", "")
    entry = requests.get(key)
    if entry is None:
        return key
    stage, model, request = entry["stage"], entry["model"], entry["request"]
    response = line.get("response") or {}
    body = response.get("body") or {}
    if response.get("status_code") != 200 or not body.get("choices"):
        error = json.dumps(line.get("error") or body.get("error") or response)[:300]
        client.record(key, stage, model, request, None, {}, f"batch error: {error}")
        client.accounting.add_failure(stage, model)
        return key
    choice = body["choices"][0]
    message = choice.get("message") or {}
    recorded = {
        "id": body.get("id"),
        "model": body.get("model"),
        "content": message.get("content") or "",
        "finish_reason": choice.get("finish_reason"),
        "refusal": message.get("refusal"),
    }
    usage: dict[str, Any] = usage_of(body.get("usage"))
    usage["batch"] = True
    usage["cost_usd"] = client.accounting.cost(model, usage, client.settings.batch_discount)
    client.record(key, stage, model, request, recorded, usage)
    client.accounting.add_call(stage, model, usage)
    return key
