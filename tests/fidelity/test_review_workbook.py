"""The review workbook as an annotator sees it: a status column, tables as cells, pictures inside
their own column, rows as tall as their text, and (rendered by LibreOffice) pages whose text
prints at its size, one question per page on the `questions` sheet."""

from __future__ import annotations

import re
import shutil
import statistics
import subprocess
from pathlib import Path

import openpyxl
import pytest

from fidelity.cli import main as cli
from fidelity.core.store import open_store
from fidelity.review.formats.xlsx import LINE_POINTS, MAX_ROW_POINTS, WIDTHS, wrapped_lines
from fidelity.review.formats.xlsx_print import QUESTIONS, TABLES, column_pixels
from fidelity.review.table_grid import table_rows
from tests.support.review_support import tasks_of
from tests.support.soffice import soffice_pdf

pytestmark = pytest.mark.slow  # whole builds: not in make test-quick

ROOT = Path(__file__).resolve().parents[2]
FILES = ("SolarOverview.docx", "garden_review.pptx")  # Word and slide tables, slide renders
SMALLEST_TEXT_POINTS = 7.0  # a printed word shorter than this is unreadable
BODY_TEXT_POINTS = 9.0
EMU_PER_PIXEL, EMU_PER_POINT = 9525, 12700


@pytest.fixture(scope="module")
def workbook(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The first annotator's workbook of a build of two fixtures, one task made unverified."""
    base = tmp_path_factory.mktemp("workbook")
    inputs, out = base / "in", base / "out"
    inputs.mkdir()
    for name in FILES:
        shutil.copy(ROOT / "fixtures" / name, inputs / name)
    assert cli(["build", str(inputs), "-o", str(out)]) == 0
    store = open_store(out)
    try:
        first = next(c for c, status, _, _ in store.candidates() if status == "kept")
        with store.transaction():
            store.set_status(first.id, "unverified")
    finally:
        store.close()
    assert cli(["review", "export", str(out), "--format", "xlsx"]) == 0
    return out / "review" / "xlsx" / "annotator-1.xlsx"


def columns(sheet: openpyxl.worksheet.worksheet.Worksheet) -> dict[str, int]:
    return {cell.value: cell.column for cell in sheet[1]}


@pytest.mark.needs("libreoffice")  # the build renders the deck's slides
def test_status_tables_pictures_and_row_heights(workbook: Path) -> None:
    out = workbook.parents[2]
    tasks = {task.id: task for task in tasks_of(out)}
    book = openpyxl.load_workbook(workbook)
    sheet, tables = book["tasks"], book[TABLES]
    at = columns(sheet)
    statuses = {
        sheet.cell(row, at["task_id"]).value: sheet.cell(row, at["status"]).value
        for row in range(2, sheet.max_row + 1)
    }
    assert statuses == {task.id: task.status for task in tasks.values()}
    assert sorted(set(statuses.values())) == ["kept", "unverified"]

    # No markup anywhere a person reads; each table's cells on the `tables` sheet, linked.
    for row in sheet.iter_rows(min_row=2, values_only=True):
        assert not any("<table" in str(value) or "<td" in str(value) for value in row if value)
    linked = 0
    for row in range(2, sheet.max_row + 1):
        task = tasks[sheet.cell(row, at["task_id"]).value]
        link = sheet.cell(row, at["table"]).hyperlink
        if not task.evidence_html:
            assert link is None
            continue
        start = int(re.fullmatch(rf"#'{TABLES}'!A(\d+)", link.location or link.target).group(1))
        expected = table_rows(task.evidence_html)
        shown = [
            [cell.value or "" for cell in line[: len(expected[0])]]
            for line in tables.iter_rows(min_row=start + 1, max_row=start + len(expected))
        ]
        assert shown == expected and task.id in tables.cell(start, 1).value
        linked += 1
    assert linked >= 2

    # Pictures sit in the `picture` column, no wider than it and no taller than their row.
    picture_px = column_pixels(WIDTHS["picture"])
    pictures = sheet._images
    assert len(pictures) == sum(1 for task in tasks.values() if task.image)
    for picture in pictures:
        marker, size = picture.anchor._from, picture.anchor.ext  # as drawn, in EMU
        assert marker.col + 1 == at["picture"] and (marker.colOff, marker.rowOff) == (0, 0)
        assert size.width / EMU_PER_PIXEL <= picture_px
        assert size.height / EMU_PER_POINT <= sheet.row_dimensions[marker.row + 1].height

    # Rows are as tall as their wrapped question, answer and evidence (up to Excel's limit).
    for row in range(2, sheet.max_row + 1):
        needed = max(
            wrapped_lines(str(sheet.cell(row, at[name]).value or ""), WIDTHS[name])
            for name in ("question", "answer", "evidence")
        )
        height = sheet.row_dimensions[row].height
        assert height >= min(MAX_ROW_POINTS, LINE_POINTS * needed)
        assert sheet.cell(row, at["evidence"]).alignment.wrap_text


@pytest.mark.needs("libreoffice", "poppler")
def test_printed_workbook_is_readable_one_question_per_page(workbook: Path, tmp_path: Path) -> None:
    pdf = soffice_pdf(workbook, tmp_path)
    boxes = subprocess.run(
        ["pdftotext", "-bbox", str(pdf), "-"], check=True, capture_output=True, text=True
    ).stdout
    word = re.compile(r'<word xMin="[\d.]+" yMin="([\d.]+)" xMax="[\d.]+" yMax="([\d.]+)"')
    heights = [float(y_max) - float(y_min) for y_min, y_max in word.findall(boxes)]
    assert len(heights) > 1000
    # A sheet shrunk to one page wide prints its words a few points tall; at full size the
    # 11-point text measures about 12 points (ascent to descent).
    assert min(heights) >= SMALLEST_TEXT_POINTS
    assert statistics.median(heights) >= BODY_TEXT_POINTS

    pages = subprocess.run(
        ["pdftotext", "-layout", str(pdf), "-"], check=True, capture_output=True, text=True
    ).stdout.split("\f")
    tasks = tasks_of(workbook.parents[2])
    book = openpyxl.load_workbook(workbook, read_only=True)
    assert QUESTIONS in book.sheetnames
    labels = [f"{number} of {len(tasks)}" for number in range(1, len(tasks) + 1)]
    starts = {}
    for index, text in enumerate(pages):
        for label in labels:
            if re.search(rf"^\s*{label}\s", text, re.MULTILINE):
                assert label not in starts, f"{label} starts two pages"
                starts[label] = index
    assert list(starts) == labels  # one question per page, in order
    ends = [*list(starts.values())[1:], len(pages)]
    for task, label, end in zip(tasks, labels, ends, strict=True):
        flat = " ".join(" ".join(pages[starts[label] : end]).split())
        assert " ".join(task.question.split()[:4]) in flat, label
        assert "correct (yes / no)" in flat  # the blanks an annotator fills in on paper
