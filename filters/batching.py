"""Which re-asks share one request: the questions over one context, none giving another away.

Re-asks over the same context (the same view text and pictures, or no context at all) are
asked together, numbered, at most `size` to a request, in the order they come; the shared
context goes first in every request, so a provider's prompt cache can reuse it. A question
whose text states another question's answer is never asked in that other's request: the
model would read the one answer from the other question.
"""

from __future__ import annotations

from dataclasses import dataclass

from fidelity.core.document import Candidate
from fidelity.core.text import normalize
from fidelity.core.views import ViewContext
from filters.chain import NO_CONTEXT


@dataclass(frozen=True)
class Ask:
    """One re-ask: a candidate's question over the context the model is shown, for `check`."""

    candidate: Candidate
    view: ViewContext
    check: str

    @property
    def context(self) -> str:
        """What requests share: the context's hash ("" for the question with no context)."""
        return "" if self.check == NO_CONTEXT.name else self.view.hash


def gives_away(asking: Candidate, other: Candidate) -> bool:
    """Does `asking`'s question state `other`'s answer value (as a phrase, normalised)?"""
    value = normalize(other.probe.value)
    return bool(value) and f" {value} " in f" {normalize(asking.question)} "


def apart(one: Candidate, other: Candidate) -> bool:
    """May the two questions share a request: neither states the other's answer."""
    return not gives_away(one, other) and not gives_away(other, one)


def batches(asks: list[Ask], size: int) -> list[list[int]]:
    """The asks (by position) grouped into requests: one context each, at most `size` questions,
    no question with another's answer; each ask joins the first request it may join."""
    by_context: dict[str, list[list[int]]] = {}
    for position, ask in enumerate(asks):
        open_batches = by_context.setdefault(ask.context, [])
        for batch in open_batches:
            if len(batch) < size and all(apart(ask.candidate, asks[i].candidate) for i in batch):
                batch.append(position)
                break
        else:
            open_batches.append([position])
    return [batch for group in by_context.values() for batch in group]
