"""Grader calibration: how well the model grader's 1-5 scores match the humans' quality.

Pairs are (grader score, final human quality) for every reviewed task that has both.
Besides agreement figures, each possible grader threshold ("keep when the grader
gives >= t") is compared with the humans' keep decision (quality >= `human_ok`);
the suggested threshold is the one with the highest Cohen's kappa (then accuracy).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fidelity.review.agreement import cohen_kappa

SCALE = (1, 2, 3, 4, 5)


@dataclass
class Threshold:
    threshold: int
    accuracy: float
    kappa: float | None
    kept_share: float


@dataclass
class Calibration:
    n: int
    exact: float
    within_one: float
    weighted_kappa: float | None
    pearson: float | None
    human_ok: float
    thresholds: list[Threshold] = field(default_factory=list)
    suggested: int | None = None


def _pearson(xs: list[float], ys: list[float]) -> float | None:
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sx = sum((x - mx) ** 2 for x in xs) ** 0.5
    sy = sum((y - my) ** 2 for y in ys) ** 0.5
    if not sx or not sy:
        return None
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / (sx * sy)


def calibrate(pairs: list[tuple[float, float]], human_ok: float = 3.0) -> Calibration | None:
    """Agreement of grader scores with human quality, and the best-matching threshold."""
    if not pairs:
        return None
    grader = [round(g) for g, _ in pairs]
    human = [round(h) for _, h in pairs]
    n = len(pairs)
    result = Calibration(
        n=n,
        exact=sum(g == h for g, h in zip(grader, human, strict=True)) / n,
        within_one=sum(abs(g - h) <= 1 for g, h in zip(grader, human, strict=True)) / n,
        weighted_kappa=cohen_kappa(list(zip(grader, human, strict=True)), quadratic=True),
        pearson=_pearson([g for g, _ in pairs], [h for _, h in pairs]),
        human_ok=human_ok,
    )
    wanted = [h >= human_ok for _, h in pairs]
    for threshold in SCALE:
        kept = [g >= threshold for g, _ in pairs]
        decisions = list(zip(kept, wanted, strict=True))
        result.thresholds.append(
            Threshold(
                threshold=threshold,
                accuracy=sum(k == w for k, w in decisions) / n,
                kappa=cohen_kappa(decisions),
                kept_share=sum(kept) / n,
            )
        )
    best = max(
        result.thresholds,
        key=lambda t: (t.kappa if t.kappa is not None else -2.0, t.accuracy, -t.threshold),
    )
    result.suggested = best.threshold
    return result
