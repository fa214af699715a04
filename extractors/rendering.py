"""Rendered images for the extractors: PDF pages to PNG with poppler's pdftoppm.

The PDFs come from a converter (LibreOffice through unoserver,
`ingest.unoserver_pool.Converter.to_pdf`, or the driver's converter seen from a
worker) that `Renderers.through(converter)` wraps for extraction: slide images
(decks with hidden slides: ExportHiddenSlides=true) and chart images (one page per
sheet: SinglePageSheets=true). No converter means no images; the facts extracted
from the XML stay.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from fidelity.core.xmlsafe import Package

DPI = 60
TIMEOUT_SECONDS = 120

PdfRenderer = Callable[[Path], bytes]
ToPdf = Callable[[Path, str], bytes]
# Renders one chart to a PNG (workbook path, sheet name, chart facts, media dir).
ChartRenderer = Callable[[Path, str, dict[str, Any], Path], Path | None]


class PdfConverter(Protocol):
    """What rendering needs of a converter (a local pool or a worker's remote one)."""

    @property
    def available(self) -> bool: ...

    def to_pdf(self, source: bytes | Path, app: str) -> bytes: ...


@dataclass
class Renderers:
    """How extraction renders images: decks to PDF (slides), sheets to pages (charts)."""

    slides: PdfRenderer | None = None
    charts: ChartRenderer | None = None

    @classmethod
    def through(cls, converter: PdfConverter | None) -> Renderers:
        """Slide and chart images through `converter` (none when it is missing or cannot run)."""
        if converter is None or not converter.available:
            return cls()
        return cls(
            slides=lambda path: converter.to_pdf(path, "powerpoint"),
            charts=SheetPageRenderer(converter.to_pdf),
        )


class RenderError(RuntimeError):
    """The PDF could not be split into page images."""


def pdf_to_pngs(pdf: bytes | Path, out_dir: Path, prefix: str, dpi: int = DPI) -> list[Path]:
    """One PNG per PDF page, in page order, written to `out_dir` as `<prefix>-NNN.png`."""
    if shutil.which("pdftoppm") is None:
        raise RenderError("pdftoppm (poppler-utils) is not installed")
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        source = work / "deck.pdf"
        if isinstance(pdf, Path):
            shutil.copyfile(pdf, source)
        else:
            source.write_bytes(pdf)
        try:
            subprocess.run(
                ["pdftoppm", "-png", "-r", str(dpi), str(source), str(work / "page")],
                check=True,
                capture_output=True,
                timeout=TIMEOUT_SECONDS,
            )
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as error:
            raise RenderError(f"pdftoppm failed: {error}") from error
        pages = sorted(work.glob("page-*.png"), key=_page_number)
        out = []
        for number, page in enumerate(pages, start=1):
            target = out_dir / f"{prefix}-{number:03d}.png"
            shutil.move(page, target)
            out.append(target)
        return out


def _page_number(path: Path) -> int:
    match = re.search(r"-(\d+)\.png$", path.name)
    return int(match.group(1)) if match else 0


class SheetPageRenderer:
    """A chart's image: the rendered page of the sheet it sits on (one PDF per workbook)."""

    def __init__(self, to_pdf: ToPdf) -> None:
        self.to_pdf = to_pdf
        self.pages: dict[Path, dict[str, Path]] = {}

    def __call__(self, path: Path, sheet: str, facts: dict, media_dir: Path) -> Path | None:
        if path not in self.pages:
            self.pages[path] = self._render(path, media_dir)
        return self.pages[path].get(sheet)

    def _render(self, path: Path, media_dir: Path) -> dict[str, Path]:
        pngs = pdf_to_pngs(self.to_pdf(path, "excel"), media_dir, "sheet")
        sheets = _sheets(path)
        for names in (
            [name for name, _ in sheets],
            [n for n, state in sheets if state == "visible"],
        ):
            if len(names) == len(pngs):
                return dict(zip(names, pngs, strict=True))
        raise RenderError(f"{len(pngs)} pages for {len(sheets)} sheets: cannot tell them apart")


def _sheets(path: Path) -> list[tuple[str, str]]:
    """(name, state) of each sheet in tab order."""
    with Package(path) as package:
        workbook = package.xml("xl/workbook.xml")
    if workbook is None:
        return []
    return [
        (sheet.get("name", ""), sheet.get("state", "visible"))
        for sheet in workbook.iter("{*}sheet")
    ]
