"""Document properties shared by every OOXML format: core, extended (app) and custom."""

from __future__ import annotations

from lxml import etree

from fidelity.core.document import Artifact
from fidelity.core.xmlsafe import Package

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
    for source, labels in (("core", CORE_LABELS), ("app", APP_LABELS)):
        root = package.xml(f"docProps/{source}.xml")
        for element in root if root is not None else []:
            key = etree.QName(element).localname
            value = " ".join((element.text or "").split())
            if key in labels and value:
                out.append((source, key, labels[key], value))
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
