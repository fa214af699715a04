"""Build Candidates from drafted question/answer pairs with stable ids and provenance."""

from __future__ import annotations

import re

from fidelity.core.document import Artifact, Candidate, Document, Probe

_DOUBLE_STOP = re.compile(r"(?<!\.)\.\.$")


def candidate(
    document: Document,
    artifact: Artifact,
    question_type: str,
    question: str,
    answer: list[str],
    value: str,
    anchor: list[str] | None = None,
    generator: str = "rules",
    generator_version: str = "1",
    notes: list[str] | None = None,
) -> Candidate:
    """A candidate whose probe (value near anchor words) drives the leakage test."""
    return Candidate(
        id=Candidate.make_id(document.sha256, artifact.id, question),
        file_sha=document.sha256,
        file=document.source,
        app=document.app,
        artifact_id=artifact.id,
        category=artifact.category,
        question_type=question_type,
        question=question,
        answer=[_DOUBLE_STOP.sub(".", statement) for statement in answer],
        probe=Probe(value=value, anchor=[a for a in (anchor or []) if a]),
        generator=generator,
        generator_version=generator_version,
        notes=notes or [],
    )


def quote(text: str, limit: int = 80) -> str:
    """A short, single-line quotation of document text for use inside a question."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    cut = flat[:limit].rsplit(" ", 1)[0]
    return cut + "…"
