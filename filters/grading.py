"""Quality grading: a grader model scores each grounded candidate, thresholds decide.

The grader sees the question, the reference statements and the target element (its
text with nested elements expanded, and its picture when it has one) and scores
question clarity, answer precision and information value from 1 to 5 with a short
rationale. A candidate with any score under its `[filters]` minimum is rejected by the
`grade` check. The scores ride in the decision's `answered` field
("clarity 4, precision 5, value 3"), so de-duplication can prefer the better-graded
candidate and the review round trip can compare the grader with human labels
(fidelity/review/calibration.py).
"""

from __future__ import annotations

import re

from pydantic import BaseModel, field_validator

from fidelity.core.config import FilterSettings
from fidelity.core.document import Artifact, Candidate, Decision, Document
from fidelity.core.llm import ModelClient
from fidelity.core.prompt import load
from fidelity.core.views import PLACEHOLDER, ViewContext
from filters.chain import GRADE
from filters.groundedness import Mapper, Outcome
from filters.replies import no_reply, reply_fields

DIMENSIONS = ("clarity", "precision", "value")
MAX_EVIDENCE_CHARS = 8000
_SCORES = re.compile(r"(clarity|precision|value) (\d)")


class Grade(BaseModel):
    clarity: int
    precision: int
    value: int
    rationale: str

    @field_validator("clarity", "precision", "value")
    @classmethod
    def _in_range(cls, score: int) -> int:
        if not 1 <= score <= 5:
            raise ValueError("scores are integers from 1 to 5")
        return score


def evidence(document: Document, artifact: Artifact) -> str:
    """The target element's text with the elements placed inside it written out."""
    by_id = {item.id: item for item in document.artifacts}

    def expand(text: str, depth: int) -> str:
        def substitute(match: re.Match[str]) -> str:
            inner = by_id.get(match.group(1))
            return expand(inner.text, depth + 1) if inner and depth < 4 else ""

        return PLACEHOLDER.sub(substitute, text)

    text = expand(artifact.text, 0).strip()
    return text[:MAX_EVIDENCE_CHARS] if text else artifact.fallback


def scores_text(grade: Grade) -> str:
    return ", ".join(f"{name} {getattr(grade, name)}" for name in DIMENSIONS)


def scores(decisions: list[Decision]) -> dict[str, int]:
    """The grader's scores from a candidate's decisions ({} when it was not graded)."""
    for decision in decisions:
        if decision.check == GRADE.name and decision.match.startswith("grader:"):
            return {name: int(value) for name, value in _SCORES.findall(decision.answered)}
    return {}


class Grader:
    """Grades outcomes that survived the groundedness checks."""

    def __init__(self, client: ModelClient, settings: FilterSettings) -> None:
        self.client = client
        self.prompt = load("grade-qa")
        self.minimum = {
            "clarity": settings.min_clarity,
            "precision": settings.min_precision,
            "value": settings.min_value,
        }

    def grade_outcomes(
        self, document: Document, outcomes: list[Outcome], mapper: Mapper | None = None
    ) -> None:
        """Append a `grade` decision to every outcome no check has failed (and apply it);
        an outcome the grader could not grade is incomplete."""
        live = [outcome for outcome in outcomes if not outcome.rejecting]
        run = mapper or (lambda fn, items: [fn(item) for item in items])
        graded = run(lambda outcome: self.grade(document, outcome.candidate), live)
        for outcome, (decision, context) in zip(live, graded, strict=True):
            outcome.decisions.append((decision, context))
            if decision.verdict == "skipped":
                outcome.miss(GRADE.name, decision.reason)
            if decision.verdict == "fail":
                outcome.reject(GRADE.name, decision.reason)

    def grade(self, document: Document, candidate: Candidate) -> tuple[Decision, str]:
        """The grade decision and the exact element context the grader saw."""
        artifact = document.artifact(candidate.artifact_id)
        images = [artifact.media] if artifact.media and artifact.modality == "visual" else []
        images = [path for path in images if self.client.images.sendable(path)]
        shown = ViewContext(f"target:{artifact.id}", evidence(document, artifact), images)
        messages = self.prompt.messages(
            images,
            self.client.settings.image_detail,
            category=candidate.category,
            locator=artifact.locator,
            evidence=shown.text,
            question=candidate.question,
            answer="\n".join(f"- {statement}" for statement in candidate.answer),
        )
        reply = self.client.complete("grader", messages, Grade, stage="grade")
        base = reply_fields(candidate.id, GRADE.name, shown, reply.record_id)
        if not reply.ok:
            reason = f"not graded: no usable grader answer ({reply.error or 'pending'})"
            return no_reply(base, reason), shown.text
        grade: Grade = reply.parsed
        low = [name for name in DIMENSIONS if getattr(grade, name) < self.minimum[name]]
        rationale = " ".join(grade.rationale.split())
        reason = rationale
        if low:
            wanted = ", ".join(f"{name} >= {self.minimum[name]}" for name in low)
            reason = f"below the grading threshold ({wanted}): {rationale}"
        decision = Decision(
            **base,
            answered=scores_text(grade),
            match=f"grader:{self.client.model_for('grader')}",
            verdict="fail" if low else "pass",
            reason=reason,
        )
        return decision, shown.text
