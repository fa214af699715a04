"""Export review tasks; import annotators' files, agree, route to adjudication, write the dataset.

An import first reads and checks every file whole (values, columns, task ids,
hand-written items' files and locators) and stores nothing if anything is wrong.
Imported answers accumulate in `OUT/review/labels.jsonl`, keyed by task, round and
annotator: a re-imported answer replaces its earlier self field by field, but an
empty field never replaces a stored one, so re-importing a file changes nothing.
Every import recomputes agreement, adjudication and the dataset from all answers so far.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, fields
from pathlib import Path

from fidelity.core.atomic import write_jsonl, write_text
from fidelity.core.config import Config
from fidelity.core.store import open_store
from fidelity.review import curated, formats
from fidelity.review.agreement import FieldAgreement, agreement
from fidelity.review.calibration import Calibration, calibrate
from fidelity.review.dataset import build_rows
from fidelity.review.items import HandItem
from fidelity.review.labels import ADJUDICATION, ANSWER_FIELDS, REVIEW, Label, ReviewFileError
from fidelity.review.resolve import Resolution, resolve
from fidelity.review.tasks import Task, build_tasks

REVIEW_DIR = "review"
LABELS = "labels.jsonl"
LISTED = 20  # unknown task ids listed by name; the rest are counted
SHOWN = ".shown.sha256"  # digest of what the adjudication files show
EXPORTED = ".files"  # the adjudication files written for that digest


@dataclass
class ImportResult:
    labels: int
    agreement: list[FieldAgreement]
    states: dict[str, int]
    dataset: int
    dropped: int
    adjudication_files: list[Path] = field(default_factory=list)
    calibration: Calibration | None = None
    unknown: list[str] = field(default_factory=list)
    added: list[curated.Added] = field(default_factory=list)


def export_review(out: Path, format_name: str) -> list[Path]:
    """Write the review tasks of every kept candidate in one format under OUT/review/."""
    store = open_store(out)
    try:
        tasks = build_tasks(store, out)
    finally:
        store.close()
    module = formats.FORMATS[format_name]
    return module.export(tasks, out / REVIEW_DIR / format_name, out, REVIEW, {})


def load_labels(out: Path) -> list[Label]:
    path = out / REVIEW_DIR / LABELS
    if not path.is_file():
        return []
    return [Label(**json.loads(line)) for line in path.read_text().splitlines() if line]


def _keep_answers(new: Label, old: Label) -> Label:
    """`new`, with `old`'s answer in every field `new` leaves empty."""
    given = {name: getattr(new, name) for name in ANSWER_FIELDS}
    kept = {
        name: getattr(old, name) if value in (None, "", []) else value
        for name, value in given.items()
    }
    others = {f.name: getattr(new, f.name) for f in fields(Label) if f.name not in kept}
    return Label(**others, **kept)


def merge_labels(existing: list[Label], new: list[Label]) -> list[Label]:
    """Stored answers updated by new ones; an empty new field never erases a stored answer."""
    merged = {label.key(): label for label in existing}
    for label in new:
        old = merged.get(label.key())
        merged[label.key()] = label if old is None else _keep_answers(label, old)
    return sorted(merged.values(), key=lambda label: label.key())


def read_files(files: list[Path]) -> list[tuple[str, list[Label], list[HandItem]]]:
    """Every file read and checked; one ReviewFileError listing all problems of all files."""
    read, problems = [], []
    for path in files:
        try:
            read.append(formats.read(path))
        except ReviewFileError as error:
            problems += error.problems
        except (ValueError, OSError) as error:
            problems.append(f"{path}: {error}")
    if problems:
        raise ReviewFileError(problems)
    return read


def unknown_tasks(labels: list[Label], tasks: dict[str, Task]) -> list[str]:
    """One line per answer naming a task this run does not have, with its file and place."""
    return [
        f"{label.source}: {label.where}: task_id: unknown task {label.task_id!r}"
        for label in labels
        if label.task_id not in tasks
    ]


def import_review(
    out: Path,
    files: list[Path],
    min_quality: float = 1.0,
    human_ok: float = 3.0,
    adjudication_format: str | None = None,
    allow_unknown: bool = False,
    config: Config | None = None,
) -> ImportResult:
    """Check every file, then store answers and hand-written items and rebuild the dataset.

    Raises ReviewFileError (nothing written) on any bad value, column, item or, unless
    `allow_unknown`, any answer to a task this run does not have.
    """
    read = read_files(files)
    labels = [label for _, found, _ in read for label in found]
    items = [item for _, _, found in read for item in found]
    store = open_store(out)
    try:
        matched, problems = curated.match(store, items)
        tasks = {task.id: task for task in build_tasks(store)}
        unknown = unknown_tasks(labels, tasks)
        if unknown and not allow_unknown:
            problems += unknown[:LISTED]
            if len(unknown) > LISTED:
                problems.append(f"… and {len(unknown) - LISTED} more answers to unknown tasks")
            problems.append("nothing was imported (--allow-unknown imports the known tasks)")
        if problems:
            raise ReviewFileError(problems)
        added = curated.add(out, store, config or Config(), matched) if matched else []
        if any(entry.status != curated.STORED for entry in added):
            tasks = {task.id: task for task in build_tasks(store)}
        known = [label for label in labels if label.task_id in tasks and label.answered]
        merged = merge_labels(load_labels(out), known)
        folder = out / REVIEW_DIR
        write_jsonl(folder / LABELS, [label.to_json() for label in merged])
        by_task: dict[str, list[Label]] = {}
        for label in merged:
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
        labels=len(merged),
        agreement=figures,
        states=states,
        dataset=len(rows),
        dropped=len(dropped),
        adjudication_files=adjudication,
        calibration=calibration,
        unknown=unknown,
        added=added,
    )
    write_text(folder / "report.md", report_markdown(result, len(tasks)))
    return result


def _export_adjudication(
    out: Path, format_name: str, pending: list[Task], resolutions: dict[str, Resolution]
) -> list[Path]:
    """The adjudicator's files, rewritten only when what they show changed.

    A re-import of the same answers leaves them as they are, so an adjudicator filling
    them in place loses nothing (a workbook's bytes would change with its save time).
    """
    folder = out / REVIEW_DIR / ADJUDICATION / format_name
    if not pending:
        return []
    previous = {task.id: resolutions[task.id].reviews for task in pending}
    shown = [[task.id, [label.to_json() for label in previous[task.id]]] for task in pending]
    digest = hashlib.sha256(json.dumps(shown, sort_keys=True).encode()).hexdigest()
    stamp = folder / SHOWN
    listed = folder / EXPORTED
    if stamp.is_file() and stamp.read_text() == digest and listed.is_file():
        paths = [folder / name for name in listed.read_text().splitlines()]
        if all(path.is_file() for path in paths):
            return paths
    paths = formats.FORMATS[format_name].export(pending, folder, out, ADJUDICATION, previous)
    write_text(listed, "".join(f"{path.name}\n" for path in paths))
    write_text(stamp, digest)
    return paths


def _grader_pairs(
    tasks: dict[str, Task], resolutions: dict[str, Resolution]
) -> list[tuple[float, float]]:
    return [
        (grade, resolution.quality)
        for task_id, resolution in resolutions.items()
        if resolution.final
        and resolution.quality is not None
        and (grade := tasks[task_id].grade) is not None
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
