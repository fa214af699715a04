"""An annotator's answers to one task, and lenient parsing of what people type in."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

REVIEW = "review"
ADJUDICATION = "adjudication"
ANNOTATORS = ("annotator-1", "annotator-2")
YES = {"yes", "y", "true", "1", "correct", "located", "oui", "ja"}
NO = {"no", "n", "false", "0", "incorrect", "not located", "non", "nein"}


@dataclass
class Label:
    """One person's answers to one task in one round (review or adjudication)."""

    task_id: str
    annotator: str
    round: str = REVIEW
    correct: bool | None = None
    evidence_located: bool | None = None
    evidence_mark: str = ""
    quality: int | None = None
    comment: str = ""
    source: str = ""

    @property
    def answered(self) -> bool:
        """False for a row or record the person left untouched."""
        given = (self.correct, self.evidence_located, self.quality)
        return any(v is not None for v in given) or bool(self.evidence_mark or self.comment)

    def key(self) -> tuple[str, str, str]:
        return (self.task_id, self.round, self.annotator)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def yes_no(value: Any) -> bool | None:
    """'yes'/'no' (and common spellings, booleans, 1/0) to a bool; anything else None."""
    if isinstance(value, bool):
        return value
    if isinstance(value, list):
        value = value[0] if value else None
    if value is None:
        return None
    text = str(value).strip().lower()
    return True if text in YES else False if text in NO else None


def quality(value: Any) -> int | None:
    """A 1-5 rating from a number, a numeric string or a one-element list."""
    if isinstance(value, list):
        value = value[0] if value else None
    if value is None or isinstance(value, bool):
        return None
    try:
        number = round(float(str(value).strip()))
    except ValueError:
        return None
    return number if 1 <= number <= 5 else None


def describe(labels: list[Label]) -> str:
    """The annotators' answers in one readable block (shown to the adjudicator)."""
    lines = []
    for label in labels:
        parts = [
            f"correct={_word(label.correct)}",
            f"evidence located={_word(label.evidence_located)}",
            f"quality={label.quality if label.quality is not None else '?'}",
        ]
        if label.evidence_mark:
            parts.append(f"mark “{label.evidence_mark}”")
        if label.comment:
            parts.append(f"comment “{label.comment}”")
        lines.append(f"{label.annotator}: " + ", ".join(parts))
    return "\n".join(lines)


def _word(value: bool | None) -> str:
    return "?" if value is None else "yes" if value else "no"
