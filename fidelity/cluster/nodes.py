"""One services actor per Ray node: its own LibreOffice pool, a relay to the driver's model client.

Each node runs a `NodeServices` actor pinned to it (NodeAffinitySchedulingStrategy,
no CPU reserved). It serves, on the node's 127.0.0.1, the same manager interface
the local worker processes use (`fidelity.core.services`): the node's converter (its
unoservers start on the first conversion; a node without LibreOffice reports
itself unavailable, so its conversions are skipped with that reason) and the
model client, relayed to the one LLMClient in the driver, so the cache, the
call records and the concurrency limit stay global. The actors belong to the
driver: they stop with the run, and their LibreOffice with them.
"""

from __future__ import annotations

import re
import shutil
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, cast

import ray
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from fidelity.cluster.pictures import PictureRelay
from fidelity.cluster.shipping import scratch_root
from fidelity.core.config import ModelsConfig
from fidelity.core.services import Endpoint, RemoteModelClient, ServiceHost
from ingest.settings import MAX_AUTO_SERVERS
from ingest.unoserver_pool import Converter

ACTOR_PREFIX = "fidelity-node-"
LOOKUP_SECONDS = 60.0
START_SECONDS = 120.0
ANSI_COLOUR = re.compile(r"\x1b\[[0-9;]*m")  # Ray colours the names in its error texts


class NodesUnusable(RuntimeError):
    """Nodes of the cluster where fidelity's services actor could not start."""


@dataclass(frozen=True)
class NodeSetup:
    """What every node's services need: the driver's endpoint, model settings, LibreOffice pool."""

    namespace: str
    driver: Endpoint | None
    models: ModelsConfig
    media_root: Path
    servers: int | None  # LibreOffice servers per node; None: one per CPU of the node (capped)
    conversion_timeout: float


class NodeServices:
    """A node's converter and model relay behind a manager on 127.0.0.1 (a Ray actor's body)."""

    def __init__(self, setup: NodeSetup) -> None:
        self.converter = Converter(setup.servers or 1, setup.conversion_timeout)
        self.scratch = scratch_root(setup.namespace)
        relay = None
        if setup.driver is not None and setup.driver.models:
            driver = RemoteModelClient(setup.driver, setup.models, setup.media_root)
            relay = PictureRelay(driver, self.scratch)
        self.host = ServiceHost(self.converter, relay)

    def endpoint(self) -> Endpoint:
        return self.host.endpoint

    def close(self) -> None:
        self.host.close()
        self.converter.close()
        shutil.rmtree(self.scratch, ignore_errors=True)


def actor_name(node_id: str) -> str:
    return ACTOR_PREFIX + node_id


def alive_nodes() -> dict[str, int]:
    """The live nodes' ids and CPUs."""
    return {
        node["NodeID"]: int(node.get("Resources", {}).get("CPU", 1))
        for node in ray.nodes()
        if node.get("Alive")
    }


class NodeActors:
    """The driver's handles on every node's services actor (created for nodes as they appear)."""

    def __init__(self, setup: NodeSetup) -> None:
        self.setup = setup
        self.actors: dict[str, Any] = {}
        self.remote = ray.remote(NodeServices)

    def cover(self) -> None:
        """Start a services actor on every live node that has none yet."""
        for node_id, cpus in alive_nodes().items():
            if node_id in self.actors:
                continue
            servers = self.setup.servers or min(max(1, cpus), MAX_AUTO_SERVERS)
            self.actors[node_id] = self.remote.options(
                name=actor_name(node_id),
                namespace=self.setup.namespace,
                num_cpus=0,
                scheduling_strategy=NodeAffinitySchedulingStrategy(node_id, soft=False),
            ).remote(replace(self.setup, servers=servers))

    def check(self, timeout: float = START_SECONDS) -> None:
        """Wait until every services actor answers; raise NodesUnusable naming the nodes that
        do not (fidelity or its dependencies missing there, most often)."""
        broken = []
        for node_id, actor in self.actors.items():
            try:
                ray.get(actor.endpoint.remote(), timeout=timeout)
            except ray.exceptions.RayError as error:  # also the timeout
                text = " ".join(ANSI_COLOUR.sub("", str(error)).split())
                broken.append(f"{node_id[:12]}: {text[:300]}")
        if broken:
            raise NodesUnusable(
                "fidelity's services did not start on these Ray nodes (is fidelity[ray] "
                "installed there, with the same Python and Ray?): " + "; ".join(broken)
            )

    def close(self) -> None:
        closing = [actor.close.remote() for actor in self.actors.values()]
        ray.wait(closing, num_returns=len(closing), timeout=30)
        for actor in self.actors.values():
            ray.kill(actor)
        self.actors = {}


def node_endpoint(namespace: str) -> Endpoint:
    """In a task: the endpoint of the services actor on the node it runs on."""
    name = actor_name(ray.get_runtime_context().get_node_id())
    deadline = time.monotonic() + LOOKUP_SECONDS
    while True:  # a node that joined mid-run gets its actor at the driver's next check
        try:
            actor = ray.get_actor(name, namespace=namespace)
            # Ray's types know nothing of a named actor's methods (its ray.get answers a list)
            return cast(Endpoint, ray.get(actor.endpoint.remote()))
        except ValueError:
            if time.monotonic() > deadline:
                raise
            time.sleep(1.0)
