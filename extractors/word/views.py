"""The views that leave out or show each Word artifact, declared at extraction."""

from __future__ import annotations

from fidelity.core.document import Artifact, Document

# The kinds of artifact the Word extractor makes.
KINDS = frozenset(
    {
        "text",
        "table",
        "image",
        "chart",
        "video",
        "equation",
        "hyperlink",
        "textbox",
        "comment",
        "comment-reply",
        "footnote",
        "endnote",
        "header",
        "footer",
        "font-body",
        "font-heading",
        "font-span",
        "highlight",
        "strikeout",
        "layout-paragraph",
        "layout-section",
        "metadata",
    }
)
# Ablation groups by category: the view that leaves out every artifact of the group.
GROUP_OF_CATEGORY = {
    "Header": "no-headers-footers",
    "Footer": "no-headers-footers",
    "Font": "no-formatting",
    "Highlight": "no-formatting",
    "Strikeout": "no-formatting",
    "Layout": "no-formatting",
    "Metadata": "no-metadata",
}
COMMENT_KINDS = ("comment", "comment-reply")
# Categories whose questions ask an element's property, not content it states.
PROPERTY_CATEGORIES = frozenset({"Font", "Highlight", "Strikeout", "Layout"})


def removed_by(artifact: Artifact) -> list[str]:
    """The ablation groups of a Word artifact: a picture (any visual but a chart) is left
    out with the other pictures, a comment with the comments, the rest by category."""
    if artifact.modality == "visual":
        return [] if artifact.category == "Chart" else ["no-images"]
    group = GROUP_OF_CATEGORY.get(artifact.category)
    return [group] if group else ["no-comments"] if artifact.kind in COMMENT_KINDS else []


def declare_views(document: Document) -> Document:
    """`document` with the views of each of its artifacts declared."""
    for artifact in document.artifacts:
        artifact.removed_by = removed_by(artifact)
        artifact.about_property = artifact.category in PROPERTY_CATEGORIES
    return document
