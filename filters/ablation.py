"""Which views a candidate must fail to be answerable from, by the target's modality.

text chunk -> document minus the chunk; table -> every table but the target, and
text only; picture (a visual artifact in an ablation group: "no-images") -> the
document with its pictures removed and nothing else (a table that restates a picture
still counts); any other visual (a chart) -> text only, and minus the chart's metadata;
app-specific element -> minus the element, and minus each ablation group it declares.
The groups are declared on the artifacts by their extractors (`Artifact.removed_by`).
"""

from __future__ import annotations

from fidelity.core.document import Artifact, Document
from fidelity.core.views import View, named_views, removed_by


def target_ids(document: Document, artifact: Artifact) -> frozenset[str]:
    """The artifact plus any artifacts that restate it (declared in facts['restated_by'])."""
    related = artifact.facts.get("restated_by", [])
    return frozenset([artifact.id, *related])


def group_views(document: Document, artifact: Artifact, target: frozenset[str]) -> list[View]:
    """One view per ablation group of `artifact`, each without the group and the target."""
    return [View(name, exclude=removed_by(document, name) | target) for name in artifact.removed_by]


def ablation_views(document: Document, artifact: Artifact) -> list[View]:
    target = target_ids(document, artifact)
    without_target = View(f"without:{artifact.id}", exclude=target)
    if artifact.modality == "text":
        return [without_target]
    text_only = named_views(document)["text-only"]
    if artifact.modality == "table":
        return [View(f"tables-except:{artifact.id}", exclude=target), text_only]
    if artifact.modality == "visual":
        return group_views(document, artifact, target) or [text_only, without_target]
    return [without_target, *group_views(document, artifact, target)]
