"""The views that leave out or show each Excel artifact, declared at extraction, and the
workbook's own views of one sheet."""

from __future__ import annotations

from fidelity.core.document import Artifact, Document
from fidelity.core.views import View, ids_where

# The kinds of artifact the Excel extractor makes.
KINDS = frozenset(
    {
        "sheet",
        "cells",
        "table",
        "tlr",
        "formula",
        "defined-name",
        "pivot",
        "chart",
        "image",
        "shape",
        "comment",
        "hyperlink",
        "conditional-format",
        "data-validation",
        "metadata",
    }
)
# The view where every formula cell shows its cached value instead (its `fallback`).
VALUES_ONLY = "values-only"


def removed_by(artifact: Artifact) -> list[str]:
    """The ablation groups of an Excel artifact: a picture (any visual but a chart) is left
    out with the other pictures, a comment with the comments, a formula by its value."""
    if artifact.modality == "visual":
        return [] if artifact.category == "Chart" else ["no-images"]
    if artifact.kind == "comment":
        return ["no-comments"]
    return [VALUES_ONLY] if artifact.category == "Formula" else []


def declare_views(document: Document) -> Document:
    """`document` with the views of each of its artifacts declared."""
    for artifact in document.artifacts:
        artifact.removed_by = removed_by(artifact)
    return document


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
