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
from filters.batching import Ask
from filters.chain import ABLATION, ANSWERABLE, GUESSABLE, NO_CONTEXT, Stage
from filters.elements import ElementIndex

T = TypeVar("T")
R = TypeVar("R")


class Mapper(Protocol):
    """A map over items that may spread the calls over threads (results in input order)."""

    def __call__(self, fn: Callable[[T], R], items: Iterable[T], /) -> list[R]: ...


class Answerer(Protocol):
    """Model-based re-ask: does a view let a model answer a candidate correctly?

    `shown(view)` is the context the model will really get (e.g. cut to a size limit);
    `check_all` decides each ask (questions over one context may share a request, spread
    over `mapper`), `skipped` where the model gave no usable answer.
    """

    def shown(self, view: ViewContext) -> ViewContext: ...

    def check_all(self, asks: list[Ask], mapper: Mapper | None = None) -> list[Decision]: ...


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


@dataclass
class Step:
    """One decision of a check, with the context it was made on: made at once (`ask` None), or
    from the answerer's decision on `ask`."""

    decide: Callable[[Decision | None], tuple[Decision, str]]
    ask: Ask | None = None


def made(decision: Decision, context: str) -> Step:
    """A step decided without the model."""
    return Step(lambda _: (decision, context))


class Check(Protocol):
    """A per-file check: its stage of the chain, whether it runs on a job, and its decisions'
    steps, in order (a step is taken before the next one is asked for)."""

    stage: Stage

    def applies(self, job: Job) -> bool: ...

    def run(self, job: Job) -> Iterator[Step]: ...


class Guessable:
    """Answers a reader gets without the file (filters.guessability), in every mode."""

    stage = GUESSABLE

    def applies(self, job: Job) -> bool:
        return True

    def run(self, job: Job) -> Iterator[Step]:
        yield made(guessability.check(job.document, job.candidate), "")


class NoContext:
    """The question asked with no context at all; offline it is recorded as skipped."""

    stage = NO_CONTEXT

    def applies(self, job: Job) -> bool:
        return True

    def run(self, job: Job) -> Iterator[Step]:
        empty = no_context()
        if job.answerer is None:
            decision = Decision(
                candidate_id=job.candidate.id,
                check=self.stage.check_name(),
                view=empty.name,
                context_hash=empty.hash,
                answered="",
                match="none",
                verdict="skipped",
                reason="offline mode: testing memorisation needs a model",
            )
            yield made(decision, empty.text)
            return

        def decide(asked: Decision | None) -> tuple[Decision, str]:
            assert asked is not None  # the step asks
            if asked.verdict == "skipped":
                job.outcome.miss(asked.check, asked.reason)
            return asked, empty.text

        yield Step(decide, Ask(job.candidate, empty, self.stage.check_name()))


class Ablation:
    """Every view with the target removed: the lexical leakage test, then the model where
    the leakage test did not already fail the candidate."""

    stage = ABLATION

    def applies(self, job: Job) -> bool:
        return True

    def run(self, job: Job) -> Iterator[Step]:
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
            if answerer is None or result.verdict == "fail":
                yield made(decision, rendered.text)
                continue
            shown = answerer.shown(rendered)
            yield Step(self._settler(job, decision, shown), Ask(candidate, shown, check))

    @staticmethod
    def _settler(
        job: Job, lexical: Decision, shown: ViewContext
    ) -> Callable[[Decision | None], tuple[Decision, str]]:
        """The model decides; without a usable answer the lexical verdict stands, with why."""

        def settle(asked: Decision | None) -> tuple[Decision, str]:
            assert asked is not None  # the step asks
            if asked.verdict != "skipped":  # the lexical finding stays in the reason
                reason = f"{asked.reason}; lexical test: {lexical.reason}"
                return asked.model_copy(update={"reason": reason}), shown.text
            job.outcome.miss(lexical.check, asked.reason)
            update = {"reason": f"{lexical.reason}; {asked.reason}", "model_call": asked.model_call}
            return lexical.model_copy(update=update), shown.text

        return settle


class Answerable:
    """Model mode: the file (and the target's own modality) must give the reference answer."""

    stage = ANSWERABLE

    def applies(self, job: Job) -> bool:
        return job.answerer is not None

    def run(self, job: Job) -> Iterator[Step]:
        assert job.answerer is not None  # applies() holds
        for view in answerable.positive_views(job.document, job.artifact):
            shown = job.answerer.shown(job.views.get(view)[0])
            check = self.stage.check_name(view.name)
            yield Step(self._settler(job, shown), Ask(job.candidate, shown, check))

    @staticmethod
    def _settler(job: Job, shown: ViewContext) -> Callable[[Decision | None], tuple[Decision, str]]:
        def settle(asked: Decision | None) -> tuple[Decision, str]:
            assert asked is not None  # the step asks
            if asked.verdict == "skipped":
                job.outcome.miss(asked.check, asked.reason)
            return answerable.positive(asked), shown.text

        return settle


FILE_CHECKS: tuple[Check, ...] = (Guessable(), NoContext(), Ablation(), Answerable())


@dataclass
class Waiting:
    """A job stopped at a step that asks the model: its place in the file's list, the check
    the step belongs to (by its place in FILE_CHECKS) and its remaining steps."""

    place: int
    job: Job
    check: int
    step: Step
    steps: Iterator[tuple[int, Step]]


def _steps(job: Job) -> Iterator[tuple[int, Step]]:
    for index, check in enumerate(FILE_CHECKS):
        if check.applies(job):
            for step in check.run(job):
                yield index, step


def _advance(place: int, job: Job, steps: Iterator[tuple[int, Step]]) -> Waiting | None:
    """Take the job's steps that need no model; None once it is rejected or done."""
    for index, step in steps:
        if step.ask is not None:
            return Waiting(place, job, index, step, steps)
        if not _record(job.outcome, *step.decide(None)):
            return None
    return None


def check_document(
    document: Document,
    candidates: list[Candidate],
    answerer: Answerer | None = None,
    mapper: Mapper | None = None,
) -> list[Outcome]:
    """Each candidate's outcome, in order; `mapper` may spread work over threads.

    Every candidate goes through its checks as on its own (the same steps in the same order,
    stopping at the first failure), but the model is asked in rounds: each round asks the
    pending questions of the earliest check together (filters.batching groups them by
    context), and each candidate then goes on to its next question.
    """
    views = ViewCache(document)
    jobs = [
        Job(document, candidate, views, answerer, Outcome(candidate)) for candidate in candidates
    ]
    run = mapper or _in_order
    started = run(
        lambda place_job: _advance(*place_job, _steps(place_job[1])), list(enumerate(jobs))
    )
    pending = [waiting for waiting in started if waiting is not None]
    while pending:
        assert answerer is not None  # only model checks ask
        first = min(waiting.check for waiting in pending)
        now = [waiting for waiting in pending if waiting.check == first]
        pending = [waiting for waiting in pending if waiting.check != first]
        asks = [waiting.step.ask for waiting in now if waiting.step.ask is not None]
        for waiting, asked in zip(now, answerer.check_all(asks, mapper), strict=True):
            if _record(waiting.job.outcome, *waiting.step.decide(asked)):
                following = _advance(waiting.place, waiting.job, waiting.steps)
                if following is not None:
                    pending.append(following)
        pending.sort(key=lambda waiting: waiting.place)
    return [job.outcome for job in jobs]


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
