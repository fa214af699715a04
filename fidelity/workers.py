"""The worker processes of a run and the driver services they reach, opened and closed together."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from fidelity.config import Config
from fidelity.executor import Executor, ProcessExecutor
from fidelity.llm import ModelClient
from fidelity.services import Endpoint, ServiceHost
from ingest.settings import IngestSettings
from ingest.unoserver_pool import Converter

# Libraries the per-file tasks import, loaded once by the forkserver so that a new worker
# starts with them. Only installed libraries: Python 3.11's forkserver imports with its
# own sys.path (not the driver's), which may find another copy of this project.
PRELOAD = ("lxml.etree", "numpy", "py3langid", "pydantic", "PIL.Image", "openpyxl", "pypandoc")
# LibreOffice servers a build starts when `[ingest] servers` is not set: one per worker,
# at most this many (each holds a LibreOffice of a few hundred MB).
MAX_AUTO_SERVERS = 4


def worker_count(config: Config) -> int:
    return config.workers or os.cpu_count() or 1


def converter_servers(config: Config, settings: IngestSettings) -> int:
    """LibreOffice servers for a build: `[ingest] servers`, else one per worker (capped), so
    the workers' conversion and rendering requests do not queue behind one server."""
    if "servers" in config.extra.get("ingest", {}):
        return settings.servers
    return min(worker_count(config), MAX_AUTO_SERVERS)


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
            worker_count(config),
            config.file_timeout,
            config.worker_memory_bytes,
            preload=PRELOAD,
        )
        try:
            yield WorkerPool(executor, host.endpoint)
        finally:
            executor.close()
