"""Extraction benchmark: `fidelity extract` over the corpus against a plain unzip + lxml parse.

Both run in this one process, on the same Word, Excel and PowerPoint files of
../shared/corpus, and the figures are reported as ratios to the parse (the floor
no extractor can beat). Run on demand: `make bench` or `python bench/extract_bench.py`.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import tempfile
import time
import zipfile
from pathlib import Path

from lxml import etree

from fidelity.cli import main as fidelity

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"
APPS = {"word": "word", "excel": "excel", "powerpoint": "powerpoint"}


def parse_every_part(files: list[Path]) -> int:
    """The floor: open each package and parse every XML part with lxml."""
    parts = 0
    for path in files:
        with zipfile.ZipFile(path) as archive:
            for name in archive.namelist():
                if name.endswith((".xml", ".rels")):
                    etree.fromstring(archive.read(name))
                    parts += 1
    return parts


def run_extract(files: list[Path], media: Path) -> None:
    sink = io.StringIO()
    with contextlib.redirect_stdout(sink):
        fidelity(["extract", *map(str, files), "--json", "--media", str(media)])


def timed(action, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__)
    options.add_argument("--repeat", type=int, default=1, help="best of N runs")
    args = options.parse_args()
    rows = []
    total_extract = total_parse = 0.0
    with tempfile.TemporaryDirectory() as media:
        for app, folder in APPS.items():
            files = sorted(p for p in (CORPUS / folder).iterdir() if p.is_file())
            size_mb = sum(p.stat().st_size for p in files) / 1e6
            parse = timed(lambda files=files: parse_every_part(files), args.repeat)
            extract = timed(lambda files=files: run_extract(files, Path(media)), args.repeat)
            total_parse += parse
            total_extract += extract
            rows.append((app, len(files), size_mb, parse, extract))
    print("| app | files | MB | lxml parse (s) | fidelity extract (s) | extract / parse |")
    print("|---|---:|---:|---:|---:|---:|")
    for app, count, size_mb, parse, extract in rows:
        print(
            f"| {app} | {count} | {size_mb:.1f} | {parse:.2f} | {extract:.2f} "
            f"| {extract / parse:.1f}x |"
        )
    print(
        f"| all | | | {total_parse:.2f} | {total_extract:.2f} "
        f"| {total_extract / total_parse:.1f}x |"
    )


if __name__ == "__main__":
    main()
