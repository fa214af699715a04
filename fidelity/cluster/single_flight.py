"""The driver's LLMClient as the nodes see it: concurrent identical requests are sent once.

Tasks on different workers can ask the same thing at the same moment; both would
miss the run store's cache and both would call the endpoint. `OncePerRequest`
holds one lock per record key (`LLMClient.request_key`, the key the run store caches
the reply under) while a request is in flight, so the second caller waits and then
reads the first one's recorded reply from the cache. Pictures a
shipped task's call carries are first written under OUT (`pictures.store_pictures`).
Everything else (cache, records, budget, concurrency limit) is the wrapped client's.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

from fidelity.cluster.pictures import store_pictures
from fidelity.core.llm.client import LLMClient, Reply
from fidelity.core.llm.images import ImageUnavailable
from fidelity.core.llm.messages import Message


class OncePerRequest:
    """`complete`, `accounting` and `say_once` of a LLMClient, one call per request in flight."""

    def __init__(self, client: LLMClient) -> None:
        self.client = client
        self.accounting = client.accounting
        self._guard = threading.Lock()
        self._in_flight: dict[str, tuple[threading.Lock, int]] = {}

    def complete(
        self,
        role: str,
        messages: Sequence[Message],
        schema: type[BaseModel] | None = None,
        *,
        stage: str | None = None,
        params: dict[str, Any] | None = None,
    ) -> Reply:
        messages = store_pictures(messages, self.client.images.root)  # from shipped tasks
        try:
            key = self.client.request_key(role, messages, schema, params)
        except ImageUnavailable:  # the client answers with the error: nothing to share
            return self.client.complete(role, messages, schema, stage=stage, params=params)
        with self._guard:
            lock, waiting = self._in_flight.get(key, (threading.Lock(), 0))
            self._in_flight[key] = (lock, waiting + 1)
        try:
            with lock:
                return self.client.complete(role, messages, schema, stage=stage, params=params)
        finally:
            with self._guard:
                lock, waiting = self._in_flight[key]
                if waiting == 1:
                    del self._in_flight[key]
                else:
                    self._in_flight[key] = (lock, waiting - 1)

    def say_once(self, text: str) -> None:
        self.client.say_once(text)
