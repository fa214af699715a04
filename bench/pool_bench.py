"""Pool-scale benchmark: `fidelity build` over N and 4N distinct files made from the corpus.

The Word, Excel and PowerPoint files of tests/corpus are copied round-robin (one of
each application in turn) into a pool of N files, each copy made distinct by a
document property: its title (docProps/core.xml) gets the copy's number, so the bytes
and the rendered views differ slightly, as files of one template do (a package without
core properties gets the number as its zip comment instead). Near-duplicate curation is
turned off for the pool (`[ingest] near_duplicate_threshold` above 1), else ingest would
keep one copy of each source; the table shows how many files each build kept.

For N and 4N, each into a fresh output folder, offline, `--workers W`:
  build        seconds and files per second of the build
  driver       peak RSS (VmHWM) of the build's own process
  workers      the largest peak RSS of its Python worker processes
  office       the largest peak RSS of its LibreOffice processes
  store        run.sqlite bytes per kept question
  resume       a second build with nothing to do, as a share of the build's time
Memory should not grow with N (4N against N in the same run); a resume should take
at most 5% of the build. With N at least the number of corpus files (65), both pools
hold every source file, so they differ only in size. With `--reference CHECKOUT` (another
checkout of the project, e.g. the commit before a change) both pools are built with that
code too, and the store's bytes per kept question compared with this code's.
Run on demand: `python bench/pool_bench.py [--files 65] [--workers 2] [--reference CHECKOUT]`.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from dataclasses import dataclass, field
from itertools import zip_longest
from pathlib import Path

from fidelity.core.apps import APP_NAMES

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "corpus"
OOXML = {".docx", ".docm", ".xlsx", ".xlsm", ".pptx", ".pptm"}
CORE = "docProps/core.xml"
CONFIG = "[ingest]\nnear_duplicate_threshold = 1.01  # keep every copy of the pool\n"
POLL_SECONDS = 0.2
OFFICE_NAMES = ("soffice", "oosplash", "unoserver", "unoconvert")


def pool_sources() -> list[Path]:
    """The corpus's OOXML files, one application after another in turn."""
    per_app = [
        sorted(p for p in (CORPUS / app).iterdir() if p.suffix.lower() in OOXML)
        for app in APP_NAMES
    ]
    return [path for group in zip_longest(*per_app) for path in group if path is not None]


def titled(core: str, number: int) -> str | None:
    """core.xml with the copy's number in the title, or None when it declares no dc prefix."""
    if "xmlns:dc=" not in core:
        return None
    mark = f"pool copy {number}"
    if re.search(r"<dc:title>", core):
        return re.sub(r"</dc:title>", f" ({mark})</dc:title>", core, count=1)
    if "<dc:title/>" in core:
        return core.replace("<dc:title/>", f"<dc:title>{mark}</dc:title>", 1)
    return re.sub(r"(</\w+:coreProperties>)", f"<dc:title>{mark}</dc:title>\\1", core, count=1)


def varied_copy(source: Path, target: Path, number: int) -> None:
    """`source` rewritten to `target` with its title numbered (or its zip comment, failing that)."""
    with zipfile.ZipFile(source) as package, zipfile.ZipFile(target, "w") as copy:
        changed = False
        for info in package.infolist():
            data = package.read(info)
            if info.filename == CORE:
                core = titled(data.decode("utf-8"), number)
                if core is not None:
                    data, changed = core.encode("utf-8"), True
            copy.writestr(info, data, compress_type=info.compress_type)
        if not changed:
            copy.comment = f"pool copy {number}".encode()


def make_pool(files: int, folder: Path) -> Path:
    """A folder of `files` distinct files copied round-robin from the corpus."""
    folder.mkdir(parents=True)
    sources = pool_sources()
    for number in range(files):
        source = sources[number % len(sources)]
        varied_copy(source, folder / f"{number:05d}-{source.name}", number)
    return folder


@dataclass
class Peaks:
    """The largest peak RSS (bytes) seen per kind of process in a build's process tree."""

    driver: int = 0
    workers: int = 0
    office: int = 0
    by_pid: dict[int, tuple[str, int]] = field(default_factory=dict)

    def see(self, pid: int, kind: str, peak: int) -> None:
        self.by_pid[pid] = (kind, max(peak, self.by_pid.get(pid, (kind, 0))[1]))
        setattr(self, kind, max(getattr(self, kind), peak))


def children_of() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        tree.setdefault(parent, []).append(int(entry))
    return tree


def descendants(root: int) -> list[int]:
    tree, found, todo = children_of(), [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(tree.get(pid, []))
    return found


def peak_rss(pid: int) -> tuple[str, int] | None:
    """(command line, VmHWM in bytes) of a live process."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
        command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return None
    found = re.search(r"^VmHWM:\s+(\d+) kB", status, re.MULTILINE)
    return (command, int(found.group(1)) * 1024) if found else None


class TreeWatch(threading.Thread):
    """Polls a process tree's peak RSS until stopped."""

    def __init__(self, root: int) -> None:
        super().__init__(daemon=True)
        self.root = root
        self.peaks = Peaks()
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.wait(POLL_SECONDS):
            for pid in descendants(self.root):
                seen = peak_rss(pid)
                if seen is None:
                    continue
                command, peak = seen
                if pid == self.root:
                    kind = "driver"
                elif any(name in command for name in OFFICE_NAMES):
                    kind = "office"
                else:
                    kind = "workers"
                self.peaks.see(pid, kind, peak)


def timed_build(
    code: Path, inputs: Path, out: Path, config: Path, workers: int
) -> tuple[float, Peaks]:
    """Seconds and memory peaks of one `fidelity build` run with the code of checkout `code`."""
    command = [sys.executable, "-m", "fidelity.cli", "--config", str(config), "build"]
    command += [str(inputs), "-o", str(out), "--workers", str(workers)]
    start = time.perf_counter()
    process = subprocess.Popen(
        command, cwd=code, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    watch = TreeWatch(process.pid)
    watch.start()
    _, errors = process.communicate()
    seconds = time.perf_counter() - start
    watch.done.set()
    watch.join()
    if process.returncode != 0:
        raise RuntimeError(f"build failed ({process.returncode}): {errors[-2000:]}")
    return seconds, watch.peaks


def lines(path: Path) -> int:
    with path.open("rb") as handle:
        return sum(1 for _ in handle)


@dataclass(frozen=True)
class Row:
    files: int
    kept_files: int
    questions: int
    seconds: float
    peaks: Peaks
    store_bytes: int
    resume_seconds: float


def measure(code: Path, files: int, scratch: Path, config: Path, workers: int) -> Row:
    """A fresh build of the `files`-file pool with the code of checkout `code`, then a resume."""
    inputs = scratch / f"pool-{files}"
    if not inputs.exists():
        make_pool(files, inputs)
    out = Path(tempfile.mkdtemp(prefix=f"out-{files}-", dir=scratch))
    seconds, peaks = timed_build(code, inputs, out, config, workers)
    store_bytes = (out / "run.sqlite").stat().st_size
    resume_seconds = timed_build(code, inputs, out, config, workers)[0]
    return Row(
        files=files,
        kept_files=files - lines(out / "skipped.jsonl"),
        questions=lines(out / "questions.jsonl"),
        seconds=seconds,
        peaks=peaks,
        store_bytes=store_bytes,
        resume_seconds=resume_seconds,
    )


def mb(size: int) -> str:
    return f"{size / 1e6:.0f}"


def table(rows: list[Row]) -> list[str]:
    """The figures of N and 4N, and how 4N compares."""
    lines = [
        "| files | kept files | questions | seconds | files/s | driver MB | workers MB "
        "| office MB | store KB/question | resume vs build |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        lines.append(
            f"| {row.files} | {row.kept_files} | {row.questions} | {row.seconds:.1f} "
            f"| {row.files / row.seconds:.2f} | {mb(row.peaks.driver)} | {mb(row.peaks.workers)} "
            f"| {mb(row.peaks.office)} | {per_question(row) / 1e3:.1f} "
            f"| {row.resume_seconds / row.seconds:.1%} |"
        )
    small, large = rows
    lines.append(
        f"\n4N against N: driver {large.peaks.driver / small.peaks.driver:.2f}x, "
        f"workers {large.peaks.workers / max(small.peaks.workers, 1):.2f}x, "
        f"store bytes per question {per_question(large) / per_question(small):.2f}x"
    )
    return lines


def per_question(row: Row) -> float:
    return row.store_bytes / max(row.questions, 1)


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--files", type=int, default=65, help="N (4N is built too)")
    options.add_argument("--workers", type=int, default=2)
    options.add_argument("--reference", type=Path, help="a checkout measured the same way")
    args = options.parse_args()
    codes = {"this code": ROOT}
    if args.reference:
        codes[f"reference {args.reference}"] = args.reference.resolve()
    results: dict[str, list[Row]] = {}
    with tempfile.TemporaryDirectory(prefix="pool-bench-") as folder:
        scratch = Path(folder)
        config = scratch / "fidelity.toml"
        config.write_text(CONFIG)
        for name, code in codes.items():
            results[name] = [
                measure(code, n, scratch, config, args.workers)
                for n in (args.files, 4 * args.files)
            ]
    print(f"# Pool scale ({os.cpu_count()} cores, --workers {args.workers}, offline)")
    for name, rows in results.items():
        print(f"\n## {name}\n")
        print("\n".join(table(rows)))
    if args.reference:
        ours, theirs = results.values()
        ratios = ", ".join(
            f"{row.files} files {per_question(row) / per_question(other):.2f}x"
            for row, other in zip(ours, theirs, strict=True)
        )
        print(f"\nStore bytes per kept question, this code against the reference: {ratios}")


if __name__ == "__main__":
    main()
