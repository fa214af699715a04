"""Build throughput benchmark: `fidelity build` over the shared corpus with 1, 2 and N workers.

Each build runs offline in its own process into a fresh output folder (nothing
cached), with `--workers 1`, `--workers 2` and `--workers <cores>`; throughput
(files per second) is reported as a ratio to `--workers 1` measured in the same
run. Run on demand: `make bench` or `python bench/build_bench.py`.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from fidelity.core.apps import APP_NAMES

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "corpus"
FOLDERS = (*APP_NAMES, "variants", "bad")  # one corpus folder per application, and two more


def corpus_files(folders: list[Path]) -> int:
    return sum(1 for folder in folders for path in folder.rglob("*") if path.is_file())


def timed_build(folders: list[Path], workers: int, scratch: Path, config: Path | None) -> float:
    """Seconds of one fresh build with `workers` workers (its output folder is new)."""
    out = Path(tempfile.mkdtemp(prefix=f"build-{workers}-", dir=scratch))
    command = [sys.executable, "-m", "fidelity.cli"]
    command += ["--config", str(config)] if config else []
    command += ["build", *map(str, folders), "-o", str(out), "--workers", str(workers)]
    start = time.perf_counter()
    subprocess.run(command, cwd=ROOT, check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__)
    options.add_argument("--repeat", type=int, default=1, help="best of N builds per setting")
    options.add_argument("--config", type=Path, help="a fidelity.toml for every build")
    options.add_argument("inputs", nargs="*", type=Path, help="folders (default: the corpus)")
    args = options.parse_args()
    folders = args.inputs or [CORPUS / name for name in FOLDERS]
    files = corpus_files(folders)
    cores = os.cpu_count() or 1
    settings = sorted({1, 2, cores})
    best = {workers: float("inf") for workers in settings}
    with tempfile.TemporaryDirectory() as scratch:
        for _ in range(args.repeat):
            for workers in settings:  # interleaved, so a busy moment hits every setting alike
                seconds = timed_build(folders, workers, Path(scratch), args.config)
                best[workers] = min(best[workers], seconds)
    print(f"# Build throughput ({files} files, {cores} cores, best of {args.repeat})\n")
    print("| workers | seconds | files/s | throughput vs --workers 1 |")
    print("|---:|---:|---:|---:|")
    for workers in settings:
        seconds = best[workers]
        print(f"| {workers} | {seconds:.1f} | {files / seconds:.2f} | {best[1] / seconds:.2f}x |")


if __name__ == "__main__":
    main()
