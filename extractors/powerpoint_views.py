"""PowerPoint-specific views: notes only, deck without notes, rendered slides only, and a
deck without one shape (its text, style, table, chart or picture and what they nest)."""

from __future__ import annotations

from extractors.views import PLACEHOLDER, View, ids_where, named_views, without
from fidelity.model import Document


def deck_views(document: Document) -> dict[str, View]:
    notes = ids_where(document, lambda a: a.category == "Slide Note")
    renders = ids_where(document, lambda a: a.kind == "slide-render")
    return {
        "text-only": named_views(document)["text-only"],
        "notes-only": View("notes-only", include_only=notes),
        "no-notes": without("no-notes", notes),
        "image-only": View("image-only", include_only=renders),
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
