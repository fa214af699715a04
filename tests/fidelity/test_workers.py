"""Per-file isolation: failures become results, killed builds rerun the same, one build per OUT."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import get_context
from pathlib import Path

import pytest
from pebble import ProcessExpired
from pebble.pool.process import PoolManager

from fidelity.cli import main
from fidelity.core.config import Config
from fidelity.core.executor import ProcessExecutor, StageMark
from fidelity.core.pebble_pool import MatchingPoolManager, MatchingProcessPool
from fidelity.core.store import open_store
from fidelity.outlock import OutputBusy, output_lock
from fidelity.outputs import write_outputs
from fidelity.pipeline import store_result
from fidelity.regen import regen
from ingest.analyze import FileRecord
from tests.support.paths import CORPUS
from tests.support.worker_tasks import MEMORY_CAP, SMALL_CAP, misbehave

# builds over unreadable files; whole builds in child processes: not in make test-quick
pytestmark = [pytest.mark.skips_unreadable_files, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
INPUTS = [
    ROOT / "fixtures" / "memo.docx",
    ROOT / "fixtures" / "regional_sales.xlsx",
    ROOT / "fixtures" / "bad" / "truncated62886.docx",
    CORPUS / "powerpoint" / "bug60993.pptx",
]
OUTPUTS = (
    "questions.jsonl",
    "rejected.jsonl",
    "skipped.jsonl",
    "coverage.md",
    "funnel.md",
    "corpus.jsonl",
    "corpus.md",
)
HANG_SECONDS = 2.0


def test_executor_turns_every_kind_of_failure_into_a_result() -> None:
    items = ["a", "raise", "crash", "b", "hang", "allocate", "c"]
    with ProcessExecutor(2, timeout=HANG_SECONDS, memory_bytes=MEMORY_CAP) as executor:
        results = list(executor.map(misbehave, items))
        again = list(executor.map(misbehave, ["d", "e"]))  # dead workers were replaced
    assert [r.value for r in results] == ["A", None, None, "B", None, None, "C"]
    failures = {item: r.failure for item, r in zip(items, results, strict=True) if r.failure}
    assert {item: (f.stage, f.error_type) for item, f in failures.items()} == {
        "raise": ("stage-raise", "ValueError"),
        "crash": ("stage-crash", "WorkerDied"),
        "hang": ("stage-hang", "Timeout"),
        "allocate": ("stage-allocate", "MemoryError"),
    }
    assert failures["raise"].message == "a bad value"
    assert failures["raise"].traceback.startswith("worker_tasks.py:")
    assert "SIGSEGV" in failures["crash"].message
    assert [r.value for r in again] == ["D", "E"]


SMALL_CAP_RUN = """
from fidelity.core.executor import ProcessExecutor, mapped_bytes
from fidelity.pipeline import WORKER_PRELOAD
from tests.support.worker_tasks import SMALL_CAP, misbehave

with ProcessExecutor(1, memory_bytes=SMALL_CAP, preload=WORKER_PRELOAD) as executor:
    baseline = executor.pool.schedule(mapped_bytes).result()
    results = list(executor.map(misbehave, ["hold", "exceed", "a"]))
print(baseline > SMALL_CAP, [r.value or r.failure.error_type for r in results])
"""


def test_a_memory_cap_counts_from_the_workers_own_baseline() -> None:
    """A fresh worker (the build's preloads) maps more than 300 MB: a 300 MB cap still lets a
    task use 200 MB, and stops one that asks for 400 MB."""
    done = subprocess.run(
        [sys.executable, "-c", SMALL_CAP_RUN], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]
    mapped_more, results = done.stdout.split(" ", 1)
    assert mapped_more == "True"
    assert results.strip() == f"['{2 * SMALL_CAP // 3}', 'MemoryError', 'A']"


def test_a_failed_task_is_a_skipped_file_with_stage_type_message_and_digest(
    tmp_path: Path,
) -> None:
    with ProcessExecutor(1, timeout=HANG_SECONDS, memory_bytes=MEMORY_CAP) as executor:
        (crashed,) = executor.map(misbehave, ["crash"])
    path = ROOT / "fixtures" / "memo.docx"
    record = FileRecord(path=str(path), sha256="f" * 64, bytes=1, extension="docx")
    store = open_store(tmp_path)
    try:
        assert store_result(store, record, crashed) == "skipped"
        write_outputs(store, tmp_path)
    finally:
        store.close()
    (row,) = [json.loads(line) for line in (tmp_path / "skipped.jsonl").read_text().splitlines()]
    assert row["file"] == str(path) and row["stage"] == "stage-crash"
    assert row["error_type"] == "WorkerDied" and "SIGSEGV" in row["message"]
    assert row["reason"] == f"stage-crash: WorkerDied: {row['message']}"
    assert "traceback" in row


def test_a_second_build_or_regen_on_one_out_is_refused(tmp_path: Path, capsys) -> None:
    out = tmp_path / "out"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path; from fidelity.outlock import output_lock\n"
            "with output_lock(Path(sys.argv[1]), 'build'):\n"
            "    print('locked', flush=True); time.sleep(60)",
            str(out),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        assert main(["build", str(INPUTS[0]), "-o", str(out)]) == 1
        assert "in use by another fidelity build or regen (build pid" in capsys.readouterr().err
        with pytest.raises(OutputBusy):
            regen(out, Config())
    finally:
        holder.kill()  # SIGKILL: the lock must not outlive its holder
        holder.wait()
    with output_lock(out, "test"):
        pass


def run_build(
    inputs: Path, out: Path, workers: int, tmp: Path | None = None
) -> subprocess.Popen[bytes]:
    """`fidelity build` in a child process, offline and without LibreOffice (faster; the
    store and the outputs are what is tested here); its temporary files in `tmp` if given."""
    env = {**os.environ, "FIDELITY_UNO_PYTHON": "/nonexistent"}
    if tmp is not None:
        env["TMPDIR"] = str(tmp)
    command = [sys.executable, "-m", "fidelity.cli", "build", str(inputs), "-o", str(out)]
    command += ["--workers", str(workers)]
    log = (tmp or out.parent) / f"build-{time.monotonic_ns()}.log"
    with log.open("w") as sink:  # kept for the assertion message of a build that failed
        return subprocess.Popen(command, cwd=ROOT, env=env, stdout=sink, stderr=subprocess.STDOUT)


def last_log(folder: Path) -> str:
    logs = sorted(folder.glob("build-*.log"))
    return logs[-1].read_text()[-3000:] if logs else ""


def done_files(out: Path) -> int:
    try:
        with sqlite3.connect(f"file:{out / 'run.sqlite'}?mode=ro", uri=True) as db:
            return db.execute("SELECT COUNT(*) FROM files WHERE status='done'").fetchone()[0]
    except sqlite3.Error:
        return 0


def kill_when(process: subprocess.Popen[bytes], reached, limit: float = 120.0) -> None:
    """SIGKILL the build as soon as `reached()` holds (or when it ended by itself)."""
    deadline = time.monotonic() + limit
    while process.poll() is None and not reached() and time.monotonic() < deadline:
        time.sleep(0.01)
    process.send_signal(signal.SIGKILL)
    process.wait()


@pytest.mark.needs("libreoffice")  # its build renders or converts through LibreOffice
def test_builds_killed_at_several_points_then_rerun_match_one_uninterrupted_build(
    tmp_path: Path,
) -> None:
    inputs = tmp_path / "in"
    inputs.mkdir()
    for path in INPUTS:
        shutil.copy(path, inputs / path.name)
    reference, out = tmp_path / "reference", tmp_path / "out"
    # The builds' TMPDIR, short: multiprocessing's forkserver socket lives there, and an
    # AF_UNIX path is at most 107 bytes (an xdist worker's tmp_path can be longer).
    tmp = Path(tempfile.mkdtemp(prefix="fidelity-kill-", dir="/tmp"))
    uninterrupted = run_build(inputs, reference, workers=1)  # alongside the first two kills

    kill_when(run_build(inputs, out, 4, tmp), lambda: any((out / "ingest").glob("*.json")))
    already = done_files(out)
    kill_when(run_build(inputs, out, 4, tmp), lambda: done_files(out) > already)
    assert uninterrupted.wait() == 0
    every = done_files(reference)  # the last file stored: de-duplication and outputs follow
    kill_when(run_build(inputs, out, 4, tmp), lambda: done_files(out) == every)
    assert list(tmp.glob("fidelity-stages-*"))  # the killed builds' leftovers
    assert run_build(inputs, out, 4, tmp).wait() == 0, last_log(tmp)

    for name in OUTPUTS:
        assert (out / name).read_bytes() == (reference / name).read_bytes(), name
    assert not list(tmp.glob("fidelity-stages-*")), "the rerun removes what killed builds left"
    shutil.rmtree(tmp)


class LateAcknowledgements(MatchingPoolManager):
    """A pool manager whose message thread reads a worker's acknowledgement half a second late,
    so a worker that crashes at once is always seen dead before its task is known as running."""

    def __init__(self, context, mp_context) -> None:
        super().__init__(context, mp_context)
        start = self.task_manager.task_start

        def late_start(task_id: int, worker_id: int | None) -> None:
            time.sleep(0.5)
            start(task_id, worker_id)

        self.task_manager.task_start = late_start


class PebbleLateAcknowledgements(LateAcknowledgements):
    """The same delay over pebble's own matching of dead workers to tasks."""

    update_workers = PoolManager.update_workers


@pytest.mark.parametrize(
    ("manager", "error_type"),
    [(LateAcknowledgements, ProcessExpired), (PebbleLateAcknowledgements, BrokenProcessPool)],
)
def test_a_crash_seen_before_its_acknowledgement_is_that_tasks_failure(
    manager, error_type, tmp_path: Path
) -> None:
    pool_class = type("Pool", (MatchingProcessPool,), {"manager_class": manager})
    pool = pool_class(max_workers=1, context=get_context("forkserver"))
    try:
        crashed = pool.schedule(misbehave, ("crash", StageMark(tmp_path / "crash")))
        with pytest.raises(error_type) as failure:
            crashed.result(timeout=30)
        if error_type is ProcessExpired:
            assert failure.value.exitcode == -signal.SIGSEGV
            assert (
                pool.schedule(misbehave, ("next", StageMark(tmp_path / "next"))).result(timeout=30)
                == "NEXT"
            )
        else:  # what pebble alone does: the pool is broken and takes no more tasks
            with pytest.raises(RuntimeError):
                pool.schedule(misbehave, ("next", StageMark(tmp_path / "next")))
    finally:
        pool.stop()
        pool.join()


def test_a_pool_that_breaks_fails_its_item_and_a_new_pool_takes_the_next(monkeypatch) -> None:
    monkeypatch.setattr(MatchingProcessPool, "manager_class", PebbleLateAcknowledgements)
    with ProcessExecutor(1, timeout=HANG_SECONDS, memory_bytes=MEMORY_CAP, in_flight=1) as executor:
        crashed, after = executor.map(misbehave, ["crash", "a"])
    assert crashed.failure is not None and crashed.failure.error_type == "BrokenProcessPool"
    assert crashed.failure.stage == "stage-crash"
    assert after.value == "A"
