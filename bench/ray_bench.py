"""Build throughput on Ray: the local executor against a local Ray with 1 and 2 CPUs.

Each configuration runs `fidelity build` over the same files of tests/corpus
into a fresh OUT, one after the other in this one run; files per second are
reported with their ratio to the local executor (`--workers` = the number of
cores). A Ray build's time includes starting its local Ray (a few seconds), as a
user sees it. Run on demand: `make bench` or `python bench/ray_bench.py`.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import tempfile
import time
from pathlib import Path

from fidelity.cli import main as fidelity
from ingest.discover import discover

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "corpus"


def timed_build(inputs: Path, options: list[str]) -> float:
    """Seconds for one whole build of `inputs` into a fresh OUT."""
    with tempfile.TemporaryDirectory() as out, contextlib.redirect_stdout(io.StringIO()):
        start = time.perf_counter()
        status = fidelity(["build", str(inputs), "-o", out, *options])
        elapsed = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"build {' '.join(options)} exited with {status}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="the input folder")
    args = parser.parse_args()
    files = len(discover([args.corpus]))
    cores = os.cpu_count() or 1
    runs = {
        f"local executor, {cores} workers": ["--workers", str(cores)],
        "Ray, 1 CPU": ["--executor", "ray", "--workers", "1"],
        "Ray, 2 CPUs": ["--executor", "ray", "--workers", "2"],
    }
    rates = {name: files / timed_build(args.corpus, options) for name, options in runs.items()}
    baseline = next(iter(rates.values()))
    print(f"{files} files of {args.corpus}, {cores} cores")
    print("| run | files/s | ratio to the local executor |")
    print("|---|---|---|")
    for name, rate in rates.items():
        print(f"| {name} | {rate:.2f} | {rate / baseline:.2f} |")


if __name__ == "__main__":
    main()
