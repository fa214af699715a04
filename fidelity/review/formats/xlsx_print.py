"""The review workbook's sheets beside `tasks`: `tables` (each task's table as cells) and
`questions` (one question per A4 portrait page, printed at full size)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from openpyxl import Workbook
from openpyxl.drawing.image import Image as SheetImage
from openpyxl.styles import Alignment, Border, Font, PatternFill, Side
from openpyxl.worksheet.page import PageMargins
from openpyxl.worksheet.pagebreak import Break
from openpyxl.worksheet.properties import PageSetupProperties
from openpyxl.worksheet.worksheet import Worksheet
from PIL import Image

from fidelity.review.table_grid import table_rows
from fidelity.review.tasks import Task, image_path

TABLES = "tables"
QUESTIONS = "questions"
LABEL_WIDTH, VALUE_WIDTH = 12, 56  # one A4 portrait page wide at 100 % (LibreOffice too)
TABLE_COLUMN_WIDTH = 16
CHUNK_LINES = 24  # evidence lines per row of the printed page (rows never split)
LINE_POINTS = 15.0
PICTURE_MAX_PX = 620
BLANKS = ("correct (yes / no)", "evidence located (yes / no)", "quality (1-5)", "comment")
HEADER = PatternFill("solid", fgColor="DDE4EE")
LINE = Side(style="thin", color="999999")


@dataclass
class TablePlace:
    """Where a task's table starts on the `tables` sheet, and how to name it."""

    sheet: str
    row: int
    label: str


def grid_text(rows: list[list[str]]) -> str:
    return "\n".join(" | ".join(cell for cell in row) for row in rows)


def readable_evidence(task: Task) -> str:
    """The evidence as a person reads it: a table's cells row by row instead of its markup."""
    rows = table_rows(task.evidence_html) if task.evidence_html else []
    if not rows:
        return task.evidence_text
    first = task.evidence_text.splitlines()[0] if task.evidence_text else ""
    title = first if first and not first.lstrip().startswith("<") else ""
    return "\n".join(part for part in (title, grid_text(rows)) if part)


def table_sheet(book: Workbook, tasks: list[Task]) -> dict[str, TablePlace]:
    """Each task's table as cells on the sheet `tables`, under a line naming its task."""
    sheet = book.create_sheet(TABLES)
    places: dict[str, TablePlace] = {}
    row, widest = 1, 1
    for task in tasks:
        rows = table_rows(task.evidence_html) if task.evidence_html else []
        if not rows:
            continue
        title = sheet.cell(row, 1, f"task {task.id}: {task.file} · {task.locator}")
        title.font = Font(bold=True)
        places[task.id] = TablePlace(
            TABLES, row, f"{len(rows)} rows × {len(rows[0])} columns: sheet '{TABLES}' row {row}"
        )
        for r, values in enumerate(rows, start=row + 1):
            for c, value in enumerate(values, start=1):
                cell = sheet.cell(r, c, value or None)
                cell.alignment = Alignment(wrap_text=True, vertical="top")
                cell.border = Border(left=LINE, right=LINE, top=LINE, bottom=LINE)
                if r == row + 1:
                    cell.fill = HEADER
        widest = max(widest, len(rows[0]))
        row += len(rows) + 2
    for column in range(1, widest + 1):
        sheet.column_dimensions[sheet.cell(1, column).column_letter].width = TABLE_COLUMN_WIDTH
    full_size(sheet, "landscape")
    sheet.print_options.gridLines = False
    return places


def chunks(text: str, width: int, lines: int) -> list[str]:
    """`text` in pieces of at most `lines` wrapped lines (a very long line is cut too)."""
    per_line = max(1, int(width * 1.1) - 2)
    pieces: list[str] = []
    current: list[str] = []
    used = 0
    for line in (text or "").splitlines() or [""]:
        while len(line) > per_line * lines:
            pieces.append(line[: per_line * lines])
            line = line[per_line * lines :]
        need = len(line) // per_line + 1
        if current and used + need > lines:
            pieces.append("\n".join(current))
            current, used = [], 0
        current.append(line)
        used += need
    pieces.append("\n".join(current))
    return pieces


def print_sheet(book: Workbook, tasks: list[Task], out: Path) -> dict[str, int]:
    """The sheet `questions`: one question per page; each task's first row."""
    sheet = book.create_sheet(QUESTIONS)
    sheet.column_dimensions["A"].width = LABEL_WIDTH
    sheet.column_dimensions["B"].width = VALUE_WIDTH
    first: dict[str, int] = {}
    row = 1

    def line(label: str, value: str, *, bold: bool = False, boxed: bool = False) -> None:
        nonlocal row
        name = sheet.cell(row, 1, label)
        name.font = Font(bold=True, color="555555")
        name.alignment = Alignment(vertical="top", wrap_text=True)
        cell = sheet.cell(row, 2, value)
        cell.alignment = Alignment(wrap_text=True, vertical="top")
        cell.font = Font(bold=bold, size=12 if bold else 11)
        if boxed:
            cell.border = Border(left=LINE, right=LINE, top=LINE, bottom=LINE)
        wrapped = sum(len(part) // (VALUE_WIDTH - 2) + 1 for part in value.splitlines() or [""])
        sheet.row_dimensions[row].height = max(LINE_POINTS * (2 if boxed else wrapped) + 3, 16)
        row += 1

    for number, task in enumerate(tasks, start=1):
        first[task.id] = row
        line(f"{number} of {len(tasks)}", task.question, bold=True)
        line("answer", task.answer_text())
        line("status", task.status)
        line("where", task.where)
        line("task id", task.id)
        for index, piece in enumerate(chunks(readable_evidence(task), VALUE_WIDTH, CHUNK_LINES)):
            line("evidence" if index == 0 else "", piece)
        picture = image_path(out, task.image)
        width = column_pixels(VALUE_WIDTH) - 8
        if picture and (drawn := place_picture(sheet, picture, f"B{row}", width, PICTURE_MAX_PX)):
            sheet.cell(row, 1, task.image_kind or "picture").font = Font(bold=True, color="555555")
            sheet.row_dimensions[row].height = drawn * 0.75 + 6
            row += 1
        for blank in BLANKS:
            line(blank, "", boxed=True)
        sheet.row_breaks.append(Break(id=row - 1))
        row += 1
    full_size(sheet, "portrait")
    sheet.print_options.gridLines = False
    return first


def column_pixels(width: float) -> int:
    """A column's width in pixels (Excel's rule for its default font)."""
    return int(width * 7 + 5)


def place_picture(
    sheet: Worksheet, picture: Path, anchor: str, width_px: int, height_px: int
) -> float:
    """The picture at `anchor`, scaled down to fit `width_px` × `height_px` (so it stays inside
    its cell's column); its drawn height in pixels, 0 when it is not a raster picture openpyxl
    can place (e.g. EMF: its file is named beside it)."""
    try:
        with Image.open(picture) as image:
            width, height = image.size
    except OSError:
        return 0.0
    scale = min(1.0, width_px / max(1, width), height_px / max(1, height))
    placed = SheetImage(str(picture))
    placed.width, placed.height = max(1, int(width * scale)), max(1, int(height * scale))
    sheet.add_image(placed, anchor)
    return float(placed.height)


def full_size(sheet: Worksheet, orientation: Literal["portrait", "landscape"]) -> None:
    """A4 at 100 % (never shrunk to fit, so the text prints at its size)."""
    sheet.page_setup.orientation = orientation
    sheet.page_setup.paperSize = sheet.PAPERSIZE_A4
    sheet.page_setup.scale = 100
    sheet.sheet_properties.pageSetUpPr = PageSetupProperties(fitToPage=False)
    sheet.page_margins = PageMargins(left=0.5, right=0.5, top=0.6, bottom=0.6)
