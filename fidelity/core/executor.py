"""Run one task per item in isolated worker processes; a failing item becomes a `Failure`.

`Executor.map(task, items)` yields one `TaskResult` per item, in input order, with
a bounded number of items in flight. `task(item, progress)` is a picklable
module-level function; it calls `progress.enter(stage)` as it moves on, so a
failure says in which stage it happened. An exception, a crash of the worker (a
segfault in a native library, the kernel's OOM killer), a task past the per-item
wall-clock limit or one past the memory limit (RLIMIT_AS, counted from what the
worker maps when the task starts: an allocation fails with MemoryError) all end
as a `Failure` of that item; the dead or stuck worker is replaced by pebble's pool
and the other items go on.

pebble's ProcessPool is used because it survives the death of a worker and kills
a task that runs past its timeout (concurrent.futures' pool breaks on one crash); its
manager is the one in `pebble_pool`, which matches a quick crash to its task. Should the
pool break all the same, the items in it fail with the reason and a new pool takes the
next ones. The stage marks live in a temporary folder named after the driver's pid: one
left by a driver killed outright is removed when the next executor starts.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import resource
import shutil
import signal
import sys
import tempfile
import traceback
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import contextmanager
from dataclasses import dataclass
from multiprocessing import forkserver, get_context
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

from pebble import ProcessExpired

from fidelity.core.pebble_pool import MatchingProcessPool

T = TypeVar("T")
R = TypeVar("R")
S = TypeVar("S")

DEFAULT_FILE_TIMEOUT = 300.0
DEFAULT_WORKER_MEMORY = 4 * 1024**3
PR_SET_PDEATHSIG = 1
MESSAGE_CHARS = 300
MEMORY = "memory"  # the reason code of an item that ran out of memory (retried on a rerun)
STAGES_PREFIX = "fidelity-stages-"
DIGEST_FRAMES = 4


@dataclass(frozen=True)
class Failure:
    """Why an item produced no result: stage, exception type, one-line message, traceback digest."""

    stage: str
    error_type: str
    message: str
    traceback: str = ""

    @property
    def reason(self) -> str:
        return f"{self.stage}: {self.error_type}: {self.message}"

    @property
    def out_of_memory(self) -> bool:
        return self.error_type == "MemoryError"

    def info(self) -> dict[str, str]:
        """The fields skipped.jsonl records for a file that failed this way (with the reason
        code `memory` when it ran out of memory)."""
        info = {
            "stage": self.stage,
            "error_type": self.error_type,
            "message": self.message,
            "traceback": self.traceback,
        }
        return {**info, "reason_code": MEMORY} if self.out_of_memory else info


@dataclass
class TaskResult(Generic[R]):
    """One item's result: `value`, or `failure` when the task did not finish."""

    value: R | None = None
    failure: Failure | None = None

    @property
    def ok(self) -> bool:
        return self.failure is None


class Progress(Protocol):
    """Where a task says which stage it is in (read back when the task dies)."""

    def enter(self, stage: str) -> None: ...


class StageMark:
    """A task's current stage, kept in a small file the driver reads if the worker dies."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.stage = "start"

    def enter(self, stage: str) -> None:
        self.stage = stage
        self.path.write_text(stage)

    def read(self) -> str:
        try:
            return self.path.read_text() or "start"
        except OSError:
            return "start"


class Executor(Protocol):
    """What the build needs from an executor (a Ray executor implements the same)."""

    def map(
        self, task: Callable[[T, Progress], R], items: Iterable[T]
    ) -> Iterator[TaskResult[R]]: ...

    def close(self) -> None: ...


def one_line(text: object) -> str:
    return " ".join(str(text).split())[:MESSAGE_CHARS]


def digest(error: BaseException) -> str:
    """The innermost frames of the traceback as `file:line function`, and a hash of the whole."""
    frames = traceback.extract_tb(error.__traceback__)
    text = "".join(traceback.format_exception(error))
    tail = " < ".join(
        f"{Path(frame.filename).name}:{frame.lineno} {frame.name}"
        for frame in reversed(frames[-DIGEST_FRAMES:])
    )
    return f"{tail} [{hashlib.sha256(text.encode()).hexdigest()[:12]}]"


def failure_of(error: BaseException, stage: str) -> Failure:
    return Failure(
        stage, type(error).__name__, one_line(error) or type(error).__name__, digest(error)
    )


def mapped_bytes() -> int:
    """The address space this process maps now (what RLIMIT_AS counts)."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


@contextmanager
def address_space_cap(extra_bytes: int) -> Iterator[None]:
    """Cap this process's address space at its current size plus `extra_bytes` for the block.

    A worker already maps hundreds of megabytes (preloaded libraries; a Ray worker its
    object store), so a limit means "this much more than the task started with"; the
    soft limit is restored afterwards.
    """
    if extra_bytes <= 0:
        yield
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = mapped_bytes() + extra_bytes
    resource.setrlimit(resource.RLIMIT_AS, (cap if hard < 0 else min(cap, hard), hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def run_guarded(
    task: Callable[[T, Progress], R], item: T, mark: Path, memory_bytes: int = 0
) -> TaskResult[R]:
    """Run `task` in the worker under the memory cap (`memory_bytes` more than the worker maps
    now; 0: none); an exception becomes a Failure at the stage it happened in."""
    progress = StageMark(mark)
    try:
        with address_space_cap(memory_bytes):
            return TaskResult(value=task(item, progress))
    except Exception as error:  # any failure of one item is that item's result
        return TaskResult(failure=failure_of(error, progress.stage))


def limit_worker() -> None:
    """Worker initializer: die with the parent, ignore Ctrl-C."""
    # No library sets a parent-death signal; prctl through libc is two lines. When
    # the driver dies (even SIGKILL) the forkserver exits and so do its workers.
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def in_input_order(
    items: Iterable[T],
    in_flight: int,
    submit: Callable[[T], S],
    collect: Callable[[S, deque[S]], R],
) -> Iterator[R]:
    """Submit items keeping at most `in_flight` pending (back-pressure) and yield each one's
    collected result in input order; `collect` also sees the submissions still waiting."""
    pending: deque[S] = deque()
    source = iter(items)
    while True:
        for item in source:
            pending.append(submit(item))
            if len(pending) >= in_flight:
                break
        if not pending:
            return
        head = pending.popleft()
        yield collect(head, pending)


def start_forkserver(preload: Sequence[str]) -> None:
    """Start this process's forkserver with the `preload` modules imported, so each worker forked
    from it starts with them (only the first start in a process applies).

    Python 3.11's forkserver is handed the driver's sys.path but does not apply it (3.12 does), so
    it is started with that path in PYTHONPATH: project modules preload from the copy the driver
    runs, not from another one installed.
    """
    forkserver.set_forkserver_preload(list(preload))
    previous = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(entry for entry in sys.path if os.path.isdir(entry))
    try:
        forkserver.ensure_running()
    finally:
        if previous is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = previous


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def stage_folder() -> Path:
    """A new temporary folder for stage marks, owned by this process (its pid in the name);
    the folders of owners that are gone (a driver killed with SIGKILL) are removed first."""
    parent = Path(tempfile.gettempdir())
    for folder in parent.glob(f"{STAGES_PREFIX}*"):
        owner = folder.name.removeprefix(STAGES_PREFIX).split("-", 1)[0]
        if owner.isdigit() and not alive(int(owner)):
            shutil.rmtree(folder, ignore_errors=True)
    return Path(tempfile.mkdtemp(prefix=f"{STAGES_PREFIX}{os.getpid()}-", dir=parent))


class ProcessExecutor:
    """`workers` pebble worker processes with a per-item timeout and a per-item memory cap."""

    def __init__(
        self,
        workers: int | None = None,
        timeout: float | None = DEFAULT_FILE_TIMEOUT,
        memory_bytes: int = DEFAULT_WORKER_MEMORY,
        in_flight: int | None = None,
        preload: Sequence[str] = (),
    ) -> None:
        """`preload`: modules the forkserver imports once, so a new worker starts with them
        (it only applies when this process starts its forkserver, i.e. the first time)."""
        self.workers = max(1, workers or os.cpu_count() or 1)
        self.timeout = timeout if timeout and timeout > 0 else None
        self.in_flight = in_flight or 4 * self.workers  # slack behind a slow file
        self.memory_bytes = memory_bytes
        self.marks = stage_folder()
        start_forkserver(preload)
        self.pool = self._new_pool()
        self._count = 0

    def _new_pool(self) -> MatchingProcessPool:
        return MatchingProcessPool(
            max_workers=self.workers,
            initializer=limit_worker,
            context=get_context("forkserver"),
        )

    def map(self, task: Callable[[T, Progress], R], items: Iterable[T]) -> Iterator[TaskResult[R]]:
        return in_input_order(
            items, self.in_flight, lambda item: self._schedule(task, item), self._result
        )

    def _schedule(self, task: Callable[[Any, Progress], Any], item: Any) -> tuple[Any, Path]:
        self._count += 1
        mark = self.marks / str(self._count)
        if not self.pool.active:  # broken: its items have failed, a new pool takes the rest
            self.close_pool()
            self.pool = self._new_pool()
        arguments = (task, item, mark, self.memory_bytes)
        return self.pool.schedule(run_guarded, arguments, timeout=self.timeout), mark

    def _result(self, scheduled: tuple[Any, Path], _: deque[tuple[Any, Path]]) -> TaskResult[Any]:
        future, mark = scheduled
        try:
            return future.result()
        except FutureTimeout:
            message = f"no result within the {self.timeout:g} s limit; the worker was stopped"
            return TaskResult(failure=Failure(StageMark(mark).read(), "Timeout", message))
        except ProcessExpired as error:
            return TaskResult(failure=Failure(StageMark(mark).read(), "WorkerDied", _death(error)))
        except Exception as error:  # e.g. a result or item that could not be pickled
            return TaskResult(failure=failure_of(error, StageMark(mark).read()))
        finally:
            mark.unlink(missing_ok=True)

    def close_pool(self) -> None:
        self.pool.stop()
        self.pool.join()

    def close(self) -> None:
        self.close_pool()
        shutil.rmtree(self.marks, ignore_errors=True)

    def __enter__(self) -> ProcessExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _death(error: ProcessExpired) -> str:
    code = error.exitcode
    if code is not None and code < 0:
        name = signal.Signals(-code).name
        hint = " (killed: out of memory?)" if name == "SIGKILL" else ""
        return f"the worker died with {name}{hint}"
    return f"the worker exited with code {code}"
