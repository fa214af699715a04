"""Excel workbooks: one per annotator, one row per task, answer columns with drop-downs.

Sheet `tasks`: the task columns (read-only by convention, grey), then the answer
columns `correct` and `evidence located` (yes/no lists), `evidence mark` (free text:
paste the passage that answers the question), `quality` (whole number 1-5) and
`comment`. Pictures (the image or the rendered slide) sit in the `image` column.
"""

from __future__ import annotations

from pathlib import Path

from openpyxl import Workbook, load_workbook
from openpyxl.drawing.image import Image as SheetImage
from openpyxl.styles import Alignment, Font, PatternFill
from openpyxl.worksheet.datavalidation import DataValidation
from openpyxl.worksheet.worksheet import Worksheet
from PIL import Image

from fidelity.review.labels import ADJUDICATION, ANNOTATORS, Label, describe, quality, yes_no
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
ANSWER_COLUMNS = ("correct", "evidence located", "evidence mark", "quality", "comment")
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
    yes_no_list = DataValidation(type="list", formula1='"yes,no"', allow_blank=True)
    ratings = DataValidation(
        type="whole", operator="between", formula1="1", formula2="5", allow_blank=True
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
    return book


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
    folder.mkdir(parents=True, exist_ok=True)
    people = ("adjudicator",) if round_ == ADJUDICATION else ANNOTATORS
    paths = []
    for person in people:
        path = folder / f"{person}.xlsx"
        _workbook(tasks, out, person, round_, previous).save(path)
        paths.append(path)
    return paths


def read(path: Path) -> list[Label]:
    sheet = load_workbook(path, read_only=True, data_only=True)[SHEET]
    rows = sheet.iter_rows(values_only=True)
    header = [str(name or "").strip().lower() for name in next(rows)]
    labels = []
    for values in rows:
        row = dict(zip(header, values, strict=False))
        if not row.get("task_id"):
            continue
        labels.append(
            Label(
                task_id=str(row["task_id"]),
                annotator=str(row.get("annotator") or path.stem),
                round=str(row.get("round") or "review"),
                correct=yes_no(row.get("correct")),
                evidence_located=yes_no(row.get("evidence located")),
                evidence_mark=str(row.get("evidence mark") or ""),
                quality=quality(row.get("quality")),
                comment=str(row.get("comment") or ""),
            )
        )
    return labels
