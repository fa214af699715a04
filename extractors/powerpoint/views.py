"""The views that leave out or show each PowerPoint artifact, declared at extraction, and
the deck's own view without one shape."""

from __future__ import annotations

from extractors.powerpoint.build import CATEGORY_OF_KIND
from fidelity.core.document import Artifact, Document
from fidelity.core.views import PLACEHOLDER, View, without

# The kinds of artifact the PowerPoint extractor makes (its document properties too).
KINDS = frozenset({*CATEGORY_OF_KIND, "metadata"})
# Ablation groups by category: the view that leaves out every artifact of the group.
GROUP_OF_CATEGORY = {
    "Header/Footer/SlideNum/DateTime": "no-headers-footers",
    "Text Highlight": "no-formatting",
    "Metadata": "no-metadata",
    "Slide Note": "no-notes",
}
# The view of the speaker notes alone, from which a note's question must be answerable.
NOTES_ONLY = "notes-only"
# Categories whose questions must be answerable from the rendered image of their slide.
SEEN_ON_THE_SLIDE = frozenset(
    {"Position/Association/Grouping", "Shapes/Type & Color", "Tables/Cell color coding"}
)
SLIDE_RENDER = "slide-render"
# Categories whose questions ask an element's property, not content it states.
PROPERTY_CATEGORIES = SEEN_ON_THE_SLIDE | {
    "Text Highlight",
    "Animations",
    "Language",
    "Slide Properties - Hidden",
}
IMAGE_ONLY = "image-only"


def slide_image(slide: int) -> str:
    """The view of one slide's rendered image alone."""
    return f"slide-image:{slide}"


def declare(artifact: Artifact) -> None:
    """The views of one artifact: its ablation group (a picture, any visual but a chart,
    goes with the other pictures), the notes-only view of a note, the rendered image of
    a slide that shows a layout, grouping or colour question's answer; whether its
    questions ask a property."""
    slide = artifact.facts.get("slide")
    artifact.about_property = artifact.category in PROPERTY_CATEGORIES
    if artifact.modality == "visual":
        artifact.removed_by = [] if artifact.category == "Chart" else ["no-images"]
    elif group := GROUP_OF_CATEGORY.get(artifact.category):
        artifact.removed_by = [group]
    if artifact.category == "Slide Note":
        artifact.shown_by = [NOTES_ONLY]
        artifact.answerable_from = [NOTES_ONLY]
    if artifact.kind == SLIDE_RENDER:
        artifact.shown_by = [IMAGE_ONLY, *([slide_image(slide)] if isinstance(slide, int) else [])]
    if artifact.category in SEEN_ON_THE_SLIDE and isinstance(slide, int):
        artifact.answerable_from = [slide_image(slide)]


def declare_views(document: Document) -> Document:
    """`document` with the views of each of its artifacts declared."""
    for artifact in document.artifacts:
        declare(artifact)
    return document


def shape_ids(document: Document, slide: int, shape_id: str) -> frozenset[str]:
    """Every artifact of one shape on one slide, the artifacts nested in or restating them
    (the rendered image of the slide, when there is one)."""
    found = {
        a.id
        for a in document.artifacts
        if a.where.slide == slide and a.where.shape is not None and a.where.shape.id == shape_id
    }
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
