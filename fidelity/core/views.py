"""Views of a Document: the text context a check sees, with chosen artifacts left out.

An artifact whose placeholder sits in the body (or in another artifact's text) is
rendered in place; an excluded one is replaced by its `fallback` (often empty, a
formula's cached value for a formula). Artifacts placed nowhere go to annex
sections grouped by `group`, in document order.

The ground knows modalities only: which artifacts a named view leaves out or shows is
declared on each artifact by its extractor (`removed_by`, `shown_by`).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from fidelity.core.document import Artifact, Document

PLACEHOLDER = re.compile(r"⟦([^⟦⟧]+)⟧")


@dataclass(frozen=True)
class View:
    """Which artifacts a rendering leaves out (exclude) or keeps (include_only)."""

    name: str
    exclude: frozenset[str] = frozenset()
    include_only: frozenset[str] | None = None

    def includes(self, artifact_id: str) -> bool:
        if artifact_id in self.exclude:
            return False
        return self.include_only is None or artifact_id in self.include_only


@dataclass
class ViewContext:
    """The exact context a model (or the leakage test) sees."""

    name: str
    text: str
    images: list[str] = field(default_factory=list)

    @property
    def hash(self) -> str:
        digest = hashlib.sha256(self.text.encode())
        for image in self.images:
            digest.update(b"\x00" + image.encode())
        return digest.hexdigest()


def placed_ids(document: Document) -> set[str]:
    """Ids whose placeholder appears in the body or in some artifact's text."""
    found = set(PLACEHOLDER.findall(document.body))
    for artifact in document.artifacts:
        found.update(PLACEHOLDER.findall(artifact.text))
    return found


def view_context(document: Document, view: View) -> ViewContext:
    """What a check sees of `document` through `view`: text, and the pictures it places.

    (Pictures of slides and sheets are rendered by LibreOffice in extractors/rendering.py.)
    """
    by_id = {artifact.id: artifact for artifact in document.artifacts}
    images: list[str] = []

    def expand(text: str, depth: int = 0) -> str:
        def substitute(match: re.Match[str]) -> str:
            artifact = by_id.get(match.group(1))
            if artifact is None:
                return ""
            if not view.includes(artifact.id) or depth > 8:
                return artifact.fallback
            if artifact.media and artifact.modality == "visual":
                images.append(artifact.media)
            return expand(artifact.text, depth + 1)

        return PLACEHOLDER.sub(substitute, text)

    parts = [expand(document.body)]
    placed = placed_ids(document)
    annex: dict[str, list[str]] = {}
    for artifact in document.artifacts:
        if artifact.id in placed or not view.includes(artifact.id):
            continue
        if artifact.media and artifact.modality == "visual":
            images.append(artifact.media)
        annex.setdefault(artifact.group or artifact.category, []).append(expand(artifact.text))
    for group, texts in annex.items():
        parts.append(f"## {group}\n\n" + "\n\n".join(texts))
    text = "\n\n".join(part.strip() for part in parts if part.strip())
    text = re.sub(r"\n{3,}", "\n\n", text)
    return ViewContext(name=view.name, text=text, images=images)


def ids_where(document: Document, predicate: Callable[[Artifact], bool]) -> frozenset[str]:
    return frozenset(a.id for a in document.artifacts if predicate(a))


def without(name: str, ids: Iterable[str]) -> View:
    return View(name=name, exclude=frozenset(ids))


def removed_by(document: Document, name: str) -> frozenset[str]:
    """The artifacts that declare that view `name` leaves them out (its ablation group)."""
    return ids_where(document, lambda a: name in a.removed_by)


def group_view(document: Document, name: str) -> View:
    """The document without the artifacts of the ablation group `name` ("no-comments")."""
    return without(name, removed_by(document, name))


def shown_by(document: Document, name: str) -> View:
    """Only the artifacts that declare view `name` ("notes-only"): nothing when none does."""
    return View(name, include_only=ids_where(document, lambda a: name in a.shown_by))


def named_views(document: Document) -> dict[str, View]:
    """The document-wide views every application offers, by modality."""
    return {
        "full": View("full"),
        "text-only": without(
            "text-only", ids_where(document, lambda a: a.modality in ("table", "visual"))
        ),
        "no-tables": without("no-tables", ids_where(document, lambda a: a.modality == "table")),
    }


def no_context() -> ViewContext:
    return ViewContext(name="no-context", text="")
