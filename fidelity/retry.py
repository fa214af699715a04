"""A rerun finishes what an earlier build of the same OUT could not: model calls that failed
or that the budget skipped.

Checks: a candidate is `incomplete` when one of its model checks did not run; its
checks run again from the stored document, replies already recorded are reused,
failed and never-made calls are sent, and the new decisions replace the old ones.
Generation: when drafting calls failed (the run store remembers how many), the
model generators run again over every finished document; recorded replies cost
nothing, and the candidates not stored yet are filtered and added.
"""

from __future__ import annotations

from collections.abc import Callable

from fidelity.core.document import Candidate, Document
from fidelity.core.llm.accounting import Accounting
from fidelity.core.store import RunStore
from fidelity.stages import Generate
from filters.groundedness import Outcome

FAILED_DRAFTS = "failed_drafts"  # run-store meta: drafting calls that failed in the last build
Refilter = Callable[[Document, list[Candidate]], list[Outcome]]
StoreOutcomes = Callable[[RunStore, list[Outcome], int], int]


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


def retry_generation(
    store: RunStore, generate: Generate, refilter: Refilter, store_outcomes: StoreOutcomes
) -> int:
    """When the last build had failed drafting calls, draft again for every finished document;
    returns how many new candidates were stored."""
    if not store.meta(FAILED_DRAFTS, 0):
        return 0
    added = 0
    for entry in store.files("done"):
        document = store.document(entry["sha256"])
        if document is None:
            continue
        new = [c for c in generate(document) if not store.has_candidate(c.id)]
        if not new:
            continue
        outcomes = refilter(document, new)
        with store.transaction():
            added += store_outcomes(store, outcomes, store.next_seq(document.sha256))
    return added


def remember_failed_drafts(store: RunStore, accounting: Accounting, retried: bool) -> None:
    """Store how many drafting calls failed, for the next build (kept when not retried)."""
    earlier = 0 if retried else store.meta(FAILED_DRAFTS, 0)
    store.set_meta(FAILED_DRAFTS, earlier + accounting.failed_drafts())
