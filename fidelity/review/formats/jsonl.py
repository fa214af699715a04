"""JSON Lines: one file per annotator, one task per line with a `labels` object to fill in.

Each line: `{"task_id", "round", "annotator", "task": {question, answer, app, category,
file, locator, evidence_text, evidence_html, image, ...}, "previous": [...],
"labels": {"correct": "yes"|"no", "evidence_located": "yes"|"no",
"evidence_mark": "...", "quality": 1-5, "comment": "...", "revised_question": "...",
"revised_answer": ["...", ...]}}` (the revision fields stay empty unless you edit the
question or correct its answer). A curator adds a hand-written item with a line
`{"annotator": "...", "new_item": {"file", "locator", "question", "answer", "value"}}`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from fidelity.core.atomic import replacing
from fidelity.review.items import HandItem, parse_item
from fidelity.review.labels import (
    ADJUDICATION,
    ANNOTATORS,
    ANSWER_FIELDS,
    MAX_LINE_BYTES,
    Checker,
    Label,
)
from fidelity.review.tasks import Task

EMPTY: dict[str, Any] = {
    "correct": None,
    "evidence_located": None,
    "evidence_mark": "",
    "quality": None,
    "comment": "",
    "revised_question": "",
    "revised_answer": [],
}


def export(
    tasks: list[Task], folder: Path, out: Path, round_: str, previous: dict[str, list[Label]]
) -> list[Path]:
    people = ("adjudicator",) if round_ == ADJUDICATION else ANNOTATORS
    paths = []
    for person in people:
        path = folder / f"{person}.jsonl"
        with replacing(path) as handle:
            for task in tasks:
                line = {
                    "task_id": task.id,
                    "round": round_,
                    "annotator": person,
                    "task": task.show(),
                    "previous": [label.to_json() for label in previous.get(task.id, [])],
                    "labels": dict(EMPTY),
                }
                handle.write(json.dumps(line, ensure_ascii=False) + "\n")
        paths.append(path)
    return paths


def lines(path: Path, check: Checker) -> Iterator[tuple[str, str]]:
    """(where, text) of each line that is UTF-8 and within MAX_LINE_BYTES; a line that is not
    is a problem of its own (never held whole in memory) and the reading goes on."""
    with path.open("rb") as handle:
        for number, data in enumerate(iter(lambda: handle.readline(MAX_LINE_BYTES + 1), b""), 1):
            where = f"line {number}"
            if len(data) > MAX_LINE_BYTES and not data.endswith(b"\n"):
                size = len(data)
                while (rest := handle.readline(MAX_LINE_BYTES)) and not rest.endswith(b"\n"):
                    size += len(rest)
                size += len(rest)
                check.fail(where, "(whole line)", f"over {MAX_LINE_BYTES} bytes ({size})")
                continue
            text = check.decoded(data, where)
            if text is not None:
                yield where, text


def read(path: Path) -> tuple[list[Label], list[HandItem]]:
    check = Checker(path)
    labels: list[Label] = []
    items: list[HandItem] = []
    for where, line in lines(path, check):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except ValueError as error:
            check.fail(where, "(whole line)", f"not valid JSON ({error}); truncated?")
            continue
        if not isinstance(item, dict):
            check.fail(where, "(whole line)", "expected a JSON object")
            continue
        annotator = check.text(item.get("annotator"), where, "annotator") or path.stem
        if "new_item" in item:
            found = parse_item(check, item["new_item"], where, annotator)
            items.extend([found] if found else [])
            continue
        label = _label(check, item, where, annotator)
        if label is not None:
            labels.append(label)
    check.done()
    return labels, items


def _label(check: Checker, item: dict[str, Any], where: str, annotator: str) -> Label | None:
    task_id = check.text(item.get("task_id"), where, "task_id")
    given = item.get("labels")
    if not task_id:
        check.fail(where, "task_id", "missing (or add a `new_item` for a hand-written item)")
    if not isinstance(given, dict):
        check.fail(where, "labels", f"missing or not an object (fields: {', '.join(EMPTY)})")
        return None
    for name in sorted(set(given) - set(ANSWER_FIELDS)):
        check.fail(where, f"labels.{name}", f"unknown field (expected: {', '.join(EMPTY)})")
    return Label(
        task_id=task_id,
        annotator=annotator,
        round=check.round(item.get("round"), where),
        correct=check.yes_no(given.get("correct"), where, "labels.correct"),
        evidence_located=check.yes_no(
            given.get("evidence_located"), where, "labels.evidence_located"
        ),
        evidence_mark=check.text(given.get("evidence_mark"), where, "labels.evidence_mark"),
        quality=check.quality(given.get("quality"), where, "labels.quality"),
        comment=check.text(given.get("comment"), where, "labels.comment"),
        revised_question=check.text(
            given.get("revised_question"), where, "labels.revised_question"
        ),
        revised_answer=check.statements(
            given.get("revised_answer"), where, "labels.revised_answer"
        ),
        source=str(check.path),
        where=where,
    )
