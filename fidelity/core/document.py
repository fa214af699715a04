"""The shared data model: Document, Artifact, Candidate, Decision.

Every stage reads and writes these; nothing else defines them.
"""

from __future__ import annotations

import hashlib
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, Field, computed_field

from fidelity.core.apps import APPLICATIONS
from fidelity.core.locator import Locator


def _known_app(name: str) -> str:
    if name not in APPLICATIONS:
        raise ValueError(f"unknown application {name!r} (one of {', '.join(APPLICATIONS)})")
    return name


App = Annotated[str, AfterValidator(_known_app)]

# How the groundedness filter ablates an artifact (DESIGN.md, "Ablation per category").
Modality = Literal["text", "table", "visual", "element"]

Verdict = Literal["pass", "fail", "unverified", "skipped"]
# Candidate statuses that put a question in the output; `incomplete` (a model check did
# not run) and `rejected` do not.
KEPT_STATUSES = ("kept", "unverified")


def placeholder_for(artifact_id: str) -> str:
    """The marker that stands for an artifact inside the body or another artifact's text."""
    return f"⟦{artifact_id}⟧"


class Artifact(BaseModel):
    """One element of a file that a question can be grounded in."""

    id: str
    category: str
    kind: str
    modality: Modality
    where: Locator = Field(default_factory=Locator)
    text: str = ""
    html: str | None = None
    media: str | None = None
    facts: dict[str, Any] = Field(default_factory=dict)
    placeholder: str | None = None
    fallback: str = ""
    group: str = ""
    # The views its extractor declares for it, by name (the ground builds them from these):
    # views that leave it out (its ablation groups: "no-comments"), views that show only it
    # and the other artifacts declaring them ("notes-only"), and such views its question
    # must be answerable from alone.
    removed_by: list[str] = Field(default_factory=list)
    shown_by: list[str] = Field(default_factory=list)
    answerable_from: list[str] = Field(default_factory=list)
    # A question about it asks a property of the element (a size, a position, a language),
    # not content it states; declared by its extractor.
    about_property: bool = False

    @computed_field  # type: ignore[prop-decorator]
    @property
    def locator(self) -> str:
        """Where it sits, as shown to a reader (rendered from `where`, never parsed)."""
        return self.where.text


class Document(BaseModel):
    """A file turned into artifacts, plus the body that places the in-flow ones."""

    sha256: str
    app: App
    format: str
    source: str
    converted_from: str | None = None
    size: dict[str, Any] = Field(default_factory=dict)
    notes: list[str] = Field(default_factory=list)
    body: str = ""
    artifacts: list[Artifact] = Field(default_factory=list)

    def artifact(self, artifact_id: str) -> Artifact:
        for artifact in self.artifacts:
            if artifact.id == artifact_id:
                return artifact
        raise KeyError(artifact_id)


class Probe(BaseModel):
    """What the lexical leakage test looks for: the answer value near its anchor words."""

    value: str
    anchor: list[str] = Field(default_factory=list)


class Candidate(BaseModel):
    """A drafted question with its atomic answer statements and provenance."""

    id: str
    file_sha: str
    file: str
    app: App
    artifact_id: str
    category: str
    question_type: str
    question: str
    answer: list[str]
    probe: Probe
    generator: str
    generator_version: str
    # What the generator checked before drafting (e.g. how an ambiguous name was qualified).
    notes: list[str] = Field(default_factory=list)

    @staticmethod
    def make_id(file_sha: str, artifact_id: str, question: str) -> str:
        raw = f"{file_sha}\x1f{artifact_id}\x1f{question}".encode()
        return hashlib.sha256(raw).hexdigest()[:16]


class Decision(BaseModel):
    """One filter check on one candidate, with the evidence behind its verdict."""

    candidate_id: str
    check: str
    view: str
    context_hash: str
    answered: str
    match: str
    verdict: Verdict
    reason: str
    model_call: str | None = None
