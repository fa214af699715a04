"""The interfaces of the model client: what answers a request, and what the stages use.

Every client, proxy and wrapper implements `Completer` (the driver's LLMClient, the worker's
RemoteModelClient, the Ray single-flight and picture relays; mypy checks each where it is
passed as one, the relays to the ServiceHost that serves them); generators and filters are
annotated with `ModelClient`, which a worker's proxy satisfies as well as the driver's client,
so they never depend on one concrete class. The driver-side LLMService is no Completer: it
takes a connection's positional arguments and calls the Completer it serves.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel

from fidelity.core.config import ModelsConfig
from fidelity.core.llm.client import Reply
from fidelity.core.llm.images import ImageLoader
from fidelity.core.llm.messages import Message

T = TypeVar("T")
R = TypeVar("R")


class Counter(Protocol):
    """Counts a generator's events in the run's model accounting."""

    def count(self, generator: str, event: str, amount: int = 1) -> None: ...


class Completer(Protocol):
    """Anything that answers a model request for a role (the reply's `parsed` is a `schema`
    instance when `ok`), counts into the run's accounting and passes a notice on once."""

    @property
    def accounting(self) -> Counter: ...

    def complete(
        self,
        role: str,
        messages: Sequence[Message],
        schema: type[BaseModel] | None = None,
        *,
        stage: str | None = None,
        params: dict[str, Any] | None = None,
    ) -> Reply: ...

    def say_once(self, text: str) -> None: ...


class ModelClient(Completer, Protocol):
    """What generators and filters use: requests, the model settings and role names, the
    pictures a request may carry, and a concurrent map over the requests."""

    @property
    def settings(self) -> ModelsConfig: ...

    @property
    def images(self) -> ImageLoader: ...

    def model_for(self, role: str) -> str: ...

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> list[R]: ...
