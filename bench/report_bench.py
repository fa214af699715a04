"""Report benchmark: `write_report` on a synthetic run of N questions against a plain read of it.

Builds the synthetic run store the report tests use (tests/support/synthetic_run.py), then
times in this one process, best of `--repeat`:
  plain-read     sqlite3 fetches the candidate rows and json.loads each body: the baseline,
                 the least any reader of the run does
  snapshot       a snapshot read and freed as the outputs and the report use it (snapshot_of):
                 candidates, decisions, documents, files, meta, model calls
  write-report   the whole OUT/report.html (snapshot, sections, question table, page)
Figures are ratios to plain-read measured in the same run, never absolute pass/fail.
Run on demand: `make bench` or `python bench/report_bench.py [--questions 100000]`.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the synthetic run builder lives with the tests

from fidelity.core.store import (  # noqa: E402
    CANDIDATE_ORDER,
    CANDIDATE_ROWS,
    RunStore,
    snapshot_of,
)
from fidelity.report import write_report  # noqa: E402
from tests.support.synthetic_run import synthetic_store  # noqa: E402


def plain_read(path: Path) -> int:
    """Candidate rows fetched with sqlite3 and their bodies decoded: the baseline."""
    db = sqlite3.connect(path)
    try:
        rows = db.execute(CANDIDATE_ROWS + CANDIDATE_ORDER).fetchall()
        return len([json.loads(body) for body, _, _, _ in rows])
    finally:
        db.close()


def snapshot_read(store: RunStore) -> int:
    with snapshot_of(store) as run:
        return len(run.candidates)


def best(action: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="report-bench-") as scratch:
        out = Path(scratch)
        start = time.perf_counter()
        synthetic_store(out / "run.sqlite", args.questions).close()
        built = time.perf_counter() - start
        store = RunStore(out / "run.sqlite")
        try:
            timings = {
                "plain-read": best(lambda: plain_read(store.path), args.repeat),
                "snapshot": best(lambda: snapshot_read(store), args.repeat),
                "write-report": best(lambda: write_report(store, out), args.repeat),
            }
        finally:
            store.close()
    baseline = timings["plain-read"]
    print(f"# Report ({args.questions} questions, best of {args.repeat})\n")
    print(f"Synthetic store built in {built:.1f} s.\n")
    print("| step | seconds | vs plain-read |")
    print("|---|---:|---:|")
    for step, seconds in timings.items():
        print(f"| {step} | {seconds:.2f} | {seconds / baseline:.1f}x |")


if __name__ == "__main__":
    main()
