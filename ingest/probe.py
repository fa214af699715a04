"""A fast look inside an OOXML package before extraction: text, categories, quality signals.

Curation and ranking need, for every file of the corpus, its text (language,
near-duplicates, near-empty), how many elements of each taxonomy category it
holds (what questions it could support) and a few structure signals; reading
the XML directly gives that in milliseconds per file, independently of the
extractors. The per-application work is in probe_word / probe_excel /
probe_powerpoint (each has `fill(package, probe, metadata)`); this module holds
what they share.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from lxml import etree

from fidelity.core.xmlsafe import Package

MC = "http://schemas.openxmlformats.org/markup-compatibility/2006"
REL_OFFICE_DOCUMENT = "officeDocument"
CORE = "docProps/core.xml"
CUSTOM = "docProps/custom.xml"
APP = "docProps/app.xml"
CORE_FIELDS = (
    "title",
    "subject",
    "creator",
    "keywords",
    "description",
    "lastModifiedBy",
    "category",
)
MAX_TEXT_CHARS = 200_000

# Prompt text that templates leave for the author to replace.
PLACEHOLDER = re.compile(
    r"^(click|tap)( or tap)?( here)? to (enter|add|edit|type|insert|select|choose)\b"
    r"|^\[[^\]]{1,80}\]$"
    r"|\blorem ipsum\b"
    r"|^(type|insert|enter|add) (your|the|a) [\w ]{1,30}here\b"
    r"|^(your name|company name|street address|city, st zip( code)?|title|subtitle|date)$",
    re.IGNORECASE,
)


@dataclass
class Probe:
    """What curation and ranking know about one OOXML file."""

    app: str
    text: str = ""
    categories: dict[str, int] = field(default_factory=dict)
    features: dict[str, Any] = field(default_factory=dict)
    placeholder_chars: int = 0
    content_chars: int = 0

    @property
    def placeholder_fraction(self) -> float:
        return self.placeholder_chars / self.content_chars if self.content_chars else 0.0

    def add_line(self, line: str) -> None:
        """Count a unit of content (a paragraph, a cell row, a shape's text) and keep it."""
        stripped = line.strip()
        if not stripped:
            return
        plain = stripped.lstrip("#| ").strip()
        self.content_chars += len(plain)
        if PLACEHOLDER.search(plain):
            self.placeholder_chars += len(plain)
        if len(self.text) < MAX_TEXT_CHARS:
            self.text += stripped + "\n"


def load(package: Package, name: str) -> etree._Element | None:
    """Parse a part (None when absent) with mc:Fallback branches removed, so content that
    Office writes twice (modern markup plus a legacy fallback) is seen once."""
    root = package.xml(name)
    if root is None:
        return None
    for fallback in list(root.iter(f"{{{MC}}}Fallback")):
        parent = fallback.getparent()
        if parent is not None:
            parent.remove(fallback)
    return root


def main_part(package: Package, default: str) -> str:
    """The package's main part, from its root relationships."""
    for kind, target, _ in package.rels("").values():
        if kind == REL_OFFICE_DOCUMENT:
            return Package.resolve("", target)
    return default


def local(element: etree._Element) -> str:
    tag = element.tag
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def metadata(package: Package) -> tuple[int, dict[str, str]]:
    """(number of non-empty metadata fields incl. custom properties, core + app values)."""
    values: dict[str, str] = {}
    core = package.xml(CORE) if package.has(CORE) else None
    if core is not None:
        for child in core:
            name = local(child)
            text = (child.text or "").strip()
            if name in CORE_FIELDS and text:
                values[name] = text
    count = len(values)
    custom = package.xml(CUSTOM) if package.has(CUSTOM) else None
    if custom is not None:
        count += len(custom)
    app = package.xml(APP) if package.has(APP) else None
    if app is not None:
        for child in app:
            if local(child) in {"Application", "Pages", "Words", "Slides"}:
                values["app." + local(child)] = (child.text or "").strip()
    return count, values


def parts(package: Package, pattern: str) -> list[str]:
    """Package parts whose names match a regular expression, in natural order."""
    regex = re.compile(pattern)
    found = [name for name in package.names if regex.fullmatch(name)]
    return sorted(
        found, key=lambda n: [int(x) if x.isdigit() else x for x in re.split(r"(\d+)", n)]
    )
