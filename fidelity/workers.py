"""The worker processes of a run and the driver services they reach, opened and closed together."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from fidelity.config import Config
from fidelity.executor import Executor, ProcessExecutor
from fidelity.llm import ModelClient
from fidelity.services import Endpoint, ServiceHost
from ingest.unoserver_pool import Converter

# The modules of the per-file tasks: the forkserver imports them once for every worker.
TASK_MODULES = ("ingest.analyze", "fidelity.filework")


@dataclass
class WorkerPool:
    """An executor for per-file tasks and the endpoint of the driver's services."""

    executor: Executor
    services: Endpoint


@contextmanager
def open_workers(
    config: Config, converter: Converter | None, client: ModelClient | None = None
) -> Iterator[WorkerPool]:
    """`config.workers` isolated workers (per-file timeout, memory cap) and the services host."""
    with ServiceHost(converter, client) as host:
        executor = ProcessExecutor(
            config.workers or None,
            config.file_timeout,
            config.worker_memory_bytes,
            preload=TASK_MODULES,
        )
        try:
            yield WorkerPool(executor, host.endpoint)
        finally:
            executor.close()
