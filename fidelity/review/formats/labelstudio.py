"""Label Studio: tasks to import with their labeling config, and the JSON export read back.

Tasks follow Label Studio's basic JSON import format (labelstud.io/guide/tasks):
a list of `{"data": {...}}` whose keys are the `$variables` of `label_config.xml`.
Label Studio's JSON export (labelstud.io/guide/task_format) returns each task with
`"annotations": [{"completed_by", "was_cancelled", "result": [{"from_name", "to_name",
"type", "value"}]}]`: choices in `value.choices`, the rating in `value.rating`, marked
text spans in `value.start/end/text/labels`, the comment in `value.text`.
Two annotators per task: set the project's overlap to 2 annotations per task.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from fidelity.review.labels import REVIEW, Label, describe, quality, yes_no
from fidelity.review.tasks import Task, data_uri, image_path

CONFIG = """<View>
  <Header value="Question"/>
  <Text name="question" value="$question"/>
  <Header value="Answer (atomic statements)"/>
  <Text name="answer" value="$answer"/>
  <Text name="where" value="$where"/>
  <Header value="Evidence in the file"/>
  <HyperText name="evidence" value="$evidence_html"/>
  <Header value="Mark the passage that answers the question (if you find it)"/>
  <Labels name="evidence_mark" toName="evidence_text">
    <Label value="Evidence"/>
  </Labels>
  <Text name="evidence_text" value="$evidence_text"/>
  <Header value="Earlier answers (adjudication only)"/>
  <Text name="previous" value="$previous"/>
  <Header value="Is the answer correct?"/>
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
</View>
"""


def evidence_html(task: Task, out: Path) -> str:
    """Locator, table HTML and picture (inline, so the task needs no file server)."""
    parts = [f"<p><b>{html.escape(task.where)}</b></p>"]
    if task.evidence_html:
        parts.append(task.evidence_html)
    picture = image_path(out, task.image)
    if picture:
        title = "Rendered slide" if task.image_kind == "slide" else "Image"
        parts.append(f'<p>{title}:</p><img src="{data_uri(picture)}" style="max-width:100%"/>')
    return "<div>" + "".join(parts) + "</div>"


def task_json(task: Task, out: Path, round_: str, previous: list[Label]) -> dict[str, Any]:
    return {
        "data": {
            "task_id": task.id,
            "round": round_,
            "question": task.question,
            "answer": task.answer_text(),
            "where": task.where,
            "evidence_html": evidence_html(task, out),
            "evidence_text": task.evidence_text or "(no text: see the evidence above)",
            "previous": describe(previous) if previous else "(first review round)",
        }
    }


def export(
    tasks: list[Task], folder: Path, out: Path, round_: str, previous: dict[str, list[Label]]
) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    items = [task_json(task, out, round_, previous.get(task.id, [])) for task in tasks]
    tasks_path = folder / "tasks.json"
    tasks_path.write_text(json.dumps(items, ensure_ascii=False, indent=1))
    config_path = folder / "label_config.xml"
    config_path.write_text(CONFIG)
    return [tasks_path, config_path]


def _annotator(value: Any) -> str:
    if isinstance(value, dict):
        value = value.get("email") or value.get("id")
    return str(value) if value not in (None, "") else "unknown"


def read(path: Path) -> list[Label]:
    """Every non-cancelled annotation of the export as a Label."""
    labels = []
    for item in json.loads(path.read_text()):
        data = item.get("data", {})
        for annotation in item.get("annotations", []):
            if annotation.get("was_cancelled"):
                continue
            label = Label(
                task_id=str(data["task_id"]),
                annotator=_annotator(annotation.get("completed_by")),
                round=data.get("round", REVIEW),
            )
            marks = []
            for result in annotation.get("result", []):
                name, value = result.get("from_name"), result.get("value", {})
                if name in ("correct", "evidence_located"):
                    setattr(label, name, yes_no(value.get("choices")))
                elif name == "quality":
                    label.quality = quality(value.get("rating"))
                elif name == "evidence_mark":
                    marks.append(value.get("text", ""))
                elif name == "comment":
                    label.comment = " ".join(value.get("text", []))
            label.evidence_mark = " … ".join(mark for mark in marks if mark)
            labels.append(label)
    return labels
