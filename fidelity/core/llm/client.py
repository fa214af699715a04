"""The model client every stage uses: any OpenAI-compatible endpoint, every call a record.

`complete(role, messages, schema)` picks the role's model, looks the call up in the
run store by its key (model, messages with image hashes, parameters, schema) and
only calls the endpoint on a miss. Replies are validated against the pydantic
schema; a malformed reply gets one repair call carrying the validation error, and a
second failure is recorded and returned as an error: nothing here raises into the
run. Retries back off on 429/5xx/timeouts, on reset connections and on truncated,
malformed or non-JSON bodies, and honour Retry-After; a budget cap
stops new calls; the API key is read from the environment and never recorded.
"""

from __future__ import annotations

import os
import random
import re
import sys
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel

from fidelity.core.config import ModelsConfig
from fidelity.core.llm import structured
from fidelity.core.llm.accounting import Accounting, usage_of
from fidelity.core.llm.images import ImageLoader, ImageUnavailable
from fidelity.core.llm.messages import Message, assistant, call_key, recorded, user, wire
from fidelity.core.store import RunStore

ROLE_STAGE = {"generator": "generate", "answerer": "filter", "judge": "filter", "grader": "grade"}
MAX_RETRY_AFTER = 600.0
WIRE_KEYS = ("model", "messages", "response_format")
REPAIR = (
    "Your previous reply could not be used: {problem}. "
    "Reply again with only the JSON object that matches the schema."
)
_KEY_LIKE = re.compile(r"\b(sk|key)-[A-Za-z0-9_*\-.]{4,}")

T = TypeVar("T")
R = TypeVar("R")


@dataclass
class Reply:
    """A model reply: the parsed object (when a schema was given), the raw text, the record id."""

    parsed: Any = None
    text: str = ""
    record_id: str = ""
    error: str = ""
    cached: bool = False
    pending: bool = False

    @property
    def ok(self) -> bool:
        return not self.error and not self.pending


class Collector(Protocol):
    """Takes calls instead of sending them (batch mode, see fidelity.core.llm.batch)."""

    def accepts(self, stage: str) -> bool: ...

    def add(
        self, key: str, stage: str, model: str, request: dict[str, Any], body: dict[str, Any]
    ) -> None: ...


def concurrent_map(fn: Callable[[T], R], items: Iterable[T], concurrency: int) -> list[R]:
    """`fn` over `items` on up to `concurrency` threads, results in input order."""
    work = list(items)
    workers = min(max(1, concurrency), len(work))
    if workers <= 1:
        return [fn(item) for item in work]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(fn, work))


class LLMClient:
    """One client per run, shared by every stage and thread."""

    def __init__(
        self,
        settings: ModelsConfig,
        store: RunStore,
        media_root: Path,
        *,
        replay_only: bool = False,
        sleep: Callable[[float], None] = time.sleep,
        notify: Callable[[str], None] | None = None,
    ) -> None:
        if settings.structured_output not in structured.MODES:
            raise ValueError(f"structured_output must be one of {', '.join(structured.MODES)}")
        self.settings = settings
        self.store = store
        self.images = ImageLoader(media_root, settings.image_max_side)
        self.replay_only = replay_only
        self.accounting = Accounting(settings.prices, settings.budget_usd, settings.max_calls)
        self.mode = settings.structured_output
        self.collector: Collector | None = None
        self.sleep = sleep
        self.notify = notify or (lambda text: print(f"fidelity: {text}", file=sys.stderr))
        self._slots = threading.BoundedSemaphore(max(1, settings.concurrency))
        self._store_lock = threading.Lock()
        self._api_lock = threading.Lock()
        self._api: Any = None
        self._disabled = ""
        self._said: set[str] = set()

    # the endpoint ---------------------------------------------------------------
    def api(self) -> Any:
        """The openai client (built on first use; never in replay-only mode)."""
        with self._api_lock:
            if self._api is None:
                import openai

                settings = self.settings
                key = os.environ.get(settings.api_key_env, "") or "unused"
                base_url = settings.base_url or os.environ.get("OPENAI_BASE_URL") or None
                timeout = settings.timeout
                if settings.api_version and base_url:
                    self._api = openai.AzureOpenAI(
                        azure_endpoint=base_url,
                        api_version=settings.api_version,
                        api_key=key,
                        max_retries=0,
                        timeout=timeout,
                    )
                elif settings.api_version:  # the endpoint from AZURE_OPENAI_ENDPOINT, if set
                    self._api = openai.AzureOpenAI(
                        api_version=settings.api_version,
                        api_key=key,
                        max_retries=0,
                        timeout=timeout,
                    )
                else:
                    self._api = openai.OpenAI(
                        base_url=base_url, api_key=key, max_retries=0, timeout=timeout
                    )
            return self._api

    def model_for(self, role: str) -> str:
        return self.settings.model_for(role)

    # calls ------------------------------------------------------------------------
    def complete(
        self,
        role: str,
        messages: Sequence[Message],
        schema: type[BaseModel] | None = None,
        *,
        stage: str | None = None,
        params: dict[str, Any] | None = None,
    ) -> Reply:
        """Ask the role's model; the reply's `parsed` is a `schema` instance when `ok`."""
        model = self.model_for(role)
        stage = stage or ROLE_STAGE.get(role, role)
        if not model:
            return Reply(error=f"no model configured for role {role!r}")
        msgs = _with_instruction(messages, schema)
        try:
            first = self._call(stage, model, msgs, schema, params)
            if schema is None or not first.ok:
                return first
            try:
                first.parsed = structured.parse(first.text, schema)
                return first
            except ValueError as problem:
                self._mark(first.record_id, f"invalid reply: {problem}")
                repair = [*msgs, assistant(first.text), user(REPAIR.format(problem=problem))]
            second = self._call(stage, model, repair, schema, params)
            if not second.ok:
                return second
            try:
                second.parsed = structured.parse(second.text, schema)
                return second
            except ValueError as problem:
                error = f"invalid reply after one repair: {problem}"
                self._mark(second.record_id, error)
                self.accounting.add_failure(stage, model)
                return Reply(text=second.text, record_id=second.record_id, error=error)
        except ImageUnavailable as error:
            return Reply(error=f"image not sendable: {error}")

    def request_key(
        self,
        role: str,
        messages: Sequence[Message],
        schema: type[BaseModel] | None = None,
        params: dict[str, Any] | None = None,
    ) -> str:
        """The record key of the call `complete` makes first for this request (raises
        ImageUnavailable when a picture cannot be read)."""
        schema_json = structured.strict_schema(schema) if schema else None
        msgs = _with_instruction(messages, schema)
        return call_key(self.model_for(role), msgs, self.params(params), schema_json, self.images)

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> list[R]:
        return concurrent_map(fn, items, self.settings.concurrency)

    def finish(self, out: Path) -> str:
        """Write OUT/model_usage.json and return the usage table for the end of the run."""
        with self._store_lock:
            recorded_usage = self.store.model_call_usage()
        return self.accounting.write(out, recorded_usage)

    # internals --------------------------------------------------------------------
    def params(self, extra: dict[str, Any] | None) -> dict[str, Any]:
        merged: dict[str, Any] = {
            "temperature": self.settings.temperature,
            "max_tokens": self.settings.max_output_tokens,
        }
        merged.update(extra or {})
        return {key: value for key, value in merged.items() if value is not None}

    def wire_body(
        self,
        model: str,
        messages: Sequence[Message],
        schema: type[BaseModel] | None,
        params: dict[str, Any],
        mode: str,
    ) -> dict[str, Any]:
        """The chat-completions request body as sent (images as data URLs)."""
        body: dict[str, Any] = {"model": model, "messages": wire(messages, self.images), **params}
        response_format = structured.response_format(schema, mode) if schema else None
        if response_format:
            body["response_format"] = response_format
        return body

    def record(
        self,
        key: str,
        stage: str,
        model: str,
        request: dict[str, Any],
        response: dict[str, Any] | None,
        usage: dict[str, Any],
        error: str = "",
    ) -> None:
        with self._store_lock:
            self.store.put_model_call(key, stage, model, request, response, usage, error)

    def lookup(self, key: str) -> dict[str, Any] | None:
        with self._store_lock:
            return self.store.model_call(key)

    def _call(
        self,
        stage: str,
        model: str,
        messages: list[Message],
        schema: type[BaseModel] | None,
        extra: dict[str, Any] | None,
    ) -> Reply:
        params = self.params(extra)
        schema_json = structured.strict_schema(schema) if schema else None
        key = call_key(model, messages, params, schema_json, self.images)
        stored = self.lookup(key)
        if stored and stored["response"]:
            self.accounting.add_cached(stage, model)
            return _reply(stored["response"], key, cached=True)
        if self.replay_only:
            return Reply(record_id=key, error="no recorded reply for this call (replay only)")
        request = {
            "model": model,
            "messages": recorded(messages, self.images),
            "params": params,
            "schema": {"name": structured.schema_name(schema), "json": schema_json}
            if schema
            else None,
        }
        if self.collector is not None and self.collector.accepts(stage):
            body = self.wire_body(model, messages, schema, params, self.mode)
            self.collector.add(key, stage, model, {**request, "response_format": self.mode}, body)
            return Reply(record_id=key, pending=True)
        if self._disabled:
            return Reply(record_id=key, error=self._disabled)
        body = self.wire_body(model, messages, schema, params, self.mode)
        refusal = self.accounting.reserve()
        if refusal:
            self.say_once(f"{refusal}: no new model calls will be made in this run")
            return Reply(record_id=key, error=f"not called: {refusal}")
        with self._slots:
            response, usage, error, mode = self._send(body, messages, schema)
        request["response_format"] = mode
        if response is None:
            self.accounting.add_failure(stage, model)
            self.record(key, stage, model, request, None, {}, error)
            return Reply(record_id=key, error=error)
        usage["cost_usd"] = self.accounting.cost(model, usage)
        self.record(key, stage, model, request, response, usage)
        self.accounting.add_call(stage, model, usage)
        return _reply(response, key, cached=False)

    def _send(
        self, body: dict[str, Any], messages: list[Message], schema: type[BaseModel] | None
    ) -> tuple[dict[str, Any] | None, dict[str, Any], str, str]:
        """(response, usage, error, structured-output mode used), retrying transient failures."""
        import openai

        attempt = 0
        mode = self.mode
        try:
            api = self.api()
        except (openai.OpenAIError, ValueError) as error:  # e.g. Azure without an endpoint
            self._disabled = f"the model client could not be set up ({self._describe(error)})"
            self.say_once(f"{self._disabled}; no model calls")
            return None, {}, self._disabled, mode
        while True:
            if mode != self.mode:  # the format was stepped down: rebuild the body
                mode = self.mode
                params = {k: v for k, v in body.items() if k not in WIRE_KEYS}
                body = self.wire_body(body["model"], messages, schema, params, mode)
            try:
                completion = api.chat.completions.create(**body, timeout=self.settings.timeout)
                if not getattr(completion, "choices", None):
                    return None, {}, "the endpoint's reply is not a chat completion", mode
                return response_of(completion), usage_of(completion.usage), "", mode
            except openai.BadRequestError as error:
                if schema is not None and self._downgrade(mode, error):
                    continue
                return None, {}, self._describe(error), mode
            except (openai.AuthenticationError, openai.PermissionDeniedError) as error:
                self._disabled = f"the endpoint refused the credentials ({self._describe(error)})"
                self.say_once(f"{self._disabled}; no further model calls")
                return None, {}, self._disabled, mode
            except openai.APIStatusError as error:
                status = error.status_code
                retryable = status in (408, 409, 429) or status >= 500
                failure: Exception = error
            except openai.APIConnectionError as error:  # includes APITimeoutError
                retryable, failure = True, error
            except openai.APIError as error:  # e.g. a reply that is not a chat completion
                retryable, failure = False, error
            except (ValueError, TypeError, AttributeError, KeyError) as error:
                # a truncated, malformed or non-JSON body (a connection that breaks mid-reply is
                # the client's own APIConnectionError, whatever transport it uses)
                retryable, failure = True, error
            if not retryable or attempt >= self.settings.max_retries:
                return None, {}, self._describe(failure), mode
            delay = retry_after(failure)
            if delay is None:
                base = min(self.settings.backoff_max, self.settings.backoff_base * 2**attempt)
                delay = base * (0.75 + random.random() / 2)
            self.sleep(delay)
            attempt += 1

    def _downgrade(self, mode: str, error: Exception) -> bool:
        """Step down json_schema -> json_object -> prompt when the endpoint rejects the format."""
        message = str(error).lower()
        if "response_format" not in message and "schema" not in message:
            return False
        following = {"json_schema": "json_object", "json_object": "prompt"}.get(mode)
        if following is None:
            return False
        self.mode = following
        self.say_once(f"the endpoint rejected response_format {mode}; using {following}")
        return True

    def _describe(self, error: Exception) -> str:
        status = getattr(error, "status_code", None)
        text = " ".join(str(error).split())[:300]
        secret = os.environ.get(self.settings.api_key_env, "")
        if secret:
            text = text.replace(secret, "***")
        text = _KEY_LIKE.sub(r"\1-***", text)
        return f"{type(error).__name__}{f' {status}' if status else ''}: {text}"

    def _mark(self, key: str, error: str) -> None:
        stored = self.lookup(key)
        if stored and stored["error"] != error:
            self.record(
                key,
                stored["stage"],
                stored["model"],
                stored["request"],
                stored["response"],
                stored["usage"],
                error,
            )

    def say_once(self, text: str) -> None:
        if text not in self._said:
            self._said.add(text)
            self.notify(text)


def _with_instruction(messages: Sequence[Message], schema: type[BaseModel] | None) -> list[Message]:
    """The messages with the schema stated in the (first) system turn."""
    msgs = [dict(message) for message in messages]
    if schema is None:
        return msgs
    note = structured.instruction(schema)
    if msgs and msgs[0].get("role") == "system" and isinstance(msgs[0].get("content"), str):
        msgs[0]["content"] = f"{msgs[0]['content']}\n\n{note}"
        return msgs
    return [{"role": "system", "content": note}, *msgs]


def response_of(completion: Any) -> dict[str, Any]:
    """The parts of a chat completion worth recording."""
    choice = completion.choices[0]
    message = getattr(choice, "message", None)
    return {
        "id": completion.id,
        "model": completion.model,
        "content": (message.content if message else None) or "",
        "finish_reason": getattr(choice, "finish_reason", None),
        "refusal": getattr(message, "refusal", None),
    }


def _reply(response: dict[str, Any], key: str, cached: bool) -> Reply:
    content = response.get("content") or ""
    if content:
        return Reply(text=content, record_id=key, cached=cached)
    reason = response.get("refusal") or f"finish_reason={response.get('finish_reason')}"
    return Reply(record_id=key, cached=cached, error=f"empty reply ({reason})")


def retry_after(error: Exception) -> float | None:
    """Seconds the server asked us to wait (Retry-After / retry-after-ms), if it said."""
    response = getattr(error, "response", None)
    headers = getattr(response, "headers", None)
    if not headers:
        return None
    millis = headers.get("retry-after-ms")
    value = headers.get("retry-after")
    try:
        if millis is not None:
            return min(MAX_RETRY_AFTER, max(0.0, float(millis) / 1000))
        if value is None:
            return None
        return min(MAX_RETRY_AFTER, max(0.0, float(value)))
    except ValueError:
        try:
            moment = parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        return min(MAX_RETRY_AFTER, max(0.0, moment.timestamp() - time.time()))
