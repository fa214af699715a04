"""Document properties shared by every OOXML format: core, extended (app) and custom."""

from __future__ import annotations

import datetime
import struct
from pathlib import Path

import olefile
from lxml import etree

from fidelity.core.document import Artifact, Document
from fidelity.core.locator import Locator
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
                where=Locator(part=f"docProps/{source}.xml", key=key),
                text=f"Document property {prefix}'{label}': {value}",
                facts={"source": source, "key": key, "label": label, "value": value},
                group="Document properties",
            )
        )
    return artifacts


# Core and extended properties as a legacy (OLE) file's summary information holds them.
LEGACY_FIELDS = {
    "title": "title",
    "subject": "subject",
    "creator": "author",
    "keywords": "keywords",
    "description": "comments",
    "lastModifiedBy": "last_saved_by",
    "created": "create_time",
    "modified": "last_saved_time",
    "category": "category",
    "Company": "company",
    "Manager": "manager",
}
EARLIEST = datetime.datetime(1980, 1, 1)


def legacy_properties(path: Path) -> dict[str, str] | None:
    """The summary information of a legacy .doc, .xls or .ppt file ({} when it has none),
    or None when the file is not an OLE file or cannot be read."""
    try:
        if not olefile.isOleFile(str(path)):
            return None
        with olefile.OleFileIO(str(path)) as ole:
            meta = ole.get_metadata()
    except (OSError, ValueError, RuntimeError, struct.error, IndexError, KeyError, TypeError):
        return None  # a damaged or hostile OLE file: its properties are not read
    out = {}
    for key, field in LEGACY_FIELDS.items():
        value = getattr(meta, field, None)
        if isinstance(value, datetime.datetime):
            value = value.strftime("%Y-%m-%dT%H:%M:%SZ") if value >= EARLIEST else None
        elif isinstance(value, bytes):
            value = value.decode("cp1252", "replace").rstrip("\x00")
        text = " ".join(str(value or "").split())
        if text:
            out[key] = text
    return out


def original_properties(document: Document, category: str = "Metadata") -> None:
    """Properties of a converted legacy file as the original holds them: the conversion
    writes its own creation and modification times (different on every build) and its own
    author, so each converted property is replaced by the original's value, or left out
    when the original does not have it."""
    if not document.converted_from:
        return
    # An original that cannot be read gives nothing: the conversion's values are not asked.
    original = legacy_properties(Path(document.source)) or {}
    kept, seen = [], set()
    for artifact in document.artifacts:
        facts = artifact.facts
        key = facts.get("key")
        if artifact.kind == "metadata" and facts.get("source") != "custom" and key in LEGACY_FIELDS:
            seen.add(key)
            if key not in original:
                continue
            value = original[key]
            artifact.facts = {**facts, "value": value, "converted_from": document.converted_from}
            artifact.text = f"Document property '{facts['label']}': {value}"
        kept.append(artifact)
    for key, value in original.items():  # what the conversion left out (an empty author)
        if key not in seen:
            source = "app" if key in APP_LABELS else "core"
            label = APP_LABELS.get(key) or CORE_LABELS[key]
            kept.append(
                Artifact(
                    id=f"meta-{source}-{key}",
                    category=category,
                    kind="metadata",
                    modality="element",
                    where=Locator(
                        part=f"docProps/{source}.xml", key=key, element="(the original's)"
                    ),
                    text=f"Document property '{label}': {value}",
                    facts={
                        "source": source,
                        "key": key,
                        "label": label,
                        "value": value,
                        "converted_from": document.converted_from,
                    },
                    group="Document properties",
                )
            )
    document.artifacts = kept
