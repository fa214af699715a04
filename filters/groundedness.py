"""Groundedness checks for a document's candidates: guessability, no-context, each ablation view.

The per-file checks of the chain (filters.chain) run in order, each one a `Check` that
says whether it applies and yields its Decisions; the first failing decision rejects the
candidate. The offline guessability check runs first. On every view the cheap lexical
leakage test runs before the model answerer (when one is configured), which is asked only
where the leakage test did not already decide. In model mode the survivors must then be
answerable from the file (filters.answerable). Each Decision carries the view, the context
hash and the evidence.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

from fidelity.core.document import Artifact, Candidate, Decision, Document
from fidelity.core.views import View, ViewContext, no_context, view_context
from filters import answerable, guessability, leakage
from filters.ablation import ablation_views, target_ids
from filters.chain import ABLATION, ANSWERABLE, GUESSABLE, NO_CONTEXT, Stage
from filters.elements import ElementIndex

T = TypeVar("T")
R = TypeVar("R")
Mapper = Callable[[Callable[[T], R], Iterable[T]], list[R]]


class Answerer(Protocol):
    """Model-based re-ask: does `view` let a model answer `candidate` correctly?

    `shown(view)` is the context the model will really get (e.g. cut to a size limit);
    `check` returns `skipped` when the model gave no usable answer.
    """

    def shown(self, view: ViewContext) -> ViewContext: ...

    def check(self, candidate: Candidate, view: ViewContext, check: str) -> Decision: ...


@dataclass
class Outcome:
    """A candidate's checks and status: kept, unverified, rejected, or incomplete (a model check
    did not run: no reply, a failed call, the budget). Incomplete stands over rejected: a check
    that did not run could have rejected the candidate first, so a rerun runs them all again."""

    candidate: Candidate
    status: str = "kept"
    rejected_by: str = ""
    reason: str = ""
    decisions: list[tuple[Decision, str]] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    rejecting: str = ""  # the check that failed the candidate, settled or not

    def miss(self, check: str, why: str) -> None:
        """A model check that did not run: the candidate is incomplete until a rerun runs it."""
        self.missing.append(f"{check} ({why})")
        self.status = "incomplete"
        self.reason = "model checks did not run: " + "; ".join(self.missing)

    def reject(self, check: str, reason: str) -> None:
        """A check failed the candidate; while checks are missing it stays incomplete (a
        missing check could have rejected it first), and a rerun runs every check again."""
        self.rejecting = check
        if self.status == "incomplete":
            self.reason += f"; meanwhile {check} rejects it: {reason}"
            return
        self.status = "rejected"
        self.rejected_by = check
        self.reason = reason


class ViewCache:
    """Render (and split into normalised lines) each distinct view of a document once."""

    def __init__(self, document: Document) -> None:
        self.document = document
        self.elements = ElementIndex(document)
        self.cache: dict[str, tuple[ViewContext, leakage.Lines]] = {}
        self.normalised: dict[str, str] = {}
        self.lock = threading.Lock()

    def get(self, view: View) -> tuple[ViewContext, leakage.Lines]:
        with self.lock:
            if view.name not in self.cache:
                rendered = view_context(self.document, view)
                self.cache[view.name] = (rendered, leakage.lines(rendered.text, self.normalised))
            return self.cache[view.name]


def _in_order(fn: Callable[[T], R], items: Iterable[T]) -> list[R]:
    return [fn(item) for item in items]


def check_document(
    document: Document,
    candidates: list[Candidate],
    answerer: Answerer | None = None,
    mapper: Mapper | None = None,
) -> list[Outcome]:
    """Each candidate's outcome, in order; `mapper` may spread candidates over threads."""
    views = ViewCache(document)
    run = mapper or _in_order
    return run(lambda candidate: _check(document, candidate, views, answerer), candidates)


@dataclass
class Job:
    """One candidate on its way through the per-file checks."""

    document: Document
    candidate: Candidate
    views: ViewCache
    answerer: Answerer | None
    outcome: Outcome

    @property
    def artifact(self) -> Artifact:
        return self.document.artifact(self.candidate.artifact_id)


class Check(Protocol):
    """A per-file check: its stage of the chain, whether it runs on a job, and its Decisions
    (each with the context it was made on), in order."""

    stage: Stage

    def applies(self, job: Job) -> bool: ...

    def run(self, job: Job) -> Iterator[tuple[Decision, str]]: ...


class Guessable:
    """Answers a reader gets without the file (filters.guessability), in every mode."""

    stage = GUESSABLE

    def applies(self, job: Job) -> bool:
        return True

    def run(self, job: Job) -> Iterator[tuple[Decision, str]]:
        yield guessability.check(job.document, job.candidate), ""


class NoContext:
    """The question asked with no context at all; offline it is recorded as skipped."""

    stage = NO_CONTEXT

    def applies(self, job: Job) -> bool:
        return True

    def run(self, job: Job) -> Iterator[tuple[Decision, str]]:
        empty = no_context()
        if job.answerer is None:
            yield (
                Decision(
                    candidate_id=job.candidate.id,
                    check=self.stage.check_name(),
                    view=empty.name,
                    context_hash=empty.hash,
                    answered="",
                    match="none",
                    verdict="skipped",
                    reason="offline mode: testing memorisation needs a model",
                ),
                empty.text,
            )
            return
        decision = job.answerer.check(job.candidate, empty, self.stage.check_name())
        if decision.verdict == "skipped":
            job.outcome.miss(decision.check, decision.reason)
        yield decision, empty.text


class Ablation:
    """Every view with the target removed: the lexical leakage test, then the model where
    the leakage test did not already fail the candidate."""

    stage = ABLATION

    def applies(self, job: Job) -> bool:
        return True

    def run(self, job: Job) -> Iterator[tuple[Decision, str]]:
        document, candidate, views, answerer = job.document, job.candidate, job.views, job.answerer
        artifact = job.artifact
        related = target_ids(document, artifact)
        for view in ablation_views(document, artifact):
            rendered, view_lines = views.get(view)
            check = self.stage.check_name(view.name)
            result = leakage.test_elements(
                view_lines,
                candidate.probe,
                artifact,
                related,
                views.elements,
                view,
                cloze=candidate.question_type.endswith("cloze"),
                question=candidate.question,
            )
            decision = Decision(
                candidate_id=candidate.id,
                check=check,
                view=view.name,
                context_hash=rendered.hash,
                answered=result.evidence,
                match=leakage.MATCH,
                verdict=result.verdict,
                reason=result.reason,
            )
            context = rendered.text
            if answerer is not None and result.verdict != "fail":
                shown = answerer.shown(rendered)
                asked = answerer.check(candidate, shown, check)
                if asked.verdict != "skipped":  # the model decides; the lexical finding stays
                    reason = f"{asked.reason}; lexical test: {decision.reason}"
                    decision, context = asked.model_copy(update={"reason": reason}), shown.text
                else:  # no usable model answer: the lexical verdict stands, with the reason
                    job.outcome.miss(check, asked.reason)
                    reason = f"{decision.reason}; {asked.reason}"
                    decision = decision.model_copy(
                        update={"reason": reason, "model_call": asked.model_call}
                    )
            yield decision, context


class Answerable:
    """Model mode: the file (and the target's own modality) must give the reference answer."""

    stage = ANSWERABLE

    def applies(self, job: Job) -> bool:
        return job.answerer is not None

    def run(self, job: Job) -> Iterator[tuple[Decision, str]]:
        assert job.answerer is not None  # applies() holds
        for view in answerable.positive_views(job.document, job.artifact):
            shown = job.answerer.shown(job.views.get(view)[0])
            asked = job.answerer.check(job.candidate, shown, self.stage.check_name(view.name))
            if asked.verdict == "skipped":
                job.outcome.miss(asked.check, asked.reason)
            yield answerable.positive(asked), shown.text


FILE_CHECKS: tuple[Check, ...] = (Guessable(), NoContext(), Ablation(), Answerable())


def _check(
    document: Document, candidate: Candidate, views: ViewCache, answerer: Answerer | None
) -> Outcome:
    job = Job(document, candidate, views, answerer, Outcome(candidate))
    for check in FILE_CHECKS:
        if not check.applies(job):
            continue
        for decision, context in check.run(job):
            if not _record(job.outcome, decision, context):
                return job.outcome
    return job.outcome


def _record(outcome: Outcome, decision: Decision, context: str) -> bool:
    """Add a decision; False once the candidate is rejected (later checks are not run)."""
    outcome.decisions.append((decision, context))
    if decision.verdict == "fail":
        if GUESSABLE.owns(decision.check):
            reason = f"guessable without the file: {decision.reason}"
        elif ANSWERABLE.owns(decision.check):
            reason = f"view {decision.view}: {decision.reason}"
        else:
            reason = f"answerable from view {decision.view}: {decision.reason}"
        outcome.reject(decision.check, reason)
        return False
    if decision.verdict == "unverified" and outcome.status == "kept":  # incomplete stays
        outcome.status = "unverified"
        outcome.reason = decision.reason
    return True
