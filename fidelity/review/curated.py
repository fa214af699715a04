"""Curators' hand-written items: matched to their file's evidence, filtered like drafts, stored.

An item becomes a Candidate (generator `human`) on the artifact its locator names and
goes through the same per-file filters a build runs on that file (pipeline.filter_candidates
with the configured stages). Only a kept (or unverified) item counts in coverage and
becomes a review task; a rejected one is stored with its reason, like any draft.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from fidelity import coverage
from fidelity.core.config import Config
from fidelity.core.document import Artifact, Candidate, Document, Probe
from fidelity.core.store import RunStore
from fidelity.outputs import write_outputs
from fidelity.pipeline import default_stages, filter_candidates, store_outcomes
from fidelity.review.items import HandItem

GENERATOR = "human"
STORED = "already stored"


@dataclass
class Added:
    """What became of one hand-written item."""

    item: HandItem
    candidate_id: str
    app: str
    category: str
    status: str  # kept | unverified | rejected | already stored
    reason: str = ""
    cell_kept: int = 0  # the cell's kept questions and target after the import
    cell_target: int = 0


def _document(documents: list[Document], name: str) -> Document | None:
    for document in documents:
        if name in (document.source, Path(document.source).name, document.sha256):
            return document
    return None


def _artifact(document: Document, locator: str) -> Artifact | None:
    for artifact in document.artifacts:
        if locator in (artifact.locator, artifact.id):
            return artifact
    return None


Matched = list[tuple[HandItem, Candidate]]


def match(store: RunStore, items: list[HandItem]) -> tuple[Matched, list[str]]:
    """(item, candidate) pairs, and a problem (file, line, field) for each item matching nothing."""
    documents = list(store.documents())
    pairs: Matched = []
    problems: list[str] = []
    for item in items:
        at = f"{item.source}: {item.where}"
        document = _document(documents, item.file)
        if document is None:
            names = ", ".join(sorted(Path(d.source).name for d in documents)[:10])
            problems.append(f"{at}: file: no built file {item.file!r} (built: {names})")
            continue
        artifact = _artifact(document, item.locator)
        if artifact is None:
            known = ", ".join(a.locator for a in document.artifacts[:8])
            problems.append(
                f"{at}: locator: {item.locator!r} is not in {item.file} (locators: {known}, …)"
            )
            continue
        pairs.append(
            (
                item,
                Candidate(
                    id=Candidate.make_id(document.sha256, artifact.id, item.question),
                    file_sha=document.sha256,
                    file=document.source,
                    app=document.app,
                    artifact_id=artifact.id,
                    category=artifact.category,
                    question_type=item.question_type,
                    question=item.question,
                    answer=item.answer,
                    probe=Probe(value=item.value, anchor=[a for a in item.anchor if a]),
                    generator=GENERATOR,
                    generator_version=f"curator:{item.curator}",
                ),
            )
        )
    return pairs, problems


def add(out: Path, store: RunStore, config: Config, matched: Matched) -> list[Added]:
    """Filter and store matched items (each file's filters); refresh the run's outputs."""
    stored = {candidate.id for candidate, _, _, _ in store.candidates()}
    stages, client = default_stages(config, store, out)
    added = []
    by_file: dict[str, list[tuple[HandItem, Candidate]]] = {}
    for item, candidate in matched:
        if candidate.id in stored:
            added.append(Added(item, candidate.id, candidate.app, candidate.category, STORED))
        else:
            by_file.setdefault(candidate.file_sha, []).append((item, candidate))
    for sha, pairs in by_file.items():
        document = store.document(sha)
        if document is None:  # not reached: the items were matched to this stored document
            continue
        outcomes = filter_candidates(document, [candidate for _, candidate in pairs], stages)
        with store.transaction():
            store_outcomes(store, outcomes, store.next_seq(sha))
        for (item, candidate), outcome in zip(pairs, outcomes, strict=True):
            added.append(
                Added(
                    item,
                    candidate.id,
                    candidate.app,
                    candidate.category,
                    outcome.status,
                    outcome.reason,
                )
            )
    if by_file:
        write_outputs(store, out, config.coverage)
    cells = coverage.compute(store, config.coverage)
    for entry in added:
        cell = cells[(entry.app, entry.category)]
        entry.cell_kept, entry.cell_target = cell.kept, cell.target
    if client is not None:
        client.finish(out)
    return added
