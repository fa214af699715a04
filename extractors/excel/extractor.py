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

from extractors.base import ExtractContext, ExtractionError, Source
from extractors.excel.builder import WorkbookBuilder
from fidelity.core.document import Document
from fidelity.core.xmlsafe import Package, UnsafePackage


class ExcelExtractor:
    """Excel workbooks (.xlsx, .xlsm, .xltx; older formats arrive converted by ingest)."""

    app = "excel"

    def accepts(self, source: Source) -> bool:
        return source.document.app == self.app

    def extract(self, source: Source, context: ExtractContext) -> Document:
        """The document of the workbook (see the module docstring)."""
        try:
            package = Package(source.path)
        except (zipfile.BadZipFile, UnsafePackage, OSError) as error:
            raise ExtractionError(f"not a readable workbook package: {error}") from error
        with package:
            try:
                WorkbookBuilder(source.path, package, source.document, context).run()
            except (UnsafePackage, zipfile.BadZipFile) as error:
                raise ExtractionError(f"unreadable workbook: {error}") from error
        return source.document


EXTRACTOR = ExcelExtractor()
