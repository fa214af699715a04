"""Open the Ray side of a build: connect (or start a local Ray), node services, the executor.

`open_ray_workers` is the Ray counterpart of `fidelity.core.workers.open_workers`:
it yields a `WorkerPool` whose executor runs per-file tasks as Ray tasks. The
driver keeps the one LLMClient and serves it (models only) to the nodes' relays;
on a cluster that is a port on the driver's address as Ray knows it, guarded by a
random authkey, as the local pool's services are.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import ray

from fidelity.cluster.executor import RayExecutor
from fidelity.cluster.nodes import NodeActors, NodeSetup
from fidelity.cluster.single_flight import OncePerRequest
from fidelity.core.config import Config
from fidelity.core.llm import LLMClient
from fidelity.core.services import ServiceHost
from fidelity.core.workers import WorkerPool
from ingest.settings import IngestSettings
from ingest.unoserver_pool import Converter

LOCAL_HOST = "127.0.0.1"  # where the driver serves its model client when every task is local


def connect(address: str, cpus: int, namespace: str) -> bool:
    """Join the cluster at `address`, or start a local one with `cpus` CPUs; True if we connected.

    A local Ray announces the machine's address and its ports are not limited to
    loopback (Ray has no such option on Linux); Ray 2.60 protects a cluster that
    `ray.init` starts with token authentication by default.
    """
    if ray.is_initialized():  # the caller already runs inside a Ray driver: use its cluster
        return False
    if address:
        ray.init(address=address, namespace=namespace)
    else:
        ray.init(num_cpus=cpus or None, include_dashboard=False, namespace=namespace)
    return True


@contextmanager
def open_ray_workers(
    config: Config, converter: Converter | None, client: LLMClient | None = None
) -> Iterator[WorkerPool]:
    """Ray tasks on `config.ray_address` (or a local Ray), node services, the model relay.

    `converter` is the driver's, unused here: every node converts with its own.
    """
    namespace = f"fidelity-{uuid.uuid4().hex[:12]}"
    connected = connect(config.ray_address, config.workers, namespace)
    nodes: NodeActors | None = None
    executor: RayExecutor | None = None
    try:
        host = ray.util.get_node_ip_address() if config.ray_address else LOCAL_HOST
        relayed = OncePerRequest(client) if client is not None else None
        with ServiceHost(None, relayed, host=host) as driver:
            ingest = IngestSettings.from_config(config)
            setup = NodeSetup(
                namespace=namespace,
                driver=driver.endpoint if client is not None else None,
                models=config.models,
                media_root=Path(),  # the relay only forwards calls; the driver reads images
                servers=ingest.servers if "servers" in config.extra.get("ingest", {}) else None,
                conversion_timeout=ingest.conversion_timeout,
            )
            nodes = NodeActors(setup)
            nodes.cover()
            nodes.check()  # a node that cannot run fidelity stops the build before any work
            executor = RayExecutor(
                nodes,
                namespace,
                config.file_timeout,
                config.worker_memory_bytes,
                ship_files=config.ship_files,
            )
            yield WorkerPool(executor, driver.endpoint)
    finally:
        if executor is not None:
            executor.close()
        if nodes is not None:
            nodes.close()
        if connected:
            ray.shutdown()
