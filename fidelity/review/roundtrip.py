"""Export review tasks; import annotators' files, agree, route to adjudication, write the dataset.

Imported answers accumulate in `OUT/review/labels.jsonl` (a re-imported file replaces
its earlier answers, keyed by task, round and annotator), so the first import of the
two annotators' files and the later import of the adjudicator's file each recompute
everything from all answers so far.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fidelity.pipeline import open_store
from fidelity.review import formats
from fidelity.review.agreement import FieldAgreement, agreement
from fidelity.review.calibration import Calibration, calibrate
from fidelity.review.dataset import build_rows
from fidelity.review.labels import ADJUDICATION, REVIEW, Label
from fidelity.review.resolve import Resolution, resolve
from fidelity.review.tasks import Task, build_tasks

REVIEW_DIR = "review"
LABELS = "labels.jsonl"


@dataclass
class ImportResult:
    labels: int
    agreement: list[FieldAgreement]
    states: dict[str, int]
    dataset: int
    dropped: int
    adjudication_files: list[Path] = field(default_factory=list)
    calibration: Calibration | None = None


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    """Replace `path` with one JSON object per line (written aside, then moved in)."""
    tmp = path.with_suffix(".tmp")
    tmp.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows))
    tmp.replace(path)


def export_review(out: Path, format_name: str) -> list[Path]:
    """Write the review tasks of every kept candidate in one format under OUT/review/."""
    store = open_store(out)
    try:
        tasks = build_tasks(store)
    finally:
        store.close()
    module = formats.FORMATS[format_name]
    return module.export(tasks, out / REVIEW_DIR / format_name, out, REVIEW, {})


def load_labels(out: Path) -> list[Label]:
    path = out / REVIEW_DIR / LABELS
    if not path.is_file():
        return []
    return [Label(**json.loads(line)) for line in path.read_text().splitlines() if line]


def merge_labels(existing: list[Label], new: list[Label]) -> list[Label]:
    merged = {label.key(): label for label in existing}
    merged.update({label.key(): label for label in new})
    return sorted(merged.values(), key=lambda label: label.key())


def import_review(
    out: Path,
    files: list[Path],
    min_quality: float = 1.0,
    human_ok: float = 3.0,
    adjudication_format: str | None = None,
) -> ImportResult:
    read = [formats.read(path) for path in files]
    new = [label for _, labels in read for label in labels]
    labels = merge_labels(load_labels(out), new)
    folder = out / REVIEW_DIR
    folder.mkdir(parents=True, exist_ok=True)
    write_jsonl(folder / LABELS, [label.to_json() for label in labels])

    store = open_store(out)
    try:
        tasks = {task.id: task for task in build_tasks(store)}
        by_task: dict[str, list[Label]] = {}
        for label in labels:
            if label.task_id in tasks:
                by_task.setdefault(label.task_id, []).append(label)
        resolutions = resolve(by_task)
        figures = agreement(by_task)
        rows, dropped = build_rows(store, tasks, resolutions, min_quality)
    finally:
        store.close()
    write_jsonl(out / "dataset.jsonl", rows)
    write_jsonl(folder / "dropped.jsonl", dropped)
    chosen = adjudication_format or (read[0][0] if read else "jsonl")
    pending = [tasks[r.task_id] for r in resolutions.values() if r.state == "adjudicate"]
    adjudication = _export_adjudication(out, chosen, pending, resolutions)
    calibration = calibrate(_grader_pairs(tasks, resolutions), human_ok)
    states: dict[str, int] = {}
    for resolution in resolutions.values():
        states[resolution.state] = states.get(resolution.state, 0) + 1
    result = ImportResult(
        labels=len(labels),
        agreement=figures,
        states=states,
        dataset=len(rows),
        dropped=len(dropped),
        adjudication_files=adjudication,
        calibration=calibration,
    )
    (folder / "report.md").write_text(report_markdown(result, len(tasks)))
    return result


def _export_adjudication(
    out: Path, format_name: str, pending: list[Task], resolutions: dict[str, Resolution]
) -> list[Path]:
    folder = out / REVIEW_DIR / ADJUDICATION / format_name
    if not pending:
        return []
    previous = {task.id: resolutions[task.id].reviews for task in pending}
    return formats.FORMATS[format_name].export(pending, folder, out, ADJUDICATION, previous)


def _grader_pairs(
    tasks: dict[str, Task], resolutions: dict[str, Resolution]
) -> list[tuple[float, float]]:
    return [
        (tasks[task_id].grade, resolution.quality)
        for task_id, resolution in resolutions.items()
        if resolution.final and resolution.quality is not None and tasks[task_id].grade is not None
    ]


def _figure(value: float | None, percent: bool = False) -> str:
    if value is None:
        return "n/a"
    return f"{value:.0%}" if percent else f"{value:.2f}"


def report_markdown(result: ImportResult, tasks: int) -> str:
    """`OUT/review/report.md`: progress, agreement per field, grader calibration."""
    states = ", ".join(f"{count} {state}" for state, count in sorted(result.states.items()))
    lines = [
        "# Human review",
        "",
        f"{tasks} tasks; {result.labels} answers imported; tasks by state: {states or 'none'}.",
        f"Dataset: {result.dataset} questions (`dataset.jsonl`); dropped by review: "
        f"{result.dropped} (`review/dropped.jsonl`).",
        "",
        "## Agreement of the two annotators",
        "",
        "| field | tasks | percent agreement | Cohen's kappa | quadratic-weighted kappa |",
        "|---|---:|---:|---:|---:|",
    ]
    for figure in result.agreement:
        lines.append(
            f"| {figure.field} | {figure.n} | {_figure(figure.percent, True)} "
            f"| {_figure(figure.kappa)} | {_figure(figure.weighted_kappa)} |"
        )
    if result.adjudication_files:
        lines += [
            "",
            "Disagreements to adjudicate: "
            + ", ".join(str(path) for path in result.adjudication_files),
        ]
    lines += ["", "## Model grader against human quality", ""]
    cal = result.calibration
    if cal is None:
        lines.append("No task has both a grader score and a final human quality rating.")
        return "\n".join(lines) + "\n"
    lines += [
        f"{cal.n} tasks: exact agreement {_figure(cal.exact, True)}, within one point "
        f"{_figure(cal.within_one, True)}, quadratic-weighted kappa "
        f"{_figure(cal.weighted_kappa)}, Pearson r {_figure(cal.pearson)}.",
        "",
        f"Keeping a question when the grader gives at least t, against humans keeping it "
        f"at quality >= {cal.human_ok:g}:",
        "",
        "| t | agreement | kappa | share kept |",
        "|---:|---:|---:|---:|",
    ]
    for row in cal.thresholds:
        lines.append(
            f"| {row.threshold} | {_figure(row.accuracy, True)} | {_figure(row.kappa)} "
            f"| {_figure(row.kept_share, True)} |"
        )
    lines += ["", f"Suggested grader threshold: **{cal.suggested}**."]
    return "\n".join(lines) + "\n"
