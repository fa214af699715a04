"""pebble's ProcessPool, with a worker's death matched to its task even when it is seen early.

A pebble worker takes a task and sends an acknowledgement naming itself; the pool's message
thread reads it and marks the task as running in that worker. Its manager thread, meanwhile,
looks for dead workers. When a task kills its worker at once (a segfault in a native library),
the manager can find the dead worker before the acknowledgement is read: pebble then finds no
task of that worker and, if no other task is running, declares the whole pool broken
(BrokenProcessPool "All workers expired") — every task in flight fails and the pool refuses new
ones — or, if others are running, forgets the death and leaves the task waiting for ever (or
until its timeout, reported as one). Here a death that matches no running task is kept and
matched again on each of the manager's rounds, until the acknowledgement has been read; one
that still matches none after `UNMATCHED_GRACE` seconds (a worker that died without taking a
task) is dropped, as pebble drops it.

This relies on pebble's internal PoolManager (5.1–5.2), hence the pinned range in
pyproject.toml; tests/fidelity/test_workers.py holds a crash's acknowledgement back to show
the difference.
"""

from __future__ import annotations

import time
from typing import Any

from pebble import ProcessExpired, ProcessPool
from pebble.common import Result, ResultStatus
from pebble.pool import process as pebble_process

UNMATCHED_GRACE = 5.0


class MatchingPoolManager(pebble_process.PoolManager):
    """pebble's pool manager, keeping a worker death until the task it ran is known."""

    def __init__(self, context: Any, mp_context: Any) -> None:
        super().__init__(context, mp_context)
        self.unmatched: dict[int, tuple[int, float]] = {}  # worker pid -> exit code, first seen

    def update_workers(self) -> None:
        now = time.monotonic()
        for pid, exitcode in self.worker_manager.inspect_workers():
            self.unmatched[pid] = (exitcode, now)
        if self.unmatched:
            self.match_deaths(now)
        self.worker_manager.create_workers()

    def match_deaths(self, now: float) -> None:
        running = {task.worker_id: task for task in tuple(self.task_manager.tasks.values())}
        for pid, (exitcode, seen) in tuple(self.unmatched.items()):
            task = running.get(pid)
            if task is not None:
                error = ProcessExpired("Abnormal termination", code=exitcode, pid=pid)
                self.task_manager.task_done(task.id, Result(ResultStatus.ERROR, error))
            elif now - seen < UNMATCHED_GRACE:
                continue
            del self.unmatched[pid]


class MatchingProcessPool(ProcessPool):
    """A pebble ProcessPool whose manager is its `manager_class` (`MatchingPoolManager`)."""

    manager_class: type[pebble_process.PoolManager] = MatchingPoolManager

    def __init__(self, *, context: Any, **kwargs: Any) -> None:
        super().__init__(context=context, **kwargs)
        self._pool_manager = self.manager_class(self._context, context)
