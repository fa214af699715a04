"""The check chain: every check a candidate meets, in the order it meets them, each named once.

A check returns Decisions that carry their reason, and the first failing one rejects the
candidate: later checks do not run. The per-file checks (guessable, no-context, ablation,
answerable) run over `FILE_CHECKS` in filters.groundedness; grading runs on a file's
survivors and de-duplication over the whole run. The funnel, explain, replay, quality and
the report read the stages, their names and their order from `CHAIN`.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Stage:
    """One link of the chain: its check name (or the prefix of its per-view decisions,
    "ablation:tables-except") and what a rejection by it means, in words."""

    name: str
    removes: str
    per_view: bool = False

    def check_name(self, view: str = "") -> str:
        """The name a decision of this stage carries ("ablation:without" for a view)."""
        return f"{self.name}:{view.split(':')[0]}" if self.per_view else self.name

    def owns(self, check: str) -> bool:
        return check == self.name or self.per_view and check.startswith(f"{self.name}:")


GUESSABLE = Stage("guessable", "guessable without the file")
NO_CONTEXT = Stage("no-context", "answered with no context")
ABLATION = Stage("ablation", "answerable with the target removed", per_view=True)
ANSWERABLE = Stage("answerable", "not answerable from the file", per_view=True)
GRADE = Stage("grade", "graded too low")
DEDUP = Stage("dedup", "a near-duplicate or an ambiguous question")
CHAIN = (GUESSABLE, NO_CONTEXT, ABLATION, ANSWERABLE, GRADE, DEDUP)


def stage_of(check: str) -> Stage | None:
    """The stage a decision's check name belongs to (None for a name outside the chain)."""
    return next((stage for stage in CHAIN if stage.owns(check)), None)
