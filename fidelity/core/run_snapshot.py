"""A read-only snapshot of a run: what the outputs and the report read, taken in one pass."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple, TypeVar

from fidelity.core.document import Candidate, Decision, Document

T = TypeVar("T")


class CandidateRow(NamedTuple):
    """A stored candidate with its final status, the check that rejected it and why."""

    candidate: Candidate
    status: str
    rejected_by: str
    reason: str


class ModelCallRecord(NamedTuple):
    """A recorded model call without its request and response: what the report names."""

    stage: str
    model: str
    error: str
    answered: bool
    usage: dict[str, Any]


# The facts of an artifact the outputs read (where a chart sits on its sheet's render).
OUTPUT_FACTS = ("sheet", "anchor")


def output_document(stored: dict[str, Any], asked: set[str]) -> Document:
    """A stored document (decoded JSON) as the outputs read it: each artifact keeps of its
    facts only OUTPUT_FACTS, and its text and html only when a candidate asks about it (its
    id in `asked`); the outputs read no more, and the rest made most of a run's memory."""
    for artifact in stored.get("artifacts", ()):
        facts = artifact.get("facts") or {}
        artifact["facts"] = {key: facts[key] for key in OUTPUT_FACTS if key in facts}
        if artifact["id"] not in asked:
            artifact["text"], artifact["html"] = "", None
    return Document.model_validate(stored)


@dataclass(frozen=True)
class RunSnapshot:
    """Candidates of processed files (in the store's stable order), their decisions (in the
    order they were added), the processed documents as the outputs read them
    (`output_document`), every file, run metadata and model calls."""

    candidates: tuple[CandidateRow, ...]
    # None when read without decisions (for readers that never look at them, e.g. coverage).
    decisions: Mapping[str, tuple[Decision, ...]] | None
    documents: tuple[Document, ...]
    files: tuple[dict[str, Any], ...]
    meta: Mapping[str, Any]
    model_calls: Mapping[str, ModelCallRecord]
    # Tallies made from this snapshot, by key (see `derived`).
    _derived: dict[Hashable, Any] = field(default_factory=dict, compare=False, repr=False)

    def derived(self, key: Hashable, make: Callable[[], T]) -> T:
        """`make()`, made once per snapshot under `key`: the output files and the report read
        the same funnel and coverage tallies (each a full pass over the candidates)."""
        if key not in self._derived:
            self._derived[key] = make()
        return self._derived[key]

    def decisions_of(self, candidate_id: str) -> tuple[Decision, ...]:
        if self.decisions is None:
            raise LookupError("this snapshot was read without decisions")
        return self.decisions.get(candidate_id, ())

    def locators(self) -> dict[tuple[str, str], str]:
        """(file sha, artifact id) -> locator for every processed document."""
        return {
            (document.sha256, artifact.id): artifact.locator
            for document in self.documents
            for artifact in document.artifacts
        }

    def files_with_status(self, status: str) -> list[dict[str, Any]]:
        return [entry for entry in self.files if entry["status"] == status]

    def model_call_usage(self) -> list[tuple[str, str, dict[str, Any]]]:
        """(stage, model, usage) of every recorded call that got a response, in key order."""
        return [
            (call.stage, call.model, call.usage)
            for _, call in sorted(self.model_calls.items())
            if call.answered
        ]
