"""The driver's shared services (LibreOffice converter, model client) served to worker processes.

The driver keeps one converter (its LibreOffice servers) and one LLMClient (its
concurrency limit, budget, cache and the run store it records calls in); workers
reach them over multiprocessing connections on 127.0.0.1 (a Ray build: the driver's node
address), authenticated with a random authkey.
`ServiceHost` serves them from threads of the driver; a worker builds a
`RemoteConverter` / `RemoteModelClient` from the picklable `Endpoint` it was given,
connecting on first use.

A connection carries (service, method, arguments) calls and (succeeded, value) replies.
multiprocessing's managers did this before, but a manager opens four to six connections
for each proxy and sends on each without TCP_NODELAY, so every proxy a worker made waited
on delayed acknowledgements: 0.26 s per file task, measured, where one connection with
TCP_NODELAY takes about 1 ms.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import socket
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from multiprocessing import AuthenticationError
from multiprocessing.connection import (
    Client,
    Connection,
    Listener,
    answer_challenge,
    deliver_challenge,
)
from pathlib import Path
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel

from fidelity.core.config import ModelsConfig
from fidelity.core.llm.client import Reply, concurrent_map
from fidelity.core.llm.images import ImageLoader
from fidelity.core.llm.protocol import Completer

T = TypeVar("T")
R = TypeVar("R")

CONVERTER = "converter"
MODELS = "models"
# Connections waiting to be accepted. multiprocessing's default is 1: with every thread of
# a worker connecting at once, a handshake completed beyond it is dropped by the driver's
# kernel while the worker counts it as open and waits for a challenge that never comes.
BACKLOG = 128


@dataclass(frozen=True)
class Endpoint:
    """Where a worker finds the driver's services (picklable; carries no objects)."""

    address: tuple[str, int]
    authkey: bytes
    converter: bool
    models: bool


class Converter(Protocol):
    """A LibreOffice converter: ingest's servers in the driver, `RemoteConverter` in a worker."""

    @property
    def available(self) -> bool: ...

    def convert(
        self, source: bytes | Path, to: str, filter_options: Sequence[str] = ()
    ) -> bytes: ...

    def to_pdf(self, source: bytes | Path, app: str) -> bytes: ...


class ConverterService:
    """The driver-side converter as the manager exposes it (methods only, no properties)."""

    def __init__(self, converter: Converter) -> None:
        self.converter = converter

    def available(self) -> bool:
        return self.converter.available

    def convert(self, source: bytes, to: str, filter_options: Sequence[str] = ()) -> bytes:
        return self.converter.convert(source, to, filter_options)

    def to_pdf(self, source: bytes, app: str) -> bytes:
        return self.converter.to_pdf(source, app)


class LLMService:
    """The driver-side model client as the manager exposes it."""

    def __init__(self, client: Completer) -> None:
        self.client = client

    def complete(
        self,
        role: str,
        messages: list[dict[str, Any]],
        schema: type[BaseModel] | None,
        stage: str | None,
        params: dict[str, Any] | None,
    ) -> Reply:
        return self.client.complete(role, messages, schema, stage=stage, params=params)

    def count(self, name: str, event: str, amount: int) -> None:
        self.client.accounting.count(name, event, amount)

    def say_once(self, text: str) -> None:
        self.client.say_once(text)


class ServiceHost:
    """Serves the driver's converter and model client to workers until closed: one thread
    accepts connections, one thread per connection answers its calls in turn."""

    def __init__(
        self, converter: Converter | None, client: Completer | None, host: str = "127.0.0.1"
    ) -> None:
        self.services: dict[str, object | None] = {
            CONVERTER: ConverterService(converter) if converter is not None else None,
            MODELS: LLMService(client) if client is not None else None,
        }
        self.listener = Listener(address=(host, 0), family="AF_INET", backlog=BACKLOG)
        self.endpoint = Endpoint(
            address=self.listener.address,
            authkey=os.urandom(32),
            converter=converter is not None,
            models=client is not None,
        )
        self._closing = threading.Event()
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        while True:
            try:
                connection = self.listener.accept()
            except OSError:
                if self._closing.is_set():
                    return
                continue
            if self._closing.is_set():
                connection.close()
                return
            threading.Thread(target=self._serve, args=(connection,), daemon=True).start()

    def _serve(self, connection: Connection) -> None:
        """Authenticate the worker (in this thread, so a silent one holds up no other), then
        answer its calls until it hangs up."""
        with connection:
            try:
                deliver_challenge(connection, self.endpoint.authkey)
                answer_challenge(connection, self.endpoint.authkey)
                _no_delay(connection)
                while True:
                    service, method, arguments = connection.recv()
                    reply = self._answer(service, method, arguments)
                    try:
                        connection.send(reply)
                    except (pickle.PicklingError, TypeError, AttributeError) as error:
                        reason = f"{service}.{method} returned what cannot be sent: {error}"
                        connection.send((False, RuntimeError(reason)))
            except (EOFError, OSError, AuthenticationError):
                return

    def _answer(self, service: str, method: str, arguments: tuple[Any, ...]) -> tuple[bool, Any]:
        """(True, the result) or (False, the exception the call raised)."""
        target = self.services.get(service)
        try:
            if target is None or method.startswith("_"):
                raise LookupError(f"the driver serves no {service}.{method}")
            return True, getattr(target, method)(*arguments)
        except Exception as error:
            return False, _picklable(error)

    def close(self) -> None:
        """Stop accepting connections (one last connection wakes the accept loop)."""
        self._closing.set()
        with contextlib.suppress(OSError), socket.create_connection(self.endpoint.address, 5):
            pass
        self.thread.join(timeout=5)
        self.listener.close()

    def __enter__(self) -> ServiceHost:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _no_delay(connection: Connection) -> None:
    """Send each call and reply at once. Each call and reply is one small write after another
    (the last handshake message, then the call), so with Nagle's algorithm the second waits
    for the peer's delayed acknowledgement, 40 ms on Linux."""
    with socket.socket(fileno=os.dup(connection.fileno())) as handle:
        handle.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def _picklable(error: Exception) -> Exception:
    """The exception itself when it pickles, else a RuntimeError carrying its text."""
    try:
        pickle.loads(pickle.dumps(error))
    except Exception:
        return RuntimeError(f"{type(error).__name__}: {error}")
    return error


class _Connection:
    """A worker's connection to the driver's services, opened on first use; calls on it are
    serialised, so a caller that calls from several threads keeps one per thread."""

    def __init__(self, endpoint: Endpoint, service: str) -> None:
        self.endpoint = endpoint
        self.service = service
        self._lock = threading.Lock()
        self._connection: Connection | None = None

    def call(self, method: str, *arguments: Any) -> Any:
        with self._lock:
            if self._connection is None:
                connection = Client(self.endpoint.address, authkey=self.endpoint.authkey)
                _no_delay(connection)
                self._connection = connection
            self._connection.send((self.service, method, arguments))
            succeeded, value = self._connection.recv()
        if not succeeded:
            raise value
        return value


class RemoteConverter:
    """The driver's converter seen from a worker: `available`, `convert`, `to_pdf`."""

    def __init__(self, endpoint: Endpoint) -> None:
        self._connection = _Connection(endpoint, CONVERTER)
        self._available: bool | None = None

    @property
    def available(self) -> bool:
        if self._available is None:
            self._available = bool(self._connection.call("available"))
        return self._available

    def convert(self, source: bytes | Path, to: str, filter_options: Sequence[str] = ()) -> bytes:
        data = source.read_bytes() if isinstance(source, Path) else source
        return self._connection.call("convert", data, to, list(filter_options))

    def to_pdf(self, source: bytes | Path, app: str) -> bytes:
        data = source.read_bytes() if isinstance(source, Path) else source
        return self._connection.call("to_pdf", data, app)


class _RemoteAccounting:
    """The part of the driver's accounting a generator touches: event counts."""

    def __init__(self, call: Callable[..., Any]) -> None:
        self._call = call

    def count(self, name: str, event: str, amount: int = 1) -> None:
        self._call("count", name, event, amount)


class RemoteModelClient:
    """The driver's LLMClient seen from a worker: calls go to the driver, threads stay here."""

    def __init__(self, endpoint: Endpoint, settings: ModelsConfig, media_root: Path) -> None:
        self.settings = settings
        self.images = ImageLoader(media_root, settings.image_max_side)
        self.accounting = _RemoteAccounting(self._call)
        self._endpoint = endpoint
        self._local = threading.local()

    def _call(self, method: str, *arguments: Any) -> Any:
        """A call on this thread's own connection, so that threads wait on the model together."""
        if not hasattr(self._local, "connection"):
            self._local.connection = _Connection(self._endpoint, MODELS)
        return self._local.connection.call(method, *arguments)

    def model_for(self, role: str) -> str:
        return self.settings.model_for(role)

    def complete(
        self,
        role: str,
        messages: Sequence[dict[str, Any]],
        schema: type[BaseModel] | None = None,
        *,
        stage: str | None = None,
        params: dict[str, Any] | None = None,
    ) -> Reply:
        return self._call("complete", role, list(messages), schema, stage, params)

    def say_once(self, text: str) -> None:
        self._call("say_once", text)

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> list[R]:
        return concurrent_map(fn, items, self.settings.concurrency)
