"""The worker processes of a run and the driver services they reach, opened and closed together."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from fidelity.core.config import Config
from fidelity.core.executor import Executor, ProcessExecutor
from fidelity.core.llm import Completer
from fidelity.core.services import Converter, Endpoint, ServiceHost

# Libraries the per-file tasks import, loaded once by the forkserver so that a new worker
# starts with them; a caller adds its own task modules.
PRELOAD = ("lxml.etree", "numpy", "py3langid", "pydantic", "PIL.Image", "openpyxl", "pypandoc")


def worker_count(config: Config) -> int:
    return config.workers or os.cpu_count() or 1


@dataclass
class WorkerPool:
    """An executor for per-file tasks and the endpoint of the driver's services."""

    executor: Executor
    services: Endpoint


@contextmanager
def open_workers(
    config: Config,
    converter: Converter | None,
    client: Completer | None = None,
    preload: Sequence[str] = PRELOAD,
) -> Iterator[WorkerPool]:
    """`config.workers` isolated workers (per-file timeout, memory cap) and the services host;
    the workers start with the `preload` modules imported."""
    with ServiceHost(converter, client) as host:
        executor = ProcessExecutor(
            worker_count(config),
            config.file_timeout,
            config.worker_memory_bytes,
            preload=preload,
        )
        try:
            yield WorkerPool(executor, host.endpoint)
        finally:
            executor.close()
