"""Rendered slide images: a deck's PDF (hidden slides included) split into one PNG per slide.

The PDF comes from the converter the run installs with `powerpoint.set_pdf_renderer`
(LibreOffice through unoserver: `ingest.unoserver_pool.Converter.to_pdf(path,
"powerpoint")` exports with ExportHiddenSlides=true); this module only runs poppler's
pdftoppm on it. No converter means no images.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

DPI = 60
TIMEOUT_SECONDS = 120

PdfRenderer = Callable[[Path], bytes]


class RenderError(RuntimeError):
    """The PDF could not be split into slide images."""


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
