"""The question browser's data: every candidate with its evidence and checks, compactly.

Rows are arrays (see QUESTION_FIELDS), repeated strings (check names, views, reasons,
statuses, categories) are stored once in a string table, and each artifact's evidence
once however many candidates ask about it, so 100,000 questions stay a file a browser
parses in a few seconds. The page's script reads the same field order.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fidelity.core.apps import APPLICATIONS
from fidelity.core.document import KEPT_STATUSES, Artifact, Candidate, Decision, Document
from fidelity.core.mappings import get_or_make
from fidelity.core.run_snapshot import RunSnapshot
from fidelity.funnel import stage_of
from fidelity.report.chart_crop import chart_picture, sheet_chart
from fidelity.report.charts import KEPT

QUESTION_FIELDS = (
    "id file app category artifact question answer status rejected_by reason checks "
    "question_type generator stage"
).split()
CHECK_FIELDS = "check view verdict match reason answered calls".split()
# The browser's filters, in the order the page shows them (`rejected_by` takes a check or a stage).
FILTERS = ("app", "category", "status", "rejected_by", "check", "verdict", "file")
ARTIFACT_FIELDS = "file id locator kind modality text html media slide caption".split()
TEXT_LIMIT = 20_000
ANSWERED_LIMIT = 2_000


class Strings:
    """A string table: each distinct string once, referred to by its index."""

    def __init__(self) -> None:
        self.table: list[str] = []
        self.index: dict[str, int] = {}

    def __call__(self, value: str) -> int:
        if value not in self.index:
            self.index[value] = len(self.table)
            self.table.append(value)
        return self.index[value]


@dataclass
class QuestionTable:
    """What the browser shows, plus the tallies the funnel section adds from the same pass."""

    strings: list[str]
    files: list[str]
    artifacts: list[list[Any]]
    rows: list[list[Any]]
    options: dict[str, list[str]]
    rejected_by: Counter[str] = field(default_factory=Counter)
    verdicts: dict[str, Counter[str]] = field(default_factory=dict)
    per_file: dict[str, Counter[str]] = field(default_factory=dict)

    def island(self) -> dict[str, Any]:
        return {
            "fields": {
                "question": QUESTION_FIELDS,
                "check": CHECK_FIELDS,
                "artifact": ARTIFACT_FIELDS,
            },
            "strings": self.strings,
            "files": self.files,
            "artifacts": self.artifacts,
            "questions": self.rows,
        }


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + f"… ({len(text) - limit} more chars)"


def rendered_slide(out: Path, document: Document, artifact: Artifact) -> str | None:
    """The rendered picture of the slide a PowerPoint artifact sits on, if the run made one."""
    slide = artifact.where.slide
    if not APPLICATIONS[document.app].slide_images or slide is None:
        return None
    relative = f"media/{document.sha256[:16]}/slide-{slide:03d}.png"
    return relative if (out / relative).is_file() else None


def caption(artifact: Artifact, cropped: bool) -> str:
    """What the artifact's picture shows: itself, the chart's area cut from its sheet's render,
    or (no frame found) the whole sheet, with where the chart sits in it."""
    if not artifact.media:
        return ""
    if sheet_chart(artifact):
        sheet, anchor = artifact.facts.get("sheet", ""), artifact.facts.get("anchor", "")
        if cropped:
            return f"the chart's area in the render of sheet {sheet}"
        return f"rendered sheet {sheet} (the chart is anchored at cell {anchor})"
    return f"the {artifact.kind} itself"


def call_summary(run: RunSnapshot, keys: str | None, cache: dict[str, str]) -> str:
    """The model calls behind a decision, as `fidelity explain` names them."""
    parts = []
    for key in (keys or "").split(","):
        if not key:
            continue
        if key not in cache:
            record = run.model_calls.get(key)
            if record is None:
                cache[key] = f"{key[:16]} (not recorded)"
            else:
                state = f"error: {record.error}" if record.error else "recorded"
                cache[key] = f"{key[:16]} {record.stage} / {record.model} ({state})"
        parts.append(cache[key])
    return "; ".join(parts)


def collect(run: RunSnapshot, out: Path) -> QuestionTable:
    """Every stored candidate of every processed file, whatever its status."""
    strings, files = Strings(), Strings()
    documents = {document.sha256: document for document in run.documents}
    # (file sha, artifact id) -> the artifact Document.artifact finds (the first with that id).
    artifacts = {
        (document.sha256, artifact.id): artifact
        for document in run.documents
        for artifact in reversed(document.artifacts)
    }
    artifact_rows: list[list[Any]] = []
    artifact_index: dict[tuple[str, str], int] = {}
    calls: dict[str, str] = {}
    table = QuestionTable(strings.table, files.table, artifact_rows, [], {})
    option_sets: dict[str, set[str]] = {name: set() for name in FILTERS}

    def artifact_of(candidate: Candidate) -> int:
        key = (candidate.file_sha, candidate.artifact_id)
        if key not in artifact_index:
            document = documents.get(candidate.file_sha)
            row: list[Any] = [files(candidate.file), candidate.artifact_id, "", "", "", "", None]
            row += [None, None, ""]
            artifact = artifacts.get(key)
            if document is not None and artifact is not None:
                crop = chart_picture(out, document, artifact)
                row[2:] = [
                    artifact.locator,
                    artifact.kind,
                    artifact.modality,
                    _clip(artifact.text, TEXT_LIMIT),
                    artifact.html,
                    crop or artifact.media,
                    rendered_slide(out, document, artifact),
                    caption(artifact, cropped=crop is not None),
                ]
            artifact_index[key] = len(artifact_rows)
            artifact_rows.append(row)
        return artifact_index[key]

    def check_row(decision: Decision) -> list[Any]:
        get_or_make(table.verdicts, decision.check, Counter)[decision.verdict] += 1
        return [
            strings(decision.check),
            strings(decision.view),
            strings(decision.verdict),
            strings(decision.match),
            strings(decision.reason),
            _clip(decision.answered, ANSWERED_LIMIT),
            strings(call_summary(run, decision.model_call, calls)),
        ]

    for candidate, status, rejected_by, reason in run.candidates:
        decisions = run.decisions_of(candidate.id)
        table.rows.append(
            [
                candidate.id,
                files(candidate.file),
                strings(candidate.app),
                strings(candidate.category),
                artifact_of(candidate),
                candidate.question,
                candidate.answer,
                strings(status),
                strings(rejected_by),
                strings(reason),
                [check_row(decision) for decision in decisions],
                strings(candidate.question_type),
                strings(f"{candidate.generator} {candidate.generator_version}"),
                strings(stage_of(rejected_by)),
            ]
        )
        get_or_make(table.per_file, candidate.file, Counter)[status] += 1
        if rejected_by:
            table.rejected_by[rejected_by] += 1
            option_sets["rejected_by"].update((rejected_by, stage_of(rejected_by)))
        option_sets["app"].add(candidate.app)
        option_sets["category"].add(candidate.category)
        option_sets["status"].add(status)
        option_sets["file"].add(candidate.file)
        option_sets["check"].update(decision.check for decision in decisions)
        option_sets["verdict"].update(decision.verdict for decision in decisions)
    if option_sets["status"] & set(KEPT_STATUSES):
        option_sets["status"].add(KEPT)
    table.options = {name: sorted(values) for name, values in option_sets.items()}
    return table
