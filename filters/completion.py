"""Finish the candidates an earlier build left incomplete: their checks run again.

A candidate is `incomplete` when one of its model checks did not run (a failed
call, no usable reply, the budget cap). On the next build of the same OUT its
checks run again from the stored document: replies already recorded are reused,
failed and never-made calls are sent. The new decisions replace the old ones.
"""

from __future__ import annotations

from collections.abc import Callable

from fidelity.model import Candidate, Document
from fidelity.store import RunStore
from filters.groundedness import Outcome

Refilter = Callable[[Document, list[Candidate]], list[Outcome]]


def retry_incomplete(store: RunStore, refilter: Refilter) -> int:
    """Run the checks of every incomplete candidate again; returns how many are now settled."""
    by_file: dict[str, list[Candidate]] = {}
    for candidate, _, _, _ in store.candidates(status="incomplete"):
        by_file.setdefault(candidate.file_sha, []).append(candidate)
    settled = 0
    for sha, candidates in by_file.items():
        document = store.document(sha)
        if document is None:
            continue
        outcomes = refilter(document, candidates)
        with store.transaction():
            for outcome in outcomes:
                candidate_id = outcome.candidate.id
                store.forget_decisions(candidate_id)
                for decision, context in outcome.decisions:
                    store.add_decision(decision, context)
                store.set_ground_status(
                    candidate_id, outcome.status, outcome.rejected_by, outcome.reason
                )
                settled += outcome.status != "incomplete"
    return settled
