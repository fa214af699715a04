"""Which views a candidate must fail to be answerable from, by the target's modality.

text chunk -> document minus the chunk; table -> every table but the target, and
text only; image -> the document with its pictures removed and nothing else (a table
that restates a picture still counts); chart -> text only, and minus the chart's
metadata;
app-specific element -> minus the element, and minus its whole category group.
"""

from __future__ import annotations

from fidelity.core.document import Artifact, Document
from fidelity.core.views import GROUP_PREDICATES, View, ids_where, named_views


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
    for name, predicate in GROUP_PREDICATES.items():
        if predicate(artifact):
            out.append(View(name, exclude=ids_where(document, predicate) | target))
    return out
