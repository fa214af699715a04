"""Extraction benchmark: `fidelity extract` over the corpus against a plain unzip + lxml parse.

Both run in this one process, on the same Word, Excel and PowerPoint files of
../shared/corpus, and the figures are reported as ratios to the parse (the floor
no extractor can beat). For Word, pandoc's own time on the same files (docx to its
JSON AST, which the Word extractor reads) is shown too: the Word target is pandoc's
time plus 3x the floor. Run on demand: `make bench` or `python bench/extract_bench.py`.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import subprocess
import tempfile
import time
import zipfile
from pathlib import Path

import pypandoc
from lxml import etree

from fidelity.cli import main as fidelity
from fidelity.core.apps import APP_NAMES, APPLICATIONS

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"


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


def run_pandoc(files: list[Path]) -> None:
    """pandoc alone: each Word file to pandoc's JSON AST, as the Word extractor runs it."""
    for path in files:
        subprocess.run(
            [pypandoc.get_pandoc_path(), "--from=docx", "--to=json", str(path)],
            check=False,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )


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
        for app in APP_NAMES:  # the corpus holds one folder per application
            files = sorted(p for p in (CORPUS / app).iterdir() if p.is_file())
            size_mb = sum(p.stat().st_size for p in files) / 1e6
            parse = timed(lambda files=files: parse_every_part(files), args.repeat)
            extract = timed(lambda files=files: run_extract(files, Path(media)), args.repeat)
            pandoc = (
                timed(lambda files=files: run_pandoc(files), args.repeat)
                if APPLICATIONS[app].plain_format == "docx"  # pandoc reads .docx
                else None
            )
            total_parse += parse
            total_extract += extract
            rows.append((app, len(files), size_mb, parse, extract, pandoc))
    print(
        "| app | files | MB | lxml parse (s) | fidelity extract (s) | extract / parse "
        "| pandoc (s) | target (s) |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for app, count, size_mb, parse, extract, pandoc in rows:
        target = (pandoc or 0.0) + (3 if pandoc is not None else 5) * parse
        shown = f"{pandoc:.2f} ({pandoc / parse:.1f}x)" if pandoc is not None else "–"
        print(
            f"| {app} | {count} | {size_mb:.1f} | {parse:.2f} | {extract:.2f} "
            f"| {extract / parse:.1f}x | {shown} | {target:.2f} ({target / parse:.1f}x) |"
        )
    print(
        f"| all | | | {total_parse:.2f} | {total_extract:.2f} "
        f"| {total_extract / total_parse:.1f}x | | |"
    )


if __name__ == "__main__":
    main()
