"""Excel extractor: a workbook (.xlsx/.xlsm/.xltx, transitional or strict) into a Document.

The body is a leading sheet index, then one section per sheet whose content is a
sequence of placeholders ordered by position: table-like ranges, formal tables,
pivot tables and free-cell blocks (each cell with coordinates, displayed value and
formatting cues; formula cells are nested Formula artifacts whose fallback is the
cached value), charts, images and shapes at their anchor cell; then the sheet's
comments, hyperlinks, data validations and conditional formats; defined names last.
"""

from __future__ import annotations

import zipfile

from extractors.base import (
    ApplicationExtractor,
    ExtractContext,
    ExtractionError,
    Source,
    open_package,
)
from extractors.excel.builder import WorkbookBuilder
from extractors.excel.views import declare_views
from fidelity.core.document import Document
from fidelity.core.gc_pause import collector_paused
from fidelity.core.xmlsafe import UnsafePackage


class ExcelExtractor(ApplicationExtractor):
    """Excel workbooks (.xlsx, .xlsm, .xltx; older formats arrive converted by ingest)."""

    app = "excel"

    def extract(self, source: Source, context: ExtractContext) -> Document:
        """The document of the workbook (see the module docstring). The cyclic collector
        is paused meanwhile: its passes re-walked every cell, artifact and lxml element
        built so far (about a tenth of the time), and the extraction builds no cycles."""
        with collector_paused(), open_package(source.path, "workbook") as package:
            try:
                WorkbookBuilder(source.path, package, source.document, context).run()
            except (UnsafePackage, zipfile.BadZipFile) as error:
                raise ExtractionError(f"unreadable workbook: {error}") from error
        return declare_views(source.document)


EXTRACTOR = ExcelExtractor()
