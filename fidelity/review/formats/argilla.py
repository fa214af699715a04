"""Argilla (2.x): dataset settings and records to log, and exported records read back.

Records have the shape of `rg.Record.to_dict()` / `Record.from_dict()` (the
`records.json` that `Dataset.to_disk` writes): `{"id", "fields", "metadata",
"suggestions", "responses", "vectors"}`, with `responses` as
`{question: [{"value", "user_id"}]}` (status, when an export carries it, is honoured:
discarded answers are skipped). `settings.json` follows `rg.Settings.serialize()`
(load it with `rg.Settings.from_json`). Two annotators per task: create the dataset
with `distribution=rg.TaskDistribution(min_submitted=2)`.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from fidelity.review.labels import REVIEW, Label, describe, quality, yes_no
from fidelity.review.tasks import Task, data_uri, image_path


def _text_field(name: str, title: str, required: bool = True) -> dict[str, Any]:
    settings = {"type": "text", "use_markdown": True}
    return {"name": name, "title": title, "required": required, "settings": settings}


def _choice(name: str, title: str) -> dict[str, Any]:
    options = [{"text": value, "value": value} for value in ("yes", "no")]
    return {
        "name": name,
        "title": title,
        "required": True,
        "settings": {"type": "label_selection", "options": options},
    }


SETTINGS: dict[str, Any] = {
    "guidelines": (
        "Check each question against its file. Is every answer statement correct? Can you "
        "find the evidence at the locator (mark the passage that answers it)? Rate the "
        "question from 1 (unusable) to 5 (excellent)."
    ),
    "fields": [
        _text_field("question", "Question"),
        _text_field("answer", "Answer (atomic statements)"),
        _text_field("where", "Application · category · file · locator"),
        _text_field("evidence_text", "Evidence text"),
        _text_field("evidence_html", "Evidence (table / picture)", required=False),
        {
            "name": "image",
            "title": "Image or rendered slide",
            "required": False,
            "settings": {"type": "image"},
        },
        _text_field("previous", "Earlier answers (adjudication only)", required=False),
    ],
    "questions": [
        _choice("correct", "Is the answer correct?"),
        _choice("evidence_located", "Could you locate the evidence in the file?"),
        {
            "name": "evidence_mark",
            "title": "Mark the passage that answers the question",
            "required": False,
            "settings": {
                "type": "span",
                "field": "evidence_text",
                "options": [{"text": "Evidence", "value": "Evidence"}],
                "allow_overlapping": False,
            },
        },
        {
            "name": "quality",
            "title": "Question quality (1 = unusable, 5 = excellent)",
            "required": True,
            "settings": {"type": "rating", "options": [{"value": n} for n in range(1, 6)]},
        },
        {
            "name": "comment",
            "title": "Comment",
            "required": False,
            "settings": {"type": "text", "use_markdown": False},
        },
    ],
    "vectors": [],
    "metadata": [],
    "allow_extra_metadata": True,
}


def record(task: Task, out: Path, round_: str, previous: list[Label]) -> dict[str, Any]:
    picture = image_path(out, task.image)
    fields = {
        "question": task.question,
        "answer": task.answer_text(),
        "where": task.where,
        "evidence_text": task.evidence_text or "(no text: see the evidence)",
        "evidence_html": task.evidence_html or "",
        "image": data_uri(picture) if picture else None,
        "previous": describe(previous) if previous else "",
    }
    return {
        "id": task.id if round_ == REVIEW else f"{task.id}-{round_}",
        "fields": {key: value for key, value in fields.items() if value},
        "metadata": {"task_id": task.id, "round": round_, "category": task.category},
        "suggestions": {},
        "responses": {},
        "vectors": {},
    }


def export(
    tasks: list[Task], folder: Path, out: Path, round_: str, previous: dict[str, list[Label]]
) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    records = [record(task, out, round_, previous.get(task.id, [])) for task in tasks]
    records_path = folder / "records.json"
    records_path.write_text(json.dumps(records, ensure_ascii=False, indent=1))
    settings_path = folder / "settings.json"
    settings_path.write_text(json.dumps(SETTINGS, indent=1))
    return [records_path, settings_path]


def _mark(value: Any, text: str) -> str:
    """Span answers ([{"label", "start", "end"}]) as the marked text."""
    if isinstance(value, str):
        return value
    spans = value if isinstance(value, list) else []
    return " … ".join(text[span["start"] : span["end"]] for span in spans if isinstance(span, dict))


def read(path: Path) -> list[Label]:
    """One Label per (record, user) with at least one submitted answer."""
    labels = []
    for item in json.loads(path.read_text()):
        metadata = item.get("metadata") or {}
        task_id = str(metadata.get("task_id") or item["id"])
        round_ = metadata.get("round", REVIEW)
        evidence = (item.get("fields") or {}).get("evidence_text", "")
        answers: dict[str, dict[str, Any]] = defaultdict(dict)
        for question, responses in (item.get("responses") or {}).items():
            for response in responses:
                if response.get("status") == "discarded":
                    continue
                answers[str(response.get("user_id"))][question] = response.get("value")
        for user, given in answers.items():
            labels.append(
                Label(
                    task_id=task_id,
                    annotator=user,
                    round=round_,
                    correct=yes_no(given.get("correct")),
                    evidence_located=yes_no(given.get("evidence_located")),
                    evidence_mark=_mark(given.get("evidence_mark"), evidence),
                    quality=quality(given.get("quality")),
                    comment=str(given.get("comment") or ""),
                )
            )
    return labels
