"""The driver's services as workers in other processes reach them: results, raised errors,
refused keys and model calls from several threads at once."""

from __future__ import annotations

import dataclasses
import multiprocessing
import threading
from collections.abc import Sequence
from multiprocessing import AuthenticationError
from pathlib import Path
from typing import Any

import pytest

from fidelity.core.config import ModelsConfig
from fidelity.core.services import Endpoint, RemoteConverter, RemoteModelClient, ServiceHost
from ingest.unoserver_pool import ConversionError

THREADS = 16  # more connections at once than a listener's default backlog of 1


class UpperCaseConverter:
    """Converts text to upper case; refuses sources that say "bad" with ConversionError."""

    available = True

    def convert(self, source: bytes | Path, to: str, filter_options: Sequence[str] = ()) -> bytes:
        data = source.read_bytes() if isinstance(source, Path) else source
        if b"bad" in data:
            raise ConversionError(f"cannot convert {data!r} to {to}")
        return data.upper() + ",".join(filter_options).encode()

    def to_pdf(self, source: bytes | Path, app: str) -> bytes:
        if app == "unsendable":
            return threading.Lock()  # type: ignore[return-value]
        return self.convert(source, "pdf", (app,))


class MeetingClient:
    """A model client whose calls return only once THREADS of them are in flight together."""

    def __init__(self) -> None:
        self.barrier = threading.Barrier(THREADS, timeout=20)
        self.counted: list[tuple[str, str, int]] = []
        self.accounting = self

    def complete(self, role: str, messages: list[dict[str, Any]], *args: Any, **kw: Any) -> str:
        self.barrier.wait()
        return f"{role}: {messages[0]['content']}"

    def count(self, name: str, event: str, amount: int = 1) -> None:
        self.counted.append((name, event, amount))

    def say_once(self, text: str) -> None:
        self.counted.append(("say", text, 0))


def converter_calls(endpoint: Endpoint, results: Any) -> None:
    converter = RemoteConverter(endpoint)
    found: list[Any] = [converter.available, converter.to_pdf(b"memo", "word")]
    for source in (b"bad file", b"fine"):
        try:
            found.append(converter.convert(source, "docx", ["a", "b"]))
        except ConversionError as error:
            found.append(("ConversionError", str(error)))
    results.put(found)


def model_calls(endpoint: Endpoint, media: str, results: Any) -> None:
    client = RemoteModelClient(endpoint, ModelsConfig(concurrency=THREADS), Path(media))
    messages = [[{"role": "user", "content": f"question {n}"}] for n in range(THREADS)]
    replies = client.map(lambda message: client.complete("judge", message), messages)
    client.accounting.count("rules", "drafted", 3)
    client.say_once("hello")
    results.put(replies)


def run_in_worker(target: Any, *arguments: Any) -> Any:
    """What `target` puts on its queue, run in a forkserver process as build workers are."""
    context = multiprocessing.get_context("forkserver")
    results = context.Queue()
    process = context.Process(target=target, args=(*arguments, results))
    process.start()
    try:
        return results.get(timeout=60)
    finally:
        process.join(timeout=10)
        process.kill()  # a worker left waiting on the driver must not outlive the test
        process.join()


def test_a_worker_gets_results_and_the_errors_the_converter_raised() -> None:
    with ServiceHost(UpperCaseConverter(), None) as host:
        found = run_in_worker(converter_calls, host.endpoint)
    assert found == [
        True,
        b"MEMOword",
        ("ConversionError", "cannot convert b'bad file' to docx"),
        b"FINEa,b",
    ]


def test_model_calls_from_several_threads_are_answered_together(tmp_path: Path) -> None:
    client = MeetingClient()
    with ServiceHost(None, client) as host:  # type: ignore[arg-type]
        replies = run_in_worker(model_calls, host.endpoint, str(tmp_path))
    assert replies == [f"judge: question {n}" for n in range(THREADS)]
    assert client.counted == [("rules", "drafted", 3), ("say", "hello", 0)]


def test_a_wrong_key_is_refused_and_the_host_keeps_serving() -> None:
    with ServiceHost(UpperCaseConverter(), None) as host:
        forged = dataclasses.replace(host.endpoint, authkey=b"x" * 32)
        with pytest.raises(AuthenticationError):
            RemoteConverter(forged).convert(b"memo", "pdf")
        assert RemoteConverter(host.endpoint).convert(b"memo", "pdf") == b"MEMO"


def test_a_reply_that_cannot_be_sent_is_an_error_and_the_connection_goes_on() -> None:
    with ServiceHost(UpperCaseConverter(), None) as host:
        converter = RemoteConverter(host.endpoint)
        with pytest.raises(RuntimeError, match="to_pdf returned what cannot be sent"):
            converter.to_pdf(b"memo", "unsendable")
        assert converter.to_pdf(b"memo", "word") == b"MEMOword"


def test_a_service_the_driver_does_not_serve_is_a_clear_error() -> None:
    with ServiceHost(UpperCaseConverter(), None) as host:
        client = RemoteModelClient(host.endpoint, ModelsConfig(), Path("."))
        with pytest.raises(LookupError, match="serves no models.complete"):
            client.complete("judge", [{"role": "user", "content": "?"}])
