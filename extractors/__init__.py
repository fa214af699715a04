"""Turn an Office file into a Document of artifacts: one extractor per application.

Every extractor answers `extract(source, context) -> Document` (extractors.base);
`extract` here picks the one that accepts the source and turns any failure into an
ExtractionError, so that a hostile or broken file skips only itself; running out of
memory stays a MemoryError (a fact about the limit, not the file).
"""

from __future__ import annotations

import importlib
from pathlib import Path

from extractors.base import ExtractContext, ExtractionError, Extractor, Source
from extractors.media import MediaWriter
from extractors.rendering import Renderers
from fidelity.core.apps import APPLICATIONS
from fidelity.core.document import Document
from fidelity.core.xmlsafe import out_of_memory

# The registry names each application's extractor module; it offers one EXTRACTOR.
EXTRACTORS: tuple[Extractor, ...] = tuple(
    importlib.import_module(app.extractor).EXTRACTOR for app in APPLICATIONS.values()
)

__all__ = ["ExtractContext", "ExtractionError", "Source", "extract", "extract_file"]


def extract(source: Source, context: ExtractContext) -> Document:
    """The document of `source` by the extractor that accepts it; notes go on the document."""
    extractor = next((e for e in EXTRACTORS if e.accepts(source)), None)
    if extractor is None:
        raise ExtractionError(f"no extractor for application {source.document.app!r}")
    try:
        document = extractor.extract(source, context)
    except ExtractionError:
        raise
    except Exception as error:  # a hostile or broken file must not stop the run
        if memory := out_of_memory(error):  # not the file's fault: the task fails, a rerun retries
            raise memory from error
        raise ExtractionError(f"{type(error).__name__}: {error}") from error
    document.notes.extend(context.notes)
    return document


def extract_file(
    path: Path,
    document: Document,
    media_dir: Path | None = None,
    renderers: Renderers | None = None,
) -> Document:
    """`extract` of the OOXML file at `path` into `document`; media under `media_dir` if given."""
    context = ExtractContext(media=MediaWriter(media_dir), renderers=renderers or Renderers())
    return extract(Source(path, document), context)
