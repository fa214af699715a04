"""The final dataset: reviewed questions whose answer is correct and whose evidence was found.

`OUT/dataset.jsonl` rows carry the query, the file, the atomic assertions, the
taxonomy labels, the evidence locator (with the annotators' mark) and the whole
provenance trail: generator, filter checks, grader score, every review answer and
the adjudication. A revised item carries the revision (query and statements) with the
original and the revision in `provenance.revision`. Items dropped by review go to
`OUT/review/dropped.jsonl` with why.
"""

from __future__ import annotations

from typing import Any

from fidelity.core.document import Candidate
from fidelity.core.store import RunStore
from fidelity.outputs import candidate_row
from fidelity.review.resolve import Resolution
from fidelity.review.tasks import Task


def drop_reason(resolution: Resolution, min_quality: float) -> str:
    if not resolution.evidence_located:
        return "the evidence could not be located in the file"
    if not resolution.correct:
        return "the answer was judged incorrect"
    if resolution.quality is not None and resolution.quality < min_quality:
        return f"question quality {resolution.quality:g} is below {min_quality:g}"
    return ""


def _labels(resolution: Resolution) -> dict[str, Any]:
    return {
        "state": resolution.state,
        "correct": resolution.correct,
        "evidence_located": resolution.evidence_located,
        "quality": resolution.quality,
        "disagreements": resolution.disagreements,
        "annotations": [label.to_json() for label in resolution.reviews],
        "adjudication": resolution.adjudication.to_json() if resolution.adjudication else None,
    }


def revised(candidate: Candidate, resolution: Resolution) -> dict[str, Any] | None:
    """`provenance.revision`: the original and the revised question and answer, and by whom."""
    edit = resolution.revision
    if edit is None:
        return None
    original = {"question": candidate.question, "answer": candidate.answer}
    revision = {
        "question": edit["question"] or candidate.question,
        "answer": edit["answer"] or candidate.answer,
    }
    return {"original": original, "revised": revision, "by": edit["by"]}


def build_rows(
    store: RunStore,
    tasks: dict[str, Task],
    resolutions: dict[str, Resolution],
    min_quality: float = 1.0,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(dataset rows, dropped rows) for every task whose review is final."""
    mode = store.meta("mode", "offline")
    kept, dropped = [], []
    for candidate, status, _, _ in store.candidates():
        resolution = resolutions.get(candidate.id)
        task = tasks.get(candidate.id)
        if resolution is None or task is None or not resolution.final:
            continue
        trail = candidate_row(candidate, store.decisions(candidate.id), status, mode, task.locator)
        review = _labels(resolution)
        reason = drop_reason(resolution, min_quality)
        if reason:
            dropped.append(
                {
                    "id": candidate.id,
                    "question": candidate.question,
                    "reason": reason,
                    "review": review,
                }
            )
            continue
        revision = revised(candidate, resolution)
        final = revision["revised"] if revision else {}
        kept.append(
            {
                "id": candidate.id,
                "query": final.get("question", candidate.question),
                "file": candidate.file,
                "file_sha256": candidate.file_sha,
                "atomic_assertions": final.get("answer", candidate.answer),
                "taxonomy": {
                    "app": candidate.app,
                    "category": candidate.category,
                    "question_type": candidate.question_type,
                },
                "evidence": {
                    "artifact_id": candidate.artifact_id,
                    "locator": task.locator,
                    "mark": resolution.evidence_mark,
                },
                "quality": resolution.quality,
                "provenance": {
                    "generator": trail["generator"],
                    "generator_version": trail["generator_version"],
                    "mode": mode,
                    "filter_status": status,
                    "checks": trail["checks"],
                    "grader_score": task.grade,
                    "review": review,
                    "revision": revision,
                },
            }
        )
    return kept, dropped
