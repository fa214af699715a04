"""The driver's shared services (LibreOffice converter, model client) served to worker processes.

The driver keeps one converter (its LibreOffice servers) and one LLMClient (its
concurrency limit, budget, cache and the run store it records calls in); workers
reach them through a multiprocessing manager on 127.0.0.1 (a Ray build: the driver's node
address) with a random authkey.
`ServiceHost` serves them from a thread of the driver; a worker builds a
`RemoteConverter` / `RemoteModelClient` from the picklable `Endpoint` it was given,
connecting on first use.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from multiprocessing.managers import BaseManager
from pathlib import Path
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel

from fidelity.core.config import ModelsConfig
from fidelity.core.llm.client import LLMClient, Reply, concurrent_map
from fidelity.core.llm.images import ImageLoader

T = TypeVar("T")
R = TypeVar("R")

CONVERTER = "converter"
MODELS = "models"


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

    def __init__(self, client: LLMClient) -> None:
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


class _Host(BaseManager):
    """The manager class the driver serves from (registrations are per ServiceHost)."""


class _Client(BaseManager):
    """The manager class workers connect with."""


_Client.register(CONVERTER)
_Client.register(MODELS)


class ServiceHost:
    """Serves the driver's converter and model client to workers until closed."""

    def __init__(
        self, converter: Converter | None, client: LLMClient | None, host: str = "127.0.0.1"
    ) -> None:
        registry = type("Host", (_Host,), {})
        services = {
            CONVERTER: ConverterService(converter) if converter is not None else None,
            MODELS: LLMService(client) if client is not None else None,
        }
        for name, service in services.items():
            registry.register(name, callable=lambda service=service: service)
        authkey = os.urandom(32)
        self.server = registry(address=(host, 0), authkey=authkey).get_server()
        self.endpoint = Endpoint(
            address=self.server.address,
            authkey=authkey,
            converter=converter is not None,
            models=client is not None,
        )
        self._closing = threading.Event()
        self.server.stop_event = self._closing  # the per-connection loops watch it
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        """The manager's accept loop, without `serve_forever` (which blocks its thread and
        resets the process's sys.stdout and sys.stderr when it stops)."""
        while True:
            try:
                connection = self.server.listener.accept()
            except OSError:
                if self._closing.is_set():
                    return
                continue
            if self._closing.is_set():
                connection.close()
                return
            threading.Thread(
                target=self.server.handle_request, args=(connection,), daemon=True
            ).start()

    def close(self) -> None:
        """Stop accepting connections (one last connection wakes the accept loop)."""
        self._closing.set()
        with contextlib.suppress(OSError), socket.create_connection(self.endpoint.address, 5):
            pass
        self.thread.join(timeout=5)
        self.server.listener.close()

    def __enter__(self) -> ServiceHost:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Connection:
    """A worker's lazily opened connection to the driver's manager."""

    def __init__(self, endpoint: Endpoint) -> None:
        self.endpoint = endpoint
        self._lock = threading.Lock()
        self._manager: _Client | None = None

    def proxy(self, name: str) -> Any:
        with self._lock:
            if self._manager is None:
                manager = _Client(address=self.endpoint.address, authkey=self.endpoint.authkey)
                manager.connect()
                self._manager = manager
            return getattr(self._manager, name)()


class RemoteConverter:
    """The driver's converter seen from a worker: `available`, `convert`, `to_pdf`."""

    def __init__(self, endpoint: Endpoint) -> None:
        self._connection = _Connection(endpoint)
        self._service: Any = None
        self._available: bool | None = None

    def _remote(self) -> Any:
        if self._service is None:
            self._service = self._connection.proxy(CONVERTER)
        return self._service

    @property
    def available(self) -> bool:
        if self._available is None:
            self._available = bool(self._remote().available())
        return self._available

    def convert(self, source: bytes | Path, to: str, filter_options: Sequence[str] = ()) -> bytes:
        data = source.read_bytes() if isinstance(source, Path) else source
        return self._remote().convert(data, to, list(filter_options))

    def to_pdf(self, source: bytes | Path, app: str) -> bytes:
        data = source.read_bytes() if isinstance(source, Path) else source
        return self._remote().to_pdf(data, app)


class _RemoteAccounting:
    """The part of the driver's accounting a generator touches: event counts."""

    def __init__(self, service: Callable[[], Any]) -> None:
        self._service = service

    def count(self, name: str, event: str, amount: int = 1) -> None:
        self._service().count(name, event, amount)


class RemoteModelClient:
    """The driver's LLMClient seen from a worker: calls go to the driver, threads stay here."""

    def __init__(self, endpoint: Endpoint, settings: ModelsConfig, media_root: Path) -> None:
        self.settings = settings
        self.images = ImageLoader(media_root, settings.image_max_side)
        self.accounting = _RemoteAccounting(self._remote)
        self._connection = _Connection(endpoint)
        self._local = threading.local()

    def _remote(self) -> Any:
        """One proxy per thread (a manager proxy's connection is not shared across threads)."""
        if not hasattr(self._local, "service"):
            self._local.service = self._connection.proxy(MODELS)
        return self._local.service

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
        return self._remote().complete(role, list(messages), schema, stage, params)

    def say_once(self, text: str) -> None:
        self._remote().say_once(text)

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> list[R]:
        return concurrent_map(fn, items, self.settings.concurrency)
