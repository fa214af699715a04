"""Re-run one file's filters from the run store and compare every decision with the stored one.

The document and the candidates come from the store; the filters are the build's own
(`fidelity.pipeline.filter_candidates`) with, in model mode, a client that answers from
the recorded calls only and never opens a connection; the settings are the ones the
build kept in the store's meta. Every view is rendered again, so a replayed context hash
equal to the stored one shows the stored context is the one the check saw. De-duplication
is recomputed over the stored candidates. Any field that differs is a `Difference`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from fidelity.core.config import Config, FilterSettings, ModelsConfig
from fidelity.core.document import Candidate, Decision
from fidelity.core.llm import LLMClient
from fidelity.core.store import RunStore
from fidelity.pipeline import Stages, dedup_decisions, dedup_scope, filter_candidates, model_filters
from filters.answerer import Answered, answer_in
from filters.batching import Ask
from filters.chain import DEDUP

COMPARED = ("check", "view", "context_hash", "answered", "match", "verdict", "model_call")


@dataclass
class Difference:
    candidate_id: str
    check: str
    field: str
    recorded: str
    replayed: str


@dataclass
class Replay:
    """What a replay re-decided for each candidate, and every difference from the store."""

    decisions: dict[str, list[Decision]] = field(default_factory=dict)
    statuses: dict[str, str] = field(default_factory=dict)
    differences: list[Difference] = field(default_factory=list)

    @property
    def compared(self) -> int:
        return sum(len(decisions) for decisions in self.decisions.values())


class RecordedAnswers:
    """A replayed re-ask's answer from the request of numbered questions its stored decision
    (the same check on the same context) names: questions replayed together need not meet in
    the requests they were asked in (a regen or a rerun asks some of a file's questions)."""

    def __init__(self, store: RunStore) -> None:
        self.store = store

    def __call__(self, ask: Ask) -> Answered | None:
        for decision in self.store.decisions(ask.candidate.id):
            if decision.check != ask.check or decision.context_hash != ask.view.hash:
                continue
            record = self.store.model_call((decision.model_call or "").split(",")[0])
            return answer_in(record, ask.candidate.question) if record else None
        return None


def replay_stages(store: RunStore, out: Path) -> Stages:
    """The build's filters, rebuilt from the store's meta; model calls from records only."""
    if store.meta("mode", "offline") != "model":
        return Stages()
    config = Config(
        models=ModelsConfig.from_toml(store.meta("models", {})),
        filters=FilterSettings.from_toml(store.meta("filters", {})),
    )
    client = LLMClient(config.models, store, out, replay_only=True, notify=lambda _: None)
    answerer, grader = model_filters(config, client, RecordedAnswers(store))
    return Stages(answerer=answerer, grader=grader, mode="model")


def replay_file(
    store: RunStore, file_sha: str, out: Path, config: Config, only: str | None = None
) -> Replay:
    """Replay the filters of one stored file (or of its candidate `only`)."""
    document = store.document(file_sha)
    if document is None:
        raise LookupError(f"no stored document for {file_sha}")
    rows = [row for row in store.candidates(file_sha=file_sha) if not only or row[0].id == only]
    candidates: list[Candidate] = [candidate for candidate, *_ in rows]
    outcomes = filter_candidates(document, candidates, replay_stages(store, out))
    scope = store.meta("dedup_scope") or dedup_scope(store, config)
    wanted = {candidate.id for candidate in candidates}
    run_wide = {
        d.candidate_id: d for d in dedup_decisions(store, scope) if d.candidate_id in wanted
    }
    replay = Replay()
    for (candidate, status, _, _), outcome in zip(rows, outcomes, strict=True):
        replayed = [decision for decision, _ in outcome.decisions]
        contexts = {decision.context_hash: text for decision, text in outcome.decisions}
        if candidate.id in run_wide:
            replayed.append(run_wide[candidate.id])
        replay.decisions[candidate.id] = replayed
        status_now = "rejected" if candidate.id in run_wide else outcome.status
        replay.statuses[candidate.id] = status_now
        recorded = store.decisions(candidate.id)
        replay.differences += _compare(candidate.id, recorded, replayed)
        replay.differences += _contexts(store, candidate.id, recorded, contexts)
        if status != status_now:
            replay.differences.append(Difference(candidate.id, "", "status", status, status_now))
    return replay


def _compare(
    candidate_id: str, recorded: list[Decision], replayed: list[Decision]
) -> list[Difference]:
    out = []
    for before, after in zip(recorded, replayed, strict=False):
        for name in COMPARED:
            old, new = getattr(before, name), getattr(after, name)
            if old != new:
                out.append(Difference(candidate_id, before.check, name, str(old), str(new)))
    if len(recorded) != len(replayed):
        names = [d.check for d in recorded], [d.check for d in replayed]
        out.append(Difference(candidate_id, "", "checks", " ".join(names[0]), " ".join(names[1])))
    return out


def _contexts(
    store: RunStore, candidate_id: str, recorded: list[Decision], replayed: dict[str, str]
) -> list[Difference]:
    """The stored context text of each check must be the text the replay showed."""
    out = []
    for decision in recorded:
        if decision.check == DEDUP.name or decision.context_hash not in replayed:
            continue
        stored = store.context(decision.context_hash)
        if stored != replayed[decision.context_hash]:
            shown = "missing" if stored is None else f"{len(stored)} chars"
            out.append(
                Difference(
                    candidate_id,
                    decision.check,
                    "context text",
                    shown,
                    f"{len(replayed[decision.context_hash])} chars",
                )
            )
    return out
