"""Excel workbooks: one per annotator, one row per task, answer columns with drop-downs.

Sheet `tasks`: the task columns (read-only by convention, grey), then the answer
columns `correct` and `evidence located` (yes/no lists), `evidence mark` (free text:
paste the passage that answers the question), `quality` (whole number 1-5), `comment`,
and `revised question` / `revised answer` (one statement per line) to edit the task
(empty: no change). Pictures (the image or the rendered slide) sit in the `image`
column. A curator adds a hand-written item as a row without a task_id: `file`,
`locator`, `question`, `answer` (one statement per line) and, in `evidence mark`, the
answer as the file states it. The drop-downs reject other values (stop-style error
messages), the header row stays frozen, and the sheet prints on landscape pages one
page wide, header repeated.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from zipfile import BadZipFile

from openpyxl import Workbook, load_workbook
from openpyxl.drawing.image import Image as SheetImage
from openpyxl.styles import Alignment, Font, PatternFill
from openpyxl.utils.exceptions import InvalidFileException
from openpyxl.worksheet.datavalidation import DataValidation
from openpyxl.worksheet.worksheet import Worksheet
from PIL import Image

from fidelity.review.files import replacing
from fidelity.review.items import HandItem, parse_item
from fidelity.review.labels import (
    ACCEPTED_QUALITY,
    ADJUDICATION,
    ANNOTATORS,
    Checker,
    Label,
    describe,
)
from fidelity.review.tasks import Task, image_path

SHEET = "tasks"
TASK_COLUMNS = (
    "task_id",
    "round",
    "annotator",
    "app",
    "category",
    "file",
    "locator",
    "question",
    "answer",
    "evidence",
    "table html",
    "image",
    "earlier answers",
)
ANSWER_COLUMNS = (
    "correct",
    "evidence located",
    "evidence mark",
    "quality",
    "comment",
    "revised question",
    "revised answer",
)
REQUIRED_COLUMNS = ("task_id", "round", "annotator", *ANSWER_COLUMNS)
ITEM_COLUMNS = ("file", "locator", "question", "answer")
IMAGE_HEIGHT = 160
WIDTHS = {
    "task_id": 18,
    "annotator": 12,
    "app": 11,
    "category": 16,
    "file": 22,
    "locator": 24,
    "question": 50,
    "answer": 50,
    "evidence": 60,
    "table html": 30,
    "image": 30,
    "earlier answers": 30,
    "evidence mark": 30,
    "comment": 30,
    "revised question": 40,
    "revised answer": 40,
}
MAX_LINES = 12
GREY = PatternFill("solid", fgColor="EEEEEE")


def _workbook(
    tasks: list[Task], out: Path, person: str, round_: str, previous: dict[str, list[Label]]
) -> Workbook:
    book = Workbook()
    sheet = book.active
    sheet.title = SHEET
    sheet.append([*TASK_COLUMNS, *ANSWER_COLUMNS])
    for cell in sheet[1]:
        cell.font = Font(bold=True)
    column = {name: index + 1 for index, name in enumerate((*TASK_COLUMNS, *ANSWER_COLUMNS))}
    yes_no_list = _validation(
        DataValidation(type="list", formula1='"yes,no"', allow_blank=True), "yes or no"
    )
    ratings = _validation(
        DataValidation(
            type="whole", operator="between", formula1="1", formula2="5", allow_blank=True
        ),
        ACCEPTED_QUALITY,
    )
    sheet.add_data_validation(yes_no_list)
    sheet.add_data_validation(ratings)
    for row, task in enumerate(tasks, start=2):
        sheet.append(
            [
                task.id,
                round_,
                person,
                task.app,
                task.category,
                task.file,
                task.locator,
                task.question,
                task.answer_text(),
                task.evidence_text,
                task.evidence_html or "",
                task.image or "",
                describe(previous.get(task.id, [])),
            ]
        )
        for name in TASK_COLUMNS:
            cell = sheet.cell(row, column[name])
            cell.fill = GREY
            cell.alignment = Alignment(wrap_text=True, vertical="top")
        yes_no_list.add(sheet.cell(row, column["correct"]))
        yes_no_list.add(sheet.cell(row, column["evidence located"]))
        ratings.add(sheet.cell(row, column["quality"]))
        sheet.row_dimensions[row].height = _height(task)
        picture = image_path(out, task.image)
        if picture:
            _embed(sheet, picture, sheet.cell(row, column["image"]).coordinate, row)
    for name, width in WIDTHS.items():
        sheet.column_dimensions[sheet.cell(1, column[name]).column_letter].width = width
    sheet.freeze_panes = "B2"
    _print_setup(sheet)
    return book


def _validation(rule: DataValidation, accepted: str) -> DataValidation:
    """A drop-down or range that rejects anything else, saying what is accepted."""
    rule.errorStyle = "stop"
    rule.showErrorMessage = True
    rule.errorTitle = "Not an allowed answer"
    rule.error = f"Enter {accepted}."
    rule.showInputMessage = True
    rule.promptTitle = "Answer"
    rule.prompt = accepted
    return rule


def _print_setup(sheet: Worksheet) -> None:
    """Landscape pages one page wide (rows flow down), the header row on every page."""
    sheet.page_setup.orientation = "landscape"
    sheet.page_setup.paperSize = sheet.PAPERSIZE_A4
    sheet.page_setup.fitToWidth = 1
    sheet.page_setup.fitToHeight = 0
    sheet.sheet_properties.pageSetUpPr.fitToPage = True
    sheet.print_title_rows = "1:1"
    sheet.print_options.gridLines = True


def _height(task: Task) -> float:
    """A row tall enough for the wrapped question, answer and evidence (in points)."""
    lines = max(
        sum(len(part) // WIDTHS[name] + 1 for part in text.splitlines() or [""])
        for name, text in (
            ("question", task.question),
            ("answer", task.answer_text()),
            ("evidence", task.evidence_text),
        )
    )
    return 15.0 * min(MAX_LINES, lines)


def _embed(sheet: Worksheet, picture: Path, anchor: str, row: int) -> None:
    try:
        with Image.open(picture) as image:
            width, height = image.size
    except OSError:
        return  # not a raster picture openpyxl can place (e.g. EMF): the path column names it
    scale = min(1.0, IMAGE_HEIGHT / max(1, height))
    placed = SheetImage(str(picture))
    placed.width, placed.height = int(width * scale), int(height * scale)
    sheet.add_image(placed, anchor)
    sheet.row_dimensions[row].height = max(
        sheet.row_dimensions[row].height or 0, placed.height * 0.75
    )


def export(
    tasks: list[Task], folder: Path, out: Path, round_: str, previous: dict[str, list[Label]]
) -> list[Path]:
    people = ("adjudicator",) if round_ == ADJUDICATION else ANNOTATORS
    paths = []
    for person in people:
        path = folder / f"{person}.xlsx"
        book = _workbook(tasks, out, person, round_, previous)
        with replacing(path, binary=True) as handle:
            book.save(handle)
        paths.append(path)
    return paths


def read(path: Path) -> tuple[list[Label], list[HandItem]]:
    check = Checker(path)
    try:
        book = load_workbook(path, read_only=True, data_only=True)
    except (OSError, ValueError, KeyError, BadZipFile, InvalidFileException) as error:
        check.fail("(workbook)", "(file)", f"not a readable .xlsx workbook ({error})")
        check.done()
    if SHEET not in book.sheetnames:
        check.fail("(workbook)", "(sheet)", f"no sheet named {SHEET!r}")
        check.done()
    rows = book[SHEET].iter_rows(values_only=True)
    header = [str(name or "").strip().lower() for name in next(rows, ())]
    for name in REQUIRED_COLUMNS:
        if name not in header:
            check.fail("row 1", name, f"missing column (expected: {', '.join(REQUIRED_COLUMNS)})")
    check.done()
    labels, items = [], []
    for number, values in enumerate(rows, start=2):
        row = dict(zip(header, values, strict=False))
        if row.get("task_id"):
            labels.append(_label(check, row, f"row {number}", path))
        elif any(row.get(name) for name in ITEM_COLUMNS):
            item = _item(check, row, f"row {number}", path)
            items.extend([item] if item else [])
    book.close()
    check.done()
    return labels, items


def _item(check: Checker, row: dict[str, Any], where: str, path: Path) -> HandItem | None:
    """A curator's row without a task id: a hand-written item (the mark is its value)."""
    fields = {name: row.get(name) for name in ("file", "locator", "question", "answer")}
    fields["value"] = row.get("evidence mark")
    curator = check.text(row.get("annotator"), where, "annotator") or path.stem
    return parse_item(check, fields, where, curator)


def _label(check: Checker, row: dict[str, Any], where: str, path: Path) -> Label:
    return Label(
        task_id=check.text(row["task_id"], where, "task_id"),
        annotator=check.text(row.get("annotator"), where, "annotator") or path.stem,
        round=check.round(row.get("round"), where),
        correct=check.yes_no(row.get("correct"), where, "correct"),
        evidence_located=check.yes_no(row.get("evidence located"), where, "evidence located"),
        evidence_mark=check.text(row.get("evidence mark"), where, "evidence mark"),
        quality=check.quality(row.get("quality"), where, "quality"),
        comment=check.text(row.get("comment"), where, "comment"),
        revised_question=check.text(row.get("revised question"), where, "revised question"),
        revised_answer=check.statements(row.get("revised answer"), where, "revised answer"),
        source=str(path),
        where=where,
    )
