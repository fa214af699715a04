"""Views of a Document: the text context a check sees, with chosen artifacts left out.

An artifact whose placeholder sits in the body (or in another artifact's text) is
rendered in place; an excluded one is replaced by its `fallback` (often empty, a
formula's cached value for a formula). Artifacts placed nowhere go to annex
sections grouped by `group`, in document order.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from fidelity.core.document import Artifact, Document

PLACEHOLDER = re.compile(r"⟦([^⟦⟧]+)⟧")

FORMATTING_CATEGORIES = {"Font", "Highlight", "Strikeout", "Layout", "Text Highlight"}
HEADER_FOOTER_CATEGORIES = {"Header", "Footer", "Header/Footer/SlideNum/DateTime"}


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


# Views that leave out one group of artifacts, by the group's predicate. The ablation
# filter asks a question again without the group its target belongs to.
GROUP_PREDICATES: dict[str, Callable[[Artifact], bool]] = {
    "no-headers-footers": lambda a: a.category in HEADER_FOOTER_CATEGORIES,
    "no-formatting": lambda a: a.category in FORMATTING_CATEGORIES,
    "no-metadata": lambda a: a.category == "Metadata",
    "no-comments": lambda a: a.kind in ("comment", "comment-reply"),
    "no-notes": lambda a: a.category == "Slide Note",
    "values-only": lambda a: a.category == "Formula",
}


def group_view(document: Document, name: str) -> View:
    """The document without the group `name` of GROUP_PREDICATES."""
    return without(name, ids_where(document, GROUP_PREDICATES[name]))


def named_views(document: Document) -> dict[str, View]:
    """The document-wide views every application offers."""
    return {
        "full": View("full"),
        "text-only": without(
            "text-only", ids_where(document, lambda a: a.modality in ("table", "visual"))
        ),
        "no-tables": without("no-tables", ids_where(document, lambda a: a.modality == "table")),
        "no-headers-footers": group_view(document, "no-headers-footers"),
        "no-comments": group_view(document, "no-comments"),
        "no-metadata": group_view(document, "no-metadata"),
        "no-formatting": group_view(document, "no-formatting"),
    }


def values_only(document: Document) -> View:
    """Every Formula artifact excluded: each formula cell shows its cached value instead."""
    return group_view(document, "values-only")


def sheet_only(document: Document, sheet: str) -> View:
    """Only the artifacts of `sheet` (its index entry, cells and objects); other sheets stripped.

    Workbook-level artifacts (defined names) are kept when they point into the sheet.
    """

    def keep(artifact: Artifact) -> bool:
        owner = artifact.facts.get("sheet")
        if owner is not None:
            return owner == sheet
        refers = str(artifact.facts.get("refers_to", ""))
        return f"{sheet}!" in refers.replace("'", "")

    return View(f"sheet-only:{sheet}", include_only=ids_where(document, keep))


def deck_views(document: Document) -> dict[str, View]:
    """Slide-deck views: text only, notes only, the deck without notes, rendered slides only."""
    notes = ids_where(document, GROUP_PREDICATES["no-notes"])
    slide_images = ids_where(document, lambda a: a.kind == "slide-render")
    return {
        "text-only": named_views(document)["text-only"],
        "notes-only": View("notes-only", include_only=notes),
        "no-notes": without("no-notes", notes),
        "image-only": View("image-only", include_only=slide_images),
    }


def shape_ids(document: Document, slide: int, shape_id: str) -> frozenset[str]:
    """Every artifact of one shape on one slide, the artifacts nested in or restating them
    (the rendered image of the slide, when there is one)."""
    prefix = f"slide {slide} / shape {shape_id} "
    found = {a.id for a in document.artifacts if a.locator.startswith(prefix)}
    by_id = {a.id: a for a in document.artifacts}
    pending = list(found)
    while pending:
        artifact = by_id[pending.pop()]
        related = PLACEHOLDER.findall(artifact.text) + artifact.facts.get("restated_by", [])
        for other in related:
            if other in by_id and other not in found:
                found.add(other)
                pending.append(other)
    return frozenset(found)


def without_shape(document: Document, slide: int, shape_id: str) -> View:
    """The deck without one shape of one slide (a text box, table, chart, picture…)."""
    return without(f"without-shape:{slide}/{shape_id}", shape_ids(document, slide, shape_id))


def no_context() -> ViewContext:
    return ViewContext(name="no-context", text="")
