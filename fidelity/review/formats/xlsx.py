"""Excel workbooks: one per annotator, one row per task, answer columns with drop-downs.

Sheet `tasks`: the task columns (read-only by convention, grey; `status` says whether a model
check confirmed the question or it is unverified), then the answer columns `correct` and
`evidence located` (yes/no lists), `evidence mark` (free text: paste the passage that answers
the question), `quality` (whole number 1-5), `comment`, and `revised question` / `revised
answer` (one statement per line) to edit the task (empty: no change). A table's cells are on
the sheet `tables` (the `table` column links to them); a picture (the image or the rendered
slide) sits inside the `picture` column, scaled to its width, its file named in `image file`;
rows are as tall as their wrapped text and picture (up to Excel's 409 points, past which the
evidence cell says where its full text is). A curator adds a hand-written item as a row
without a task_id: `file`, `locator`, `question`, `answer` (one statement per line) and, in
`evidence mark`, the answer as the file states it. The drop-downs reject other values
(stop-style error messages) and the header row stays frozen.

Printing: the sheet `questions` holds one question per A4 portrait page (every field in a
wide wrapped column, the evidence over as many rows as it needs, the picture and table
below), at full size; `tasks` and `tables` print at full size too, header repeated.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from zipfile import BadZipFile

from openpyxl import Workbook, load_workbook
from openpyxl.styles import Alignment, Font, PatternFill
from openpyxl.utils import get_column_letter
from openpyxl.utils.exceptions import InvalidFileException
from openpyxl.worksheet.datavalidation import DataValidation
from openpyxl.worksheet.properties import PageSetupProperties
from openpyxl.worksheet.worksheet import Worksheet

from fidelity.core.atomic import replacing
from fidelity.review.formats.xlsx_print import (
    column_pixels,
    place_picture,
    print_sheet,
    readable_evidence,
    table_sheet,
)
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
    "status",
    "app",
    "category",
    "file",
    "locator",
    "question",
    "answer",
    "evidence",
    "table",
    "image file",
    "picture",
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
WIDTHS = {
    "task_id": 18,
    "annotator": 12,
    "status": 11,
    "app": 11,
    "category": 16,
    "file": 22,
    "locator": 24,
    "question": 50,
    "answer": 50,
    "evidence": 60,
    "table": 22,
    "image file": 24,
    "picture": 46,
    "earlier answers": 30,
    "evidence mark": 30,
    "comment": 30,
    "revised question": 40,
    "revised answer": 40,
}
WRAPPED = (
    "question",
    "answer",
    "evidence",
    "locator",
    "file",
    "category",
    "earlier answers",
    "table",
    "image file",
)
LINE_POINTS = 15.0  # one wrapped line of 11-point text
MAX_ROW_POINTS = 409.0  # Excel's tallest row
PICTURE_PX = 300  # the tallest a picture is drawn in the tasks sheet
GREY = PatternFill("solid", fgColor="EEEEEE")
UNVERIFIED = PatternFill("solid", fgColor="FDF2D0")


def wrapped_lines(text: str, width: float) -> int:
    """Lines `text` takes wrapped in a column `width` characters wide (a little pessimistic)."""
    per_line = max(1, int(width * 1.1) - 2)
    return sum(len(part) // per_line + 1 for part in (text or "").splitlines() or [""])


def fitted(text: str, width: float, lines: int, elsewhere: str) -> str:
    """`text` cut to `lines` wrapped lines, saying where the rest is when it does not fit."""
    if wrapped_lines(text, width) <= lines:
        return text
    per_line = max(1, int(width * 1.1) - 2)
    kept = text[: per_line * (lines - 2)]
    return f"{kept}… [{len(text) - len(kept)} more characters: {elsewhere}]"


def _workbook(
    tasks: list[Task], out: Path, person: str, round_: str, previous: dict[str, list[Label]]
) -> Workbook:
    book = Workbook()
    sheet = book.worksheets[0]  # the one sheet a new workbook has
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
    tables = table_sheet(book, tasks)
    pages = print_sheet(book, tasks, out)
    max_lines = int(MAX_ROW_POINTS // LINE_POINTS)
    for row, task in enumerate(tasks, start=2):
        where = f"sheet 'questions' from row {pages[task.id]}"
        evidence = fitted(readable_evidence(task), WIDTHS["evidence"], max_lines, where)
        table = tables.get(task.id)
        sheet.append(
            [
                task.id,
                round_,
                person,
                task.status,
                task.app,
                task.category,
                task.file,
                task.locator,
                task.question,
                task.answer_text(),
                evidence,
                table.label if table else "",
                task.image or "",
                None,
                describe(previous.get(task.id, [])),
            ]
        )
        for name in TASK_COLUMNS:
            cell = sheet.cell(row, column[name])
            cell.fill = UNVERIFIED if name == "status" and task.status != "kept" else GREY
            cell.alignment = Alignment(wrap_text=name in WRAPPED, vertical="top")
        if table:
            sheet.cell(row, column["table"]).hyperlink = f"#'{table.sheet}'!A{table.row}"
            sheet.cell(row, column["table"]).font = Font(color="0563C1", underline="single")
        yes_no_list.add(sheet.cell(row, column["correct"]))
        yes_no_list.add(sheet.cell(row, column["evidence located"]))
        ratings.add(sheet.cell(row, column["quality"]))
        height = _height(task, evidence)
        picture = image_path(out, task.image)
        if picture:
            anchor = sheet.cell(row, column["picture"]).coordinate
            width = column_pixels(WIDTHS["picture"]) - 8
            drawn = place_picture(sheet, picture, anchor, width, PICTURE_PX)
            height = max(height, drawn * 0.75 + 6)
        sheet.row_dimensions[row].height = min(MAX_ROW_POINTS, height)
    for name, width in WIDTHS.items():
        sheet.column_dimensions[get_column_letter(column[name])].width = width
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
    """A4 landscape at full size (never shrunk to one page wide: the columns run over pages
    across, the header row and the task id on every page); `questions` is the sheet to print
    for reading."""
    sheet.page_setup.orientation = "landscape"
    sheet.page_setup.paperSize = sheet.PAPERSIZE_A4
    sheet.page_setup.scale = 100
    sheet.sheet_properties.pageSetUpPr = PageSetupProperties(fitToPage=False)
    sheet.print_title_rows = "1:1"
    sheet.print_title_cols = "A:A"
    sheet.print_options.gridLines = True


def _height(task: Task, evidence: str) -> float:
    """A row tall enough for its wrapped question, answer, evidence and locator (points)."""
    lines = max(
        wrapped_lines(text, WIDTHS[name])
        for name, text in (
            ("question", task.question),
            ("answer", task.answer_text()),
            ("evidence", evidence),
            ("locator", task.locator),
            ("file", task.file),
        )
    )
    return LINE_POINTS * lines + 4


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
        check.refuse("(workbook)", "(file)", f"not a readable .xlsx workbook ({error})")
    if SHEET not in book.sheetnames:
        check.refuse("(workbook)", "(sheet)", f"no sheet named {SHEET!r}")
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
