"""Document properties shared by every OOXML format: core, extended (app) and custom."""

from __future__ import annotations

from lxml import etree

from fidelity.model import Artifact
from fidelity.xmlsafe import Package

CORE_LABELS = {
    "title": "Title",
    "subject": "Subject",
    "creator": "Author",
    "keywords": "Keywords",
    "description": "Description",
    "lastModifiedBy": "Last modified by",
    "revision": "Revision",
    "created": "Created",
    "modified": "Modified",
    "category": "Category",
    "contentStatus": "Content status",
    "language": "Language",
    "lastPrinted": "Last printed",
}
APP_LABELS = {
    "Application": "Application",
    "AppVersion": "Application version",
    "Company": "Company",
    "Manager": "Manager",
    "Template": "Template",
    "Pages": "Pages",
    "Words": "Words",
    "Slides": "Slides",
    "Notes": "Notes",
    "HiddenSlides": "Hidden slides",
    "TotalTime": "Total editing time (minutes)",
    "PresentationFormat": "Presentation format",
}


def properties(package: Package) -> list[tuple[str, str, str, str]]:
    """(source, key, label, value) for every non-empty property, in a stable order."""
    out: list[tuple[str, str, str, str]] = []
    core = package.xml("docProps/core.xml")
    if core is not None:
        for element in core:
            key = etree.QName(element).localname
            value = " ".join((element.text or "").split())
            if key in CORE_LABELS and value:
                out.append(("core", key, CORE_LABELS[key], value))
    app = package.xml("docProps/app.xml")
    if app is not None:
        for element in app:
            key = etree.QName(element).localname
            value = " ".join((element.text or "").split())
            if key in APP_LABELS and value:
                out.append(("app", key, APP_LABELS[key], value))
    custom = package.xml("docProps/custom.xml")
    if custom is not None:
        for prop in custom:
            name = prop.get("name")
            value = " ".join("".join(prop.itertext()).split())
            if name and value:
                out.append(("custom", name, name, value))
    return out


def metadata_artifacts(package: Package, category: str = "Metadata") -> list[Artifact]:
    """One artifact per property, so a question about one property can ablate exactly it."""
    artifacts = []
    for source, key, label, value in properties(package):
        prefix = "custom property " if source == "custom" else ""
        artifacts.append(
            Artifact(
                id=f"meta-{source}-{key}".replace(" ", "_"),
                category=category,
                kind="metadata",
                modality="element",
                locator=f"docProps/{source}.xml {key}",
                text=f"Document property {prefix}'{label}': {value}",
                facts={"source": source, "key": key, "label": label, "value": value},
                group="Document properties",
            )
        )
    return artifacts
