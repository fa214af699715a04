"""Excel extraction cost on a 100,000-row sheet against a plain lxml parse of the same XML.

Builds a workbook (openpyxl, write-only), then measures in fresh child processes:
  lxml-parse   etree.fromstring of the sheet XML (the whole tree in memory): the baseline
  read-sheet   extractors.excel_sheet.read_sheet (streamed, rows dropped as read)
  extract      the whole Excel extractor (artifacts, rendering caps)
Each reports wall time and peak RSS above an idle interpreter with the same imports.
Ratios (ours / baseline) and time per MB of sheet XML are printed and written to
bench/excel_bench.md.

    python bench/excel_bench.py [--rows 100000]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHEET = "xl/worksheets/sheet1.xml"


def build(path: Path, rows: int) -> None:
    from openpyxl import Workbook

    book = Workbook(write_only=True)
    sheet = book.create_sheet("Data")
    sheet.append(["Id", "Region", "Amount", "Rate", "Total"])
    regions = ["North", "South", "East", "West"]
    for index in range(2, rows + 2):
        sheet.append(
            [index, regions[index % 4], index * 1.5, (index % 100) / 100, f"=C{index}*(1+D{index})"]
        )
    book.save(path)


def child(mode: str, path: str) -> None:
    """Run one measurement in this (fresh) process and print its numbers as JSON."""
    from lxml import etree

    from extractors.excel.extractor import extract
    from extractors.excel.sheet import read_sheet
    from extractors.excel.workbook import open_workbook
    from fidelity.core.document import Document
    from fidelity.core.xmlsafe import Package

    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    detail: dict[str, object] = {}
    if mode == "lxml-parse":
        with zipfile.ZipFile(path) as archive:
            root = etree.fromstring(archive.read(SHEET), etree.XMLParser(huge_tree=True))
        detail["elements"] = sum(1 for _ in root.iter())
    elif mode == "read-sheet":
        with Package(Path(path)) as package:
            data = read_sheet(open_workbook(package), SHEET)
        detail.update(kept=len(data.cells), seen=data.cells_seen, rows=data.rows_seen)
    elif mode == "extract":
        document = Document(sha256="0" * 64, app="excel", format="xlsx", source=path)
        with tempfile.TemporaryDirectory() as media:
            extract(Path(path), document, Path(media) / "m")
        detail.update(artifacts=len(document.artifacts), notes=document.notes)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"seconds": seconds, "peak_kb": peak, "base_kb": before, **detail}))


def measure(mode: str, path: Path) -> dict:
    output = subprocess.run(
        [sys.executable, __file__, "--child", mode, str(path)],
        check=True,
        capture_output=True,
        text=True,
        cwd=ROOT,
    ).stdout
    return json.loads(output.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--child", nargs=2, metavar=("MODE", "PATH"))
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "big.xlsx"
        build(path, args.rows)
        with zipfile.ZipFile(path) as archive:
            xml_mb = archive.getinfo(SHEET).file_size / 1e6
        results = {mode: measure(mode, path) for mode in ("lxml-parse", "read-sheet", "extract")}
    base = results["lxml-parse"]
    lines = [
        f"# Excel extraction benchmark ({args.rows:,} rows x 5 columns, sheet XML {xml_mb:.1f} MB)",
        "",
        "| run | seconds | s per MB | peak RSS above start (MB) | memory ratio | time ratio |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for mode, result in results.items():
        extra_mb = (result["peak_kb"] - result["base_kb"]) / 1024
        base_mb = (base["peak_kb"] - base["base_kb"]) / 1024
        time_ratio = result["seconds"] / base["seconds"]
        lines.append(
            f"| {mode} | {result['seconds']:.2f} | {result['seconds'] / xml_mb:.3f} | "
            f"{extra_mb:.1f} | {extra_mb / base_mb:.3f} | {time_ratio:.2f} |"
        )
    lines += ["", "Ratios are against `lxml-parse` (a plain lxml parse of the same sheet XML)."]
    lines += [f"- {mode}: {json.dumps(r)}" for mode, r in results.items()]
    report = "\n".join(lines) + "\n"
    print(report)
    (ROOT / "bench" / "excel_bench.md").write_text(report)


if __name__ == "__main__":
    main()
