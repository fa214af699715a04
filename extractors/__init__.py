"""Turn an Office file into a Document of artifacts: one extractor module per application."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING

from fidelity.core.apps import APPLICATIONS
from fidelity.core.document import Document

if TYPE_CHECKING:
    from extractors.rendering import Renderers


class ExtractionError(Exception):
    """A file that its extractor could not read, with a reason fit for skipped.jsonl."""


def extract(
    path: Path, document: Document, media_dir: Path, renderers: Renderers | None = None
) -> Document:
    """Fill `document` (sha256, app, format, source already set) from the OOXML file at `path`.

    Media files (images, rendered charts) are written under `media_dir`; artifact
    `media` paths are relative to the output folder that holds `media_dir`. Slide and
    chart images are rendered through `renderers` (none: no rendered images).
    """
    module = importlib.import_module(APPLICATIONS[document.app].extractor)
    try:
        return module.extract(path, document, media_dir, renderers)
    except ExtractionError:
        raise
    except Exception as error:  # a hostile or broken file must not stop the run
        raise ExtractionError(f"{type(error).__name__}: {error}") from error
