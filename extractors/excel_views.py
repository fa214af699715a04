"""Excel-specific views: formulas replaced by their values, one sheet with the others stripped."""

from __future__ import annotations

from extractors.views import View, ids_where
from fidelity.model import Document


def values_only(document: Document) -> View:
    """Every Formula artifact excluded: each formula cell shows its cached value instead."""
    return View("values-only", exclude=ids_where(document, lambda a: a.category == "Formula"))


def sheet_only(document: Document, sheet: str) -> View:
    """Only the artifacts of `sheet` (its index entry, cells and objects); other sheets stripped.

    Workbook-level artifacts (defined names) are kept when they point into the sheet.
    """

    def keep(artifact) -> bool:
        owner = artifact.facts.get("sheet")
        if owner is not None:
            return owner == sheet
        refers = str(artifact.facts.get("refers_to", ""))
        return f"{sheet}!" in refers.replace("'", "")

    return View(f"sheet-only:{sheet}", include_only=ids_where(document, keep))


def excel_views(document: Document) -> dict[str, View]:
    """The Excel views beyond the generic ones: values-only and one sheet-only view per sheet."""
    views = {"values-only": values_only(document)}
    for artifact in document.artifacts:
        if artifact.kind == "sheet":
            view = sheet_only(document, artifact.facts["name"])
            views[view.name] = view
    return views
