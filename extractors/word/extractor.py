"""Word extractor: a .docx (or .docm/.dotx) turned into a Document of artifacts.

The body comes from pandoc (word_body); everything pandoc drops or flattens comes
from the package XML: comments, notes, headers/footers, text boxes, video, charts
(word_parts), fonts, highlight, strikeout and layout (word_format), properties
(ooxml_props).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from extractors.artifacts import ArtifactMaker
from extractors.base import ApplicationExtractor, ExtractContext, ExtractionError, Source
from extractors.media import MediaWriter
from extractors.ooxml.chart import chart_text, parse_chart
from extractors.ooxml.props import metadata_artifacts, original_properties, properties
from extractors.part_guard import read_part
from extractors.word.body import NoteRef, convert
from extractors.word.format import (
    Styles,
    font_artifacts,
    layout_artifacts,
    mark_artifacts,
    read_paragraphs,
)
from extractors.word.index import DOCUMENT, BodyIndex
from extractors.word.pandoc_input import pandoc_copy
from extractors.word.pandoc_run import read_docx
from extractors.word.parts import (
    chart_parts,
    comments,
    headers_footers,
    note_refs,
    textboxes,
    videos,
)
from extractors.word.views import declare_views
from fidelity.core.document import Artifact, Document
from fidelity.core.gc_pause import collector_paused
from fidelity.core.hashing import IdMaker
from fidelity.core.locator import Locator
from fidelity.core.sizes import size_metadata
from fidelity.core.xmlsafe import Package


class WordExtractor(ApplicationExtractor):
    """Word files (.docx, .docm, .dotx; older formats arrive converted by ingest)."""

    app = "word"

    def extract(self, source: Source, context: ExtractContext) -> Document:
        """The document of the Word file (no page images: renderers are not used)."""
        document, media, ids = source.document, context.media, context.ids
        with collector_paused(), Package(source.path) as package:
            document_xml = _document_xml(package)
            with (
                pandoc_copy(package, document_xml) as copy,
                read_docx(copy, media.folder) as reading,
            ):
                # pandoc runs in its own process while the package XML is read here.
                found = _read_package(package, document_xml, media, ids, context.note)
                body = convert(reading.ast(), media, found.notes, found.box_paragraphs, ids)
        links = _hyperlinks(body.links, ArtifactMaker(ids))
        document.body = body.body
        document.artifacts = body.artifacts + found.boxes + links + found.parts
        document.size = size_metadata("word", found.pages, "docProps/app.xml")
        original_properties(document)  # a converted .doc: the original's dates and people
        return declare_views(document)


@dataclass
class PackageParts:
    """What the package XML adds to pandoc's body: text boxes (and their paragraphs' owner),
    note references, the other artifacts, and the declared page count."""

    boxes: list[Artifact]
    box_paragraphs: dict[str, str]
    notes: list[NoteRef]
    parts: list[Artifact]
    pages: int | None


def _document_xml(package: Package) -> bytes:
    if not package.has(DOCUMENT):
        raise ExtractionError("package has no word/document.xml")
    return package.read(DOCUMENT)


def _read_package(
    package: Package,
    document_xml: bytes,
    media: MediaWriter,
    ids: IdMaker,
    note: Callable[[str], None],
) -> PackageParts:
    """Everything the extractor takes from the package XML; each kind of artifact is read
    on its own (part_guard: an unexpected structure costs that kind, with a `note`). The
    parsed parts are freed on return, while pandoc still runs (for a large document that
    took 0.2 s, which would otherwise come after pandoc's renderings)."""
    index = BodyIndex.parse(package, document_xml)
    styles = Styles.load(package)
    boxes, box_paragraphs = textboxes(index, ids)
    notes = note_refs(package, index)
    paragraphs = read_paragraphs(index, styles)
    readers: dict[str, Callable[[], list[Artifact]]] = {
        "comments": lambda: comments(package, index),
        "headers and footers": lambda: headers_footers(package, index, media, ids),
        "videos": lambda: videos(index, ids),
        "charts": lambda: _charts(package, index),
        "fonts": lambda: font_artifacts(paragraphs, styles, ids),
        "highlights and strikethrough": lambda: mark_artifacts(paragraphs, ids),
        "layout": lambda: layout_artifacts(index, paragraphs, ids, styles),
        "document properties": lambda: metadata_artifacts(package),
    }
    nothing: list[Artifact] = []
    parts = [
        artifact
        for name, read in readers.items()
        for artifact in read_part(note, name, read, nothing)
    ]
    return PackageParts(boxes, box_paragraphs, notes, parts, _declared_pages(package))


def _declared_pages(package: Package) -> int | None:
    for source, key, _, value in properties(package):
        if source == "app" and key == "Pages" and value.isdigit():
            return int(value)
    return None


def _hyperlinks(links: list[tuple[str, str]], maker: ArtifactMaker) -> list[Artifact]:
    artifacts = []
    for text, target in dict.fromkeys(links):
        if not target or not text:
            continue
        internal = target.startswith("#")
        destination = f"bookmark {target[1:]}" if internal else target
        artifacts.append(
            maker.make(
                "link",
                (text, target),
                placed=False,
                category="Hyperlink",
                kind="hyperlink",
                modality="element",
                where=Locator(element="link", quoted=text),
                text=f"Hyperlink “{text}” → {destination}",
                facts={"text": text, "target": target, "internal": internal},
                group="Hyperlinks",
            )
        )
    return artifacts


def _charts(package: Package, index: BodyIndex) -> list[Artifact]:
    artifacts = []
    for number, part in enumerate(chart_parts(index), start=1):
        try:
            facts = parse_chart(package, part)
        except (KeyError, ValueError) as error:
            facts = {"part": part, "note": f"unreadable chart: {error}"}
        artifacts.append(
            Artifact(
                id=f"chart-{part.rsplit('/', 1)[-1][:-4]}",
                category="Chart",
                kind="chart",
                modality="visual",
                where=Locator(element=f"chart {number} of the document"),
                text=f"[Chart {number}]\n{chart_text(facts)}",
                facts=facts,
                group="Charts",
            )
        )
    return artifacts


EXTRACTOR = WordExtractor()
