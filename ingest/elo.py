"""Elo ratings from pairwise outcomes, averaged over several random orderings.

Sequential Elo depends on the order games are played; averaging the final
ratings over shuffled orders (seeded, so reproducible) removes most of that.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

INITIAL = 1000.0


@dataclass(frozen=True)
class Outcome:
    """One comparison: `score` is 1 when a won, 0 when b won, 0.5 for a tie."""

    a: str
    b: str
    score: float


def elo(outcomes: Iterable[Outcome], players: Iterable[str], k: float) -> dict[str, float]:
    ratings = dict.fromkeys(players, INITIAL)
    for outcome in outcomes:
        expected = 1.0 / (1.0 + 10 ** ((ratings[outcome.b] - ratings[outcome.a]) / 400.0))
        delta = k * (outcome.score - expected)
        ratings[outcome.a] += delta
        ratings[outcome.b] -= delta
    return ratings


def averaged_elo(
    outcomes: Sequence[Outcome], players: Sequence[str], k: float, orderings: int, seed: int
) -> dict[str, float]:
    """Mean final rating over `orderings` seeded shuffles of the outcomes."""
    totals = dict.fromkeys(players, 0.0)
    rounds = max(1, orderings)
    for index in range(rounds):
        order = list(outcomes)
        random.Random(seed * 1_000_003 + index).shuffle(order)
        for player, rating in elo(order, players, k).items():
            totals[player] += rating
    return {player: total / rounds for player, total in totals.items()}
