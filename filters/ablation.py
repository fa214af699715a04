"""Which views a candidate must fail to be answerable from, by the target's modality.

text chunk -> document minus the chunk; table -> every table but the target, and
text only; image -> the document with its pictures removed and nothing else (a table
that restates a picture still counts); chart -> text only, and minus the chart's
metadata;
app-specific element -> minus the element, and minus its whole category group.
"""

from __future__ import annotations

from collections.abc import Callable

from extractors.views import (
    FORMATTING_CATEGORIES,
    HEADER_FOOTER_CATEGORIES,
    View,
    ids_where,
    named_views,
)
from fidelity.model import Artifact, Document

GROUP_VIEWS: dict[str, Callable[[Artifact], bool]] = {
    "no-headers-footers": lambda a: a.category in HEADER_FOOTER_CATEGORIES,
    "no-formatting": lambda a: a.category in FORMATTING_CATEGORIES,
    "no-metadata": lambda a: a.category == "Metadata",
    "no-comments": lambda a: a.kind in ("comment", "comment-reply"),
    "no-notes": lambda a: a.category == "Slide Note",
    "values-only": lambda a: a.category == "Formula",
}


def target_ids(document: Document, artifact: Artifact) -> frozenset[str]:
    """The artifact plus any artifacts that restate it (declared in facts['restated_by'])."""
    related = artifact.facts.get("restated_by", [])
    return frozenset([artifact.id, *related])


def ablation_views(document: Document, artifact: Artifact) -> list[View]:
    target = target_ids(document, artifact)
    without_target = View(f"without:{artifact.id}", exclude=target)
    views = named_views(document)
    if artifact.modality == "text":
        return [without_target]
    if artifact.modality == "table":
        return [View(f"tables-except:{artifact.id}", exclude=target), views["text-only"]]
    if artifact.modality == "visual":
        if artifact.category == "Chart":
            return [views["text-only"], without_target]
        pictures = ids_where(document, lambda a: a.modality == "visual" and a.category != "Chart")
        return [View("no-images", exclude=pictures | target)]
    out = [without_target]
    for name, predicate in GROUP_VIEWS.items():
        if predicate(artifact):
            out.append(View(name, exclude=ids_where(document, predicate) | target))
    return out
