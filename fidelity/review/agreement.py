"""Inter-annotator agreement per field: percent agreement and Cohen's kappa.

Kappa is computed over the pairs of the two review annotations of each task
(rater 1 = the first of the two annotator names in sort order). Quality also gets
a quadratic-weighted kappa, which counts a 4-vs-5 split as a near miss.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from fidelity.review.labels import Label

FIELDS = ("correct", "evidence_located", "quality")
Pair = tuple[Any, Any]


@dataclass
class FieldAgreement:
    field: str
    n: int
    percent: float | None
    kappa: float | None
    weighted_kappa: float | None = None


def percent_agreement(pairs: list[Pair]) -> float | None:
    return sum(a == b for a, b in pairs) / len(pairs) if pairs else None


def cohen_kappa(pairs: list[Pair], quadratic: bool = False) -> float | None:
    """Cohen's kappa of two raters; None when undefined (no pairs, or one shared label only).

    With `quadratic`, labels must be numbers and disagreements weigh (a - b)² / range².
    """
    if not pairs:
        return None
    categories = sorted({value for pair in pairs for value in pair}, key=str)
    span = 1.0
    if quadratic:
        span = (max(map(float, categories)) - min(map(float, categories))) or 1.0

    def weight(a: Any, b: Any) -> float:
        if quadratic:
            return ((float(a) - float(b)) / span) ** 2
        return 0.0 if a == b else 1.0

    n = len(pairs)
    observed = Counter(pairs)
    first = Counter(a for a, _ in pairs)
    second = Counter(b for _, b in pairs)
    seen = sum(weight(a, b) * count for (a, b), count in observed.items()) / n
    expected = sum(weight(a, b) * first[a] * second[b] for a in categories for b in categories) / (
        n * n
    )
    if expected == 0:
        return None
    return 1.0 - seen / expected


def review_pair(labels: list[Label]) -> tuple[Label, Label] | None:
    """The two review annotations of a task (distinct annotators), if it has two."""
    by_person = {label.annotator: label for label in labels if label.round == "review"}
    if len(by_person) < 2:
        return None
    first, second = sorted(by_person)[:2]
    return by_person[first], by_person[second]


def agreement(labels_by_task: dict[str, list[Label]]) -> list[FieldAgreement]:
    """Agreement of the two review annotators on each field, over tasks both answered."""
    pairs: dict[str, list[Pair]] = {field: [] for field in FIELDS}
    for labels in labels_by_task.values():
        pair = review_pair(labels)
        if pair is None:
            continue
        for field in FIELDS:
            a, b = getattr(pair[0], field), getattr(pair[1], field)
            if a is not None and b is not None:
                pairs[field].append((a, b))
    return [
        FieldAgreement(
            field=field,
            n=len(found),
            percent=percent_agreement(found),
            kappa=cohen_kappa(found),
            weighted_kappa=cohen_kappa(found, quadratic=True) if field == "quality" else None,
        )
        for field, found in pairs.items()
    ]
