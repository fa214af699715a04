"""Review tasks: what an annotator sees for one kept candidate, built from the run store."""

from __future__ import annotations

import base64
import json
import mimetypes
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fidelity.core.apps import APPLICATIONS
from fidelity.core.document import KEPT_STATUSES, Artifact, Candidate, Decision, Document
from fidelity.core.store import RunStore
from fidelity.report.chart_crop import chart_picture
from filters.chain import GRADE

NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
NAMED_SCORE = re.compile(r"\b[a-z]+ ([1-5])\b")  # the grader's "clarity 4, precision 5, value 3"


@dataclass
class Task:
    """One question to review, with the evidence an annotator needs to check it."""

    id: str
    question: str
    answer: list[str]
    app: str
    category: str
    question_type: str
    file: str
    file_sha: str
    artifact_id: str
    locator: str
    evidence_text: str
    evidence_html: str | None
    image: str | None
    image_kind: str | None
    grade: float | None
    status: str = "kept"  # or "unverified": a model check could not confirm it

    @property
    def where(self) -> str:
        return f"{self.app} · {self.category} · {Path(self.file).name} · {self.locator}"

    def answer_text(self) -> str:
        return "\n".join(f"• {statement}" for statement in self.answer)

    def show(self) -> dict[str, Any]:
        """The fields every format shows (the image as a path relative to the run folder)."""
        return {
            "question": self.question,
            "answer": self.answer,
            "app": self.app,
            "category": self.category,
            "question_type": self.question_type,
            "file": self.file,
            "locator": self.locator,
            "evidence_text": self.evidence_text,
            "evidence_html": self.evidence_html,
            "image": self.image,
            "image_kind": self.image_kind,
        }


def grader_score(decisions: list[Decision]) -> float | None:
    """The model grader's 1-5 score from a stored `grade` decision, if there is one.

    The grader (filters/grading.py) writes its scores as "clarity 4, precision 5, value 3";
    JSON (a number, `{"score": n}`, or per-criterion scores) is read too. Several
    scores give their mean.
    """
    for decision in decisions:
        if not GRADE.owns(decision.check):
            continue
        try:
            value: Any = json.loads(decision.answered)
        except ValueError:
            named = [int(score) for score in NAMED_SCORE.findall(decision.answered)]
            if named:
                return sum(named) / len(named)
            match = NUMBER.search(decision.answered)
            return float(match.group()) if match else None
        if isinstance(value, dict):
            value = value.get("score", value.get("overall", value))
        if isinstance(value, dict):
            numbers = [v for v in value.values() if isinstance(v, int | float)]
            value = sum(numbers) / len(numbers) if numbers else None
        return float(value) if isinstance(value, int | float) else None
    return None


def _image(document: Document, artifact: Artifact) -> tuple[str | None, str | None]:
    """The artifact's own picture, else (PowerPoint) the rendered slide it sits on."""
    if artifact.media and artifact.modality == "visual":
        return artifact.media, "image"
    slide = artifact.where.slide
    if APPLICATIONS[document.app].slide_images and slide is not None:
        for other in document.artifacts:
            if other.kind == "slide-render" and other.facts.get("slide") == slide:
                return other.media, "slide"
    return (artifact.media, "image") if artifact.media else (None, None)


def task_for(
    document: Document,
    candidate: Candidate,
    decisions: list[Decision],
    status: str = "kept",
    out: Path | None = None,
) -> Task:
    """The task of one candidate; with the run folder `out`, a chart drawn only in its sheet's
    render shows its own area cut from it (the whole sheet when it cannot be found)."""
    artifact = document.artifact(candidate.artifact_id)
    image, kind = _image(document, artifact)
    crop = chart_picture(out, document, artifact) if out is not None else None
    if crop:
        image, kind = crop, "chart"
    return Task(
        id=candidate.id,
        question=candidate.question,
        answer=candidate.answer,
        app=candidate.app,
        category=candidate.category,
        question_type=candidate.question_type,
        file=candidate.file,
        file_sha=candidate.file_sha,
        artifact_id=artifact.id,
        locator=artifact.locator,
        evidence_text=artifact.text,
        evidence_html=artifact.html,
        image=image,
        image_kind=kind,
        grade=grader_score(decisions),
        status=status,
    )


def build_tasks(store: RunStore, out: Path | None = None) -> list[Task]:
    """One task per kept (or unverified) candidate, in the store's stable order (`out`: the
    run folder, to show a chart's own area rather than its whole sheet)."""
    documents = {document.sha256: document for document in store.documents()}
    return [
        task_for(
            documents[candidate.file_sha], candidate, store.decisions(candidate.id), status, out
        )
        for candidate, status, _, _ in store.candidates()
        if status in KEPT_STATUSES and candidate.file_sha in documents
    ]


def image_path(out: Path, image: str | None) -> Path | None:
    """The image file of a task (media paths are relative to the run folder)."""
    if not image:
        return None
    path = Path(image) if Path(image).is_absolute() else out / image
    return path if path.is_file() else None


def data_uri(path: Path) -> str:
    kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    return f"data:{kind};base64,{base64.b64encode(path.read_bytes()).decode()}"
