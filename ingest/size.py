"""Size metadata with the paper's Small/Medium/Long buckets (fidelity.core.sizes).

Word is measured in pages (counted on a LibreOffice PDF rendering when one is
available, else docProps/app.xml, else estimated from the word count),
PowerPoint in slides, Excel in worksheets.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from fidelity.core.apps import APPLICATIONS
from fidelity.core.services import Converter
from fidelity.core.sizes import size_metadata
from ingest.probe import Probe
from ingest.uno_env import LibreOfficeUnavailable
from ingest.unoserver_pool import ConversionError

WORDS_PER_PAGE = 500
PAGES_COUNT = re.compile(
    rb"/Type\s*/Pages\b[^>]*?/Count\s+(\d+)|/Count\s+(\d+)[^>]*?/Type\s*/Pages\b"
)


def pdf_pages(pdf: bytes) -> int | None:
    """Page count of a PDF: the largest /Count of its page-tree nodes (the root's)."""
    counts = [int(a or b) for a, b in PAGES_COUNT.findall(pdf)]
    return max(counts) if counts else None


def measure(app: str, probe: Probe, ooxml: Path, converter: Converter | None) -> dict[str, Any]:
    """{"unit", "count", "source", "bucket"} for one file."""
    count: int | None
    counted = APPLICATIONS[app].size_count
    if counted is not None:
        feature, source = counted
        count = probe.features.get(feature)
    else:
        count, source = _rendered_pages(app, probe, ooxml, converter)
    return size_metadata(app, count, source)


def _rendered_pages(
    app: str, probe: Probe, ooxml: Path, converter: Converter | None
) -> tuple[int | None, str]:
    failure = ""
    if converter is not None:
        try:
            pages = pdf_pages(converter.to_pdf(ooxml, app))
        except (ConversionError, LibreOfficeUnavailable) as error:
            failure = f" (rendering failed: {error})"
        else:
            if pages:
                return pages, "rendered PDF"
    if probe.features.get("pages_app"):
        return probe.features["pages_app"], "docProps/app.xml" + failure
    words = len(probe.text.split())
    return max(1, -(-words // WORDS_PER_PAGE)), f"estimate ({WORDS_PER_PAGE} words/page)" + failure
