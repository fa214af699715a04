"""JSON Lines: one file per annotator, one task per line with a `labels` object to fill in.

Each line: `{"task_id", "round", "annotator", "task": {question, answer, app, category,
file, locator, evidence_text, evidence_html, image, ...}, "previous": [...],
"labels": {"correct": "yes"|"no", "evidence_located": "yes"|"no",
"evidence_mark": "...", "quality": 1-5, "comment": "..."}}`.
"""

from __future__ import annotations

import json
from pathlib import Path

from fidelity.review.labels import ADJUDICATION, ANNOTATORS, Label, quality, yes_no
from fidelity.review.tasks import Task

EMPTY = {
    "correct": None,
    "evidence_located": None,
    "evidence_mark": "",
    "quality": None,
    "comment": "",
}


def export(
    tasks: list[Task], folder: Path, out: Path, round_: str, previous: dict[str, list[Label]]
) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    people = ("adjudicator",) if round_ == ADJUDICATION else ANNOTATORS
    paths = []
    for person in people:
        path = folder / f"{person}.jsonl"
        with path.open("w") as handle:
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


def read(path: Path) -> list[Label]:
    labels = []
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        item = json.loads(line)
        given = item.get("labels") or {}
        labels.append(
            Label(
                task_id=str(item["task_id"]),
                annotator=str(item.get("annotator") or path.stem),
                round=item.get("round", "review"),
                correct=yes_no(given.get("correct")),
                evidence_located=yes_no(given.get("evidence_located")),
                evidence_mark=str(given.get("evidence_mark") or ""),
                quality=quality(given.get("quality")),
                comment=str(given.get("comment") or ""),
            )
        )
    return labels
