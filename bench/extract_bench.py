"""Extraction benchmark: the extractors over the corpus against a plain unzip + lxml parse.

All columns run in this one process, on the same Word, Excel and PowerPoint files
of tests/corpus, and are reported as ratios to the parse (the floor no
extractor can beat):
  lxml parse   open each package and parse every XML part with lxml
  extract      `extractors.extract(source, context)`, the call the build's workers
               make, per file: from the prepared OOXML file (sniffed and, for
               .xlsm/.docm/.pptm or strict files, normalised beforehand, untimed),
               into a fresh Document, media into a temporary folder, no renderers
  CLI          `fidelity extract FILES --json --media DIR`: extract plus sniffing,
               preparing, hashing and printing each Document as JSON
For Word, pandoc's own time on the same files (docx to its JSON AST, which the Word
extractor reads) is shown too: the Word target is pandoc's time plus 3x the floor;
Excel and PowerPoint aim at 5x. The collector's view of the loaded modules is
frozen first, as `fidelity extract` does. Run on demand: `make bench` or
`python bench/extract_bench.py [--repeat 3] [--app excel]` (best of N runs).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import io
import subprocess
import tempfile
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pypandoc
from lxml import etree

from extractors import ExtractContext, Source, extract
from extractors.media import MediaWriter
from fidelity.cli import main as fidelity
from fidelity.core.apps import APP_NAMES, APPLICATIONS
from fidelity.core.document import Document
from fidelity.core.hashing import file_sha256
from ingest.prepare import prepare
from ingest.sniff import sniff

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "corpus"


@dataclass(frozen=True)
class Prepared:
    """One corpus file made ready for its extractor, as ingest leaves it for the workers."""

    ooxml: Path
    sha256: str
    app: str
    format: str
    source: str
    converted_from: str | None

    def source_of_new_document(self) -> Source:
        document = Document(
            sha256=self.sha256,
            app=self.app,
            format=self.format,
            source=self.source,
            converted_from=self.converted_from,
        )
        return Source(self.ooxml, document)


def prepare_all(files: list[Path], work: Path) -> list[Prepared]:
    """Sniff and prepare each file (conversions under `work`), as ingest does before a build."""
    prepared = []
    for path in files:
        sniffed = sniff(path)
        sha = file_sha256(path)
        ooxml, converted_from = prepare(path, sniffed, work, sha256=sha)
        prepared.append(
            Prepared(ooxml, sha, str(sniffed.app), sniffed.format, str(path), converted_from)
        )
    return prepared


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


def run_extractors(sources: list[Source], media: Path) -> None:
    """Each source through `extractors.extract`, media of each file in its own folder."""
    for source in sources:
        folder = media / source.document.sha256[:16]
        extract(source, ExtractContext(media=MediaWriter(folder)))


def run_cli(files: list[Path], media: Path) -> None:
    sink = io.StringIO()
    with contextlib.redirect_stdout(sink):
        fidelity(["extract", *map(str, files), "--json", "--media", str(media)])


def timed(action: Callable[[], object], repeat: int) -> float:
    """The best wall time of `repeat` runs of `action`."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        best = min(best, time.perf_counter() - start)
    return best


def timed_extractors(prepared: list[Prepared], media: Path, repeat: int) -> float:
    """The best time of `repeat` runs of the extractors, each on new documents (made untimed)
    writing into a new media folder, as a build does (rewriting files costs more)."""
    best = float("inf")
    for attempt in range(repeat):
        sources = [item.source_of_new_document() for item in prepared]
        start = time.perf_counter()
        run_extractors(sources, media / f"extract-{attempt}")
        best = min(best, time.perf_counter() - start)
    return best


@dataclass
class Row:
    """One application's measured times (seconds)."""

    app: str
    files: int
    size_mb: float
    parse: float
    extract: float
    cli: float
    pandoc: float | None


def measure(app: str, work: Path, repeat: int) -> Row:
    """The times of one application's corpus folder."""
    files = sorted(p for p in (CORPUS / app).iterdir() if p.is_file())
    prepared = prepare_all(files, work / "prepared")
    media = work / "media"
    pandoc = (
        timed(lambda: run_pandoc(files), repeat)
        if APPLICATIONS[app].plain_format == "docx"  # pandoc reads .docx
        else None
    )
    return Row(
        app=app,
        files=len(files),
        size_mb=sum(p.stat().st_size for p in files) / 1e6,
        parse=timed(lambda: parse_every_part(files), repeat),
        extract=timed_extractors(prepared, media, repeat),
        cli=timed(lambda: run_cli(files, media), repeat),
        pandoc=pandoc,
    )


def print_table(rows: list[Row]) -> None:
    print(
        "| app | files | MB | lxml parse (s) | extract (s) | extract / parse "
        "| CLI (s) | CLI / parse | pandoc (s) | target (s) |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        parse, pandoc = row.parse, row.pandoc
        target = (pandoc or 0.0) + (3 if pandoc is not None else 5) * parse
        shown = f"{pandoc:.2f} ({pandoc / parse:.1f}x)" if pandoc is not None else "–"
        print(
            f"| {row.app} | {row.files} | {row.size_mb:.1f} | {parse:.2f} | {row.extract:.2f} "
            f"| {row.extract / parse:.1f}x | {row.cli:.2f} | {row.cli / parse:.1f}x "
            f"| {shown} | {target:.2f} ({target / parse:.1f}x) |"
        )
    parse = sum(row.parse for row in rows)
    extract = sum(row.extract for row in rows)
    cli = sum(row.cli for row in rows)
    print(
        f"| all | | | {parse:.2f} | {extract:.2f} | {extract / parse:.1f}x "
        f"| {cli:.2f} | {cli / parse:.1f}x | | |"
    )


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__)
    options.add_argument("--repeat", type=int, default=1, help="best of N runs")
    options.add_argument(
        "--app", action="append", choices=APP_NAMES, help="only these applications (repeatable)"
    )
    args = options.parse_args()
    gc.freeze()
    with tempfile.TemporaryDirectory() as work:
        # the corpus holds one folder per application
        rows = [measure(app, Path(work) / app, args.repeat) for app in args.app or APP_NAMES]
    print_table(rows)


if __name__ == "__main__":
    main()
