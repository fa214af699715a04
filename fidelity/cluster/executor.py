"""`RayExecutor`: the build's per-file tasks as Ray tasks, results in input order, limits kept.

It implements `fidelity.core.executor.Executor`. At most `in_flight` tasks are
submitted at a time (ray.wait on the oldest one is the back-pressure), so the
driver's memory does not grow with the pool; results are yielded in input order
for the driver to store. The per-file contract of the local executor holds: an
exception is a `Failure` at the stage the task reached; a task past the per-file
wall-clock limit is cancelled with force (its worker is killed and replaced); an
allocation past the per-task memory cap raises MemoryError in the task; a worker
that crashes (a segfault in a native library) or that Ray's memory monitor
kills is a `Failure` of that one file. Tasks are not retried: a rerun of the
build retries skipped files.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import ray
from ray import exceptions as ray_errors

from fidelity.cluster.board import BoardMark, StageBoard
from fidelity.cluster.nodes import NodeActors, node_endpoint
from fidelity.cluster.shipping import (
    Files,
    Scratch,
    input_path,
    out_of,
    place,
    relocated,
    scratch_root,
    with_services,
)
from fidelity.core.executor import (
    Failure,
    Progress,
    TaskResult,
    address_space_cap,
    failure_of,
    in_input_order,
    one_line,
)

T = TypeVar("T")
R = TypeVar("R")

POLL_SECONDS = 1.0
NODE_CHECK_SECONDS = 10.0


def run_item(
    task: Callable[[Any, Progress], Any],
    item: Any,
    key: int,
    board: Any,
    namespace: str,
    shipped: bytes | None,
    memory_bytes: int,
) -> tuple[TaskResult[Any], Files]:
    """The Ray task around one work item: node services, shipped input, memory cap, failures."""
    mark = BoardMark(board, key)
    mark.enter("start")
    scratch: Scratch | None = None
    try:
        item = with_services(item, node_endpoint(namespace))
        original, out = input_path(item), out_of(item)
        if shipped is not None and original is not None and out is not None:
            scratch = Scratch(original.name, shipped, scratch_root(namespace))
            item = relocated(item, scratch.input, scratch.out)
        with address_space_cap(memory_bytes):
            value = task(item, mark)
        if scratch is None or original is None or out is None:
            return TaskResult(value=value), {}
        return TaskResult(value=scratch.restore(value, original, out)), scratch.written()
    except Exception as error:  # any failure of one item is that item's result
        return TaskResult(failure=failure_of(error, mark.stage)), {}
    finally:
        if scratch is not None:
            scratch.close()


@dataclass
class Submitted:
    """One work item on its way: its Ray object ref, board key, and where its files go."""

    key: int
    out: Path | None
    ref: Any = None
    failure: Failure | None = None
    timed_out: bool = False


class RayExecutor:
    """Per-file tasks on a Ray cluster (the caller has connected to it with ray.init)."""

    def __init__(
        self,
        nodes: NodeActors,
        namespace: str,
        timeout: float | None,
        memory_bytes: int,
        ship_files: bool = False,
        in_flight: int | None = None,
    ) -> None:
        self.nodes = nodes
        self.namespace = namespace
        self.timeout = timeout if timeout and timeout > 0 else None
        self.memory_bytes = memory_bytes
        self.ship_files = ship_files
        cpus = int(ray.cluster_resources().get("CPU", 1))
        self.in_flight = in_flight or 4 * max(1, cpus)  # slack behind a slow file
        # Any: Ray types an actor handle's methods as the plain methods, without `.remote`
        self.board: Any = ray.remote(StageBoard).options(num_cpus=0).remote()
        # Any: Ray types ObjectRef as invariant, so it refuses the ObjectRef[bytes] passed for
        # run_item's `shipped` (Ray hands the task the bytes) against ObjectRef[bytes | None]
        self.remote: Any = ray.remote(run_item).options(max_retries=0, retry_exceptions=False)
        self._count = 0
        self._live: set[Any] = set()
        self._checked = time.monotonic()

    def map(self, task: Callable[[T, Progress], R], items: Iterable[T]) -> Iterator[TaskResult[R]]:
        return in_input_order(
            items, self.in_flight, lambda item: self._submit(task, item), self._collect
        )

    def _submit(self, task: Callable[[Any, Progress], Any], item: Any) -> Submitted:
        self._count += 1
        submitted = Submitted(self._count, out_of(item))
        try:
            source = input_path(item) if self.ship_files else None
            shipped = ray.put(source.read_bytes()) if source is not None else None
            submitted.ref = self.remote.remote(
                task, item, submitted.key, self.board, self.namespace, shipped, self.memory_bytes
            )
            self._live.add(submitted.ref)
        except (OSError, TypeError, ValueError) as error:  # unreadable input, unpicklable item
            submitted.failure = failure_of(error, "submit")
        return submitted

    def _collect(self, head: Submitted, waiting: deque[Submitted]) -> TaskResult[Any]:
        if head.failure is not None:
            return TaskResult(failure=head.failure)
        while not ray.wait([head.ref], timeout=POLL_SECONDS)[0]:
            self._stop_overdue([head, *waiting])
            if time.monotonic() - self._checked > NODE_CHECK_SECONDS:
                self.nodes.cover()  # nodes that joined the cluster get their services
                self._checked = time.monotonic()
        self._live.discard(head.ref)
        try:
            result, files = ray.get(head.ref)
        except ray_errors.RayError as error:
            result, files = TaskResult(failure=self._failure(head, error)), {}
        finally:
            self.board.forget.remote(head.key)
        if files and head.out is not None:
            place(files, head.out)
        return result

    def _stop_overdue(self, running: list[Submitted]) -> None:
        if self.timeout is None:
            return
        overdue = set(ray.get(self.board.overdue.remote(self.timeout)))
        for submitted in running:
            if submitted.key in overdue and submitted.ref is not None and not submitted.timed_out:
                if ray.wait([submitted.ref], timeout=0)[0]:
                    continue  # it ended (a crash Ray reported late, say): that outcome stands
                submitted.timed_out = True
                ray.cancel(submitted.ref, force=True)

    def _failure(self, submitted: Submitted, error: ray_errors.RayError) -> Failure:
        stage = ray.get(self.board.stage.remote(submitted.key))
        if submitted.timed_out:
            message = f"no result within the {self.timeout:g} s limit; the worker was stopped"
            return Failure(stage, "Timeout", message)
        if isinstance(error, ray_errors.OutOfMemoryError):
            return Failure(stage, "OutOfMemory", "Ray's memory monitor killed the worker")
        if isinstance(error, ray_errors.WorkerCrashedError):
            message = "the worker process died (a crash in a native library, or it was killed)"
            return Failure(stage, "WorkerDied", message)
        return Failure(stage, type(error).__name__, one_line(error) or type(error).__name__)

    def close(self) -> None:
        for ref in self._live:
            ray.cancel(ref, force=True)
        self._live = set()
        ray.kill(self.board)
