"""The extractor interface: `extract(source, context) -> Document`, one per application."""

from __future__ import annotations

import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from extractors.media import MediaWriter
from extractors.rendering import Renderers
from fidelity.core.document import Document
from fidelity.core.hashing import IdMaker
from fidelity.core.xmlsafe import Package, UnsafePackage


class ExtractionError(Exception):
    """A file that its extractor could not read, with a reason fit for skipped.jsonl."""


@dataclass
class Source:
    """The OOXML file to read (`path`) and the document it becomes (identity and notes set)."""

    path: Path
    document: Document


@dataclass
class ExtractContext:
    """What an extraction uses besides its file: ids, the media writer, renderers, notes."""

    media: MediaWriter = field(default_factory=lambda: MediaWriter(None))
    renderers: Renderers = field(default_factory=Renderers)
    ids: IdMaker = field(default_factory=IdMaker)
    notes: list[str] = field(default_factory=list)

    def note(self, text: str) -> None:
        """A remark about the file that does not stop its extraction."""
        self.notes.append(text)


class Extractor(Protocol):
    """One application's extractor (the one converter per format of MarkItDown's design)."""

    app: str

    def accepts(self, source: Source) -> bool: ...

    def extract(self, source: Source, context: ExtractContext) -> Document: ...


class ApplicationExtractor:
    """What the extractors share: each accepts the documents of its own application."""

    app = ""

    def accepts(self, source: Source) -> bool:
        return source.document.app == self.app


def open_package(path: Path, what: str) -> Package:
    """The OOXML package at `path`; one that cannot be opened is an ExtractionError."""
    try:
        return Package(path)
    except (zipfile.BadZipFile, UnsafePackage, OSError) as error:
        raise ExtractionError(f"not a readable {what} package: {error}") from error
