"""Argilla (2.x): dataset settings and records to log, and exported records read back.

Records have the shape of `rg.Record.to_dict()` / `Record.from_dict()` (the
`records.json` that `Dataset.to_disk` writes): `{"id", "fields", "metadata",
"suggestions", "responses", "vectors"}`, with `responses` as
`{question: [{"value", "user_id"}]}` (status, when an export carries it, is honoured:
discarded answers are skipped). `settings.json` follows `rg.Settings.serialize()`
(load it with `rg.Settings.from_json`); it carries the task distribution of two
submissions per record (`rg.TaskDistribution(min_submitted=2)`).
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

from fidelity.core.atomic import write_json
from fidelity.review.items import HandItem
from fidelity.review.labels import REVIEW, Checker, Label, describe, load_json
from fidelity.review.tasks import Task, data_uri, image_path

SUBMISSIONS = 2


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


def _text_question(name: str, title: str) -> dict[str, Any]:
    settings = {"type": "text", "use_markdown": False}
    return {"name": name, "title": title, "required": False, "settings": settings}


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
        _text_question("comment", "Comment"),
        _text_question("revised_question", "Edit the question (leave empty to keep it)"),
        _text_question(
            "revised_answer", "Correct the answer: one statement per line (leave empty to keep it)"
        ),
    ],
    "vectors": [],
    "metadata": [],
    "allow_extra_metadata": True,
    "distribution": {"strategy": "overlap", "min_submitted": SUBMISSIONS},
}
QUESTIONS = tuple(question["name"] for question in SETTINGS["questions"])


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
    records = [record(task, out, round_, previous.get(task.id, [])) for task in tasks]
    records_path = folder / "records.json"
    write_json(records_path, records)
    settings_path = folder / "settings.json"
    write_json(settings_path, SETTINGS)
    return [records_path, settings_path]


def _mark(value: Any, text: str) -> str:
    """Span answers ([{"label", "start", "end"}]) as the marked text."""
    if isinstance(value, str):
        return value
    spans = value if isinstance(value, list) else []
    return " … ".join(text[span["start"] : span["end"]] for span in spans if isinstance(span, dict))


def read(path: Path) -> tuple[list[Label], list[HandItem]]:
    """One Label per (record, user) with at least one answer that was not discarded."""
    check = Checker(path)
    labels = []
    for number, item in enumerate(load_json(path, check), start=1):
        metadata = (item.get("metadata") if isinstance(item, dict) else None) or {}
        where = f"record {number} (id {item.get('id', '?')})" if isinstance(item, dict) else ""
        task_id = str(metadata.get("task_id") or "")
        if not task_id:
            check.fail(
                where or f"record {number}", "metadata.task_id", "missing: not a fidelity record"
            )
            continue
        round_ = check.round(metadata.get("round", REVIEW), where)
        evidence = (item.get("fields") or {}).get("evidence_text", "")
        answers: dict[str, dict[str, Any]] = defaultdict(dict)
        for question, responses in (item.get("responses") or {}).items():
            if question not in QUESTIONS:
                check.fail(where, question, f"unknown question (expected: {', '.join(QUESTIONS)})")
                continue
            for response in responses:
                if response.get("status") == "discarded":
                    continue
                answers[str(response.get("user_id"))][question] = response.get("value")
        for user, given in answers.items():
            at = f"{where}, user {user}"
            labels.append(
                Label(
                    task_id=task_id,
                    annotator=user,
                    round=round_,
                    correct=check.yes_no(given.get("correct"), at, "correct"),
                    evidence_located=check.yes_no(
                        given.get("evidence_located"), at, "evidence_located"
                    ),
                    evidence_mark=_mark(given.get("evidence_mark"), evidence),
                    quality=check.quality(given.get("quality"), at, "quality"),
                    comment=check.text(given.get("comment"), at, "comment"),
                    revised_question=check.text(
                        given.get("revised_question"), at, "revised_question"
                    ),
                    revised_answer=check.statements(
                        given.get("revised_answer"), at, "revised_answer"
                    ),
                    source=str(path),
                    where=where,
                )
            )
    check.done()
    return labels, []
