"""Label Studio: tasks to import with their labeling config, and the JSON export read back.

Tasks follow Label Studio's basic JSON import format (labelstud.io/guide/tasks):
a list of `{"data": {...}}` whose keys are the `$variables` of `label_config.xml`.
Label Studio's JSON export (labelstud.io/guide/task_format) returns each task with
`"annotations": [{"completed_by", "was_cancelled", "result": [{"from_name", "to_name",
"type", "value"}]}]`: choices in `value.choices`, the rating in `value.rating`, marked
text spans in `value.start/end/text/labels`, the comment and revisions in `value.text`.
`completed_by` is a user id in the plain export and `{"id", "email", "first_name",
"last_name"}` in a snapshot export; answers are named by e-mail (else name) when given.
Two annotators per task: set the project's overlap to 2 annotations per task.
"""

from __future__ import annotations

import base64
import html
from pathlib import Path
from typing import Any

from fidelity.core.atomic import write_json, write_text
from fidelity.review.items import HandItem
from fidelity.review.labels import Checker, Label, describe, load_json
from fidelity.review.tasks import Task, data_uri, image_path

CONFIG = """<View>
  <Header value="Question"/>
  <Text name="question" value="$question"/>
  <Header value="Answer (atomic statements)"/>
  <Text name="answer" value="$answer"/>
  <Text name="where" value="$where"/>
  <Header value="Evidence in the file"/>
  <HyperText name="evidence" value="$evidence_html"/>
  <Image name="picture" value="$image"/>
  <Header value="Mark the passage that answers the question (if you find it)"/>
  <Labels name="evidence_mark" toName="evidence_text">
    <Label value="Evidence"/>
  </Labels>
  <Text name="evidence_text" value="$evidence_text"/>
  <Header value="Earlier answers (adjudication only)"/>
  <Text name="previous" value="$previous"/>
  <Header value="Is the answer correct? (If you correct it below, judge your version.)"/>
  <Choices name="correct" toName="question" choice="single-radio" required="true">
    <Choice value="yes"/>
    <Choice value="no"/>
  </Choices>
  <Header value="Could you locate the evidence in the file?"/>
  <Choices name="evidence_located" toName="question" choice="single-radio" required="true">
    <Choice value="yes"/>
    <Choice value="no"/>
  </Choices>
  <Header value="Question quality (1 = unusable, 5 = excellent)"/>
  <Rating name="quality" toName="question" maxRating="5" required="true"/>
  <TextArea name="comment" toName="question" placeholder="Comment (optional)"/>
  <Header value="Edit the question (leave empty to keep it)"/>
  <TextArea name="revised_question" toName="question" maxSubmissions="1" editable="true"/>
  <Header value="Correct the answer: one statement per line (leave empty to keep it)"/>
  <TextArea name="revised_answer" toName="answer" rows="4" maxSubmissions="1" editable="true"/>
</View>
"""
CONTROLS: tuple[str, ...] = ("correct", "evidence_located", "quality", "evidence_mark", "comment")
CONTROLS += ("revised_question", "revised_answer")
NO_PICTURE = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="320" height="40">'
    '<text x="8" y="26" font-family="sans-serif" font-size="16" fill="#666">'
    "(no picture for this task)</text></svg>"
)


def evidence_html(task: Task) -> str:
    """Locator and table HTML; the picture has its own `<Image>` (HyperText drops data URIs)."""
    parts = [f"<p><b>{html.escape(task.where)}</b></p>"]
    if task.evidence_html:
        parts.append(task.evidence_html)
    return "<div>" + "".join(parts) + "</div>"


def picture_uri(task: Task, out: Path) -> str:
    """The task's image or rendered slide inline, else a picture saying there is none."""
    picture = image_path(out, task.image)
    if picture:
        return data_uri(picture)
    return "data:image/svg+xml;base64," + base64.b64encode(NO_PICTURE.encode()).decode()


def task_json(task: Task, out: Path, round_: str, previous: list[Label]) -> dict[str, Any]:
    return {
        "data": {
            "task_id": task.id,
            "round": round_,
            "question": task.question,
            "answer": task.answer_text(),
            "where": task.where,
            "evidence_html": evidence_html(task),
            "image": picture_uri(task, out),
            "evidence_text": task.evidence_text or "(no text: see the evidence above)",
            "previous": describe(previous) if previous else "(first review round)",
        }
    }


def export(
    tasks: list[Task], folder: Path, out: Path, round_: str, previous: dict[str, list[Label]]
) -> list[Path]:
    items = [task_json(task, out, round_, previous.get(task.id, [])) for task in tasks]
    tasks_path = folder / "tasks.json"
    write_json(tasks_path, items)
    config_path = folder / "label_config.xml"
    write_text(config_path, CONFIG)
    return [tasks_path, config_path]


def annotator(value: Any) -> str:
    """The annotator's e-mail, else name, from `completed_by` (an object in snapshot exports)."""
    if isinstance(value, dict):
        name = " ".join(str(value.get(key) or "") for key in ("first_name", "last_name")).strip()
        value = value.get("email") or name or value.get("id")
        return str(value) if value not in (None, "") else "unknown"
    return f"labelstudio user {value}" if value not in (None, "") else "unknown"


def _text(value: dict[str, Any]) -> str:
    text = value.get("text", [])
    return "\n".join(map(str, text)) if isinstance(text, list) else str(text)


def read(path: Path) -> tuple[list[Label], list[HandItem]]:
    """Every non-cancelled annotation of the export as a Label."""
    check = Checker(path)
    labels = []
    for number, item in enumerate(load_json(path, check), start=1):
        data = item.get("data") if isinstance(item, dict) else None
        where = f"task {number} (Label Studio id {item.get('id', '?')})" if data else ""
        if not isinstance(data, dict) or not data.get("task_id"):
            check.fail(where or f"item {number}", "data.task_id", "missing: not a fidelity task")
            continue
        for annotation in item.get("annotations") or []:
            if annotation.get("was_cancelled"):
                continue
            label = _label(check, data, annotation, where)
            labels.append(label)
    check.done()
    return labels, []


def _label(check: Checker, data: dict[str, Any], annotation: dict[str, Any], where: str) -> Label:
    label = Label(
        task_id=str(data["task_id"]),
        annotator=annotator(annotation.get("completed_by")),
        round=check.round(data.get("round"), where),
        source=str(check.path),
        where=where,
    )
    where = f"{where}, annotation {annotation.get('id', '?')}"
    marks = []
    for result in annotation.get("result") or []:
        name, value = result.get("from_name"), result.get("value") or {}
        if name in ("correct", "evidence_located"):
            setattr(label, name, check.yes_no(value.get("choices"), where, name))
        elif name == "quality":
            label.quality = check.quality(value.get("rating"), where, name)
        elif name == "evidence_mark":
            marks.append(check.text(value.get("text"), where, name))
        elif name == "comment":
            label.comment = _text(value)
        elif name == "revised_question":
            label.revised_question = _text(value).strip()
        elif name == "revised_answer":
            label.revised_answer = check.statements(_text(value), where, name)
        else:
            check.fail(where, str(name), f"unknown control (expected: {', '.join(CONTROLS)})")
    label.evidence_mark = " … ".join(mark for mark in marks if mark)
    return label
