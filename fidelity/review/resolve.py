"""Merge the two review annotations of each task and the adjudicator's decision.

A task is *agreed* when both annotators gave the same verdict on `correct` and
`evidence_located` and their quality ratings are at most QUALITY_TOLERANCE apart
(the final quality is their mean); otherwise it goes to adjudication, and the
adjudicator's answers (where given) decide. Tasks with fewer than two review
annotations stay *incomplete*.

A revision (an edited question or corrected answer statements) needs two people: both
annotators making the same edit, or the adjudicator. An edit only one annotator made
(or two different edits) sends the task to adjudication, where the adjudicator's own
edit wins and no edit keeps the original; an edit both annotators made stands unless
the adjudicator edits the task.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fidelity.review.agreement import review_pair
from fidelity.review.labels import ADJUDICATION, Label

QUALITY_TOLERANCE = 1


@dataclass
class Resolution:
    task_id: str
    state: str  # agreed | adjudicated | adjudicate | incomplete
    correct: bool | None = None
    evidence_located: bool | None = None
    quality: float | None = None
    evidence_mark: str = ""
    reviews: list[Label] = field(default_factory=list)
    adjudication: Label | None = None
    disagreements: list[str] = field(default_factory=list)
    revision: dict[str, Any] | None = None  # {"question", "answer", "by"} when edited

    @property
    def final(self) -> bool:
        return self.state in ("agreed", "adjudicated")


def disagreements(a: Label, b: Label) -> list[str]:
    found = []
    for name in ("correct", "evidence_located"):
        x, y = getattr(a, name), getattr(b, name)
        if x is None or y is None:
            found.append(f"{name} missing")
        elif x != y:
            found.append(name)
    if a.quality is None or b.quality is None:
        found.append("quality missing")
    elif abs(a.quality - b.quality) > QUALITY_TOLERANCE:
        found.append("quality")
    if edit(a) != edit(b):
        found.append("revision")
    return found


Edit = tuple[str, tuple[str, ...]]


def edit(label: Label) -> Edit:
    """A label's edit of the question and answer ('' and () where unchanged)."""
    return (label.revised_question, tuple(label.revised_answer))


def revision(labels: list[Label]) -> dict[str, Any] | None:
    """The edit the labels agree on, with who made it; None when nobody edited."""
    if not labels or not labels[0].revised:
        return None
    question, answer = edit(labels[0])
    return {
        "question": question or None,
        "answer": list(answer) or None,
        "by": [label.annotator for label in labels],
    }


def resolve_task(task_id: str, labels: list[Label]) -> Resolution:
    pair = review_pair(labels)
    if pair is None:
        reviews = [label for label in labels if label.round != ADJUDICATION]
        return Resolution(task_id, "incomplete", reviews=reviews)
    a, b = pair
    split = disagreements(a, b)
    qualities = [q for q in (a.quality, b.quality) if q is not None]
    result = Resolution(
        task_id,
        "agreed" if not split else "adjudicate",
        correct=a.correct if a.correct == b.correct else None,
        evidence_located=a.evidence_located if a.evidence_located == b.evidence_located else None,
        quality=sum(qualities) / len(qualities) if qualities else None,
        evidence_mark=a.evidence_mark or b.evidence_mark,
        reviews=[a, b],
        disagreements=split,
        revision=None if "revision" in split else revision([a, b]),
    )
    decided = [label for label in labels if label.round == ADJUDICATION]
    if decided:
        judge = decided[-1]
        result.adjudication = judge
        for name in ("correct", "evidence_located"):
            if getattr(judge, name) is not None:
                setattr(result, name, getattr(judge, name))
        if judge.quality is not None:
            result.quality = float(judge.quality)
        result.evidence_mark = judge.evidence_mark or result.evidence_mark
        if judge.revised:  # the adjudicator's edit wins; without one an agreed edit stands
            result.revision = revision([judge])
        settled = None not in (result.correct, result.evidence_located, result.quality)
        result.state = "adjudicated" if settled else "adjudicate"
    return result


def resolve(labels_by_task: dict[str, list[Label]]) -> dict[str, Resolution]:
    return {task_id: resolve_task(task_id, labels) for task_id, labels in labels_by_task.items()}
