"""Rendered slide images: PDF pages to PNGs, the renderer hook, LibreOffice with hidden slides."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from PIL import Image

from extractors import extract_file
from extractors.rendering import PdfRenderer, Renderers, pdf_to_pngs
from fidelity.core.document import Document
from fidelity.core.views import named_views, shown_by, view_context
from filters.ablation import ablation_views
from tests.support.soffice import soffice_pdf

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "garden_review.pptx"
needs_poppler = pytest.mark.needs("poppler")


def pdf(pages: int) -> bytes:
    images = [Image.new("RGB", (720, 540), (20 * i, 100, 200)) for i in range(pages)]
    data = io.BytesIO()
    images[0].save(data, format="PDF", save_all=True, append_images=images[1:])
    return data.getvalue()


def load(media: Path, slides: PdfRenderer | None = None) -> Document:
    document = Document(sha256="3" * 64, app="powerpoint", format="pptx", source=str(FIXTURE))
    return extract_file(FIXTURE, document, media, Renderers(slides=slides))


@needs_poppler
def test_pdf_pages_become_ordered_pngs(tmp_path: Path) -> None:
    pngs = pdf_to_pngs(pdf(12), tmp_path / "out", "slide")
    assert [p.name for p in pngs][:2] == ["slide-001.png", "slide-002.png"]
    assert len(pngs) == 12
    with Image.open(pngs[0]) as image:
        assert image.size == (600, 450)
    for index in (1, 11):
        with Image.open(pngs[index]) as image:
            assert abs(image.getpixel((10, 10))[0] - 20 * index) <= 8


@needs_poppler
def test_renderer_adds_slide_images_restated_by_slide_content(tmp_path: Path) -> None:
    seen: list[Path] = []

    def fake(path: Path) -> bytes:
        seen.append(path)
        return pdf(7)

    document = load(tmp_path / "media" / "deck", fake)
    assert seen == [FIXTURE]
    renders = [a for a in document.artifacts if a.kind == "slide-render"]
    assert len(renders) == 7 and all(a.modality == "visual" for a in renders)
    for artifact in renders:
        assert (tmp_path / artifact.media).is_file()
    assert document.body.index(renders[3].placeholder) > document.body.index("## Slide 4")
    chart = next(a for a in document.artifacts if a.kind == "chart")
    assert chart.facts["restated_by"] == [renders[3].id]
    image_only = view_context(document, shown_by(document, "image-only"))
    assert image_only.images == [a.media for a in renders]
    assert view_context(document, named_views(document)["text-only"]).images == []
    style = next(a for a in document.artifacts if a.kind == "shape-style")
    views = ablation_views(document, style)
    assert renders[4].id in views[0].exclude


@needs_poppler
def test_page_count_mismatch_or_failure_leaves_no_images(tmp_path: Path) -> None:
    document = load(tmp_path / "a", lambda path: pdf(5))
    assert not [a for a in document.artifacts if a.kind == "slide-render"]
    assert any("5 pages for 7 slides" in note for note in document.notes)

    def broken(path: Path) -> bytes:
        raise ConnectionRefusedError("no unoserver")

    document = load(tmp_path / "b", broken)
    assert any("ConnectionRefusedError" in note for note in document.notes)
    assert document.artifacts


@pytest.mark.needs("libreoffice", "poppler")
def test_libreoffice_export_keeps_hidden_slides(tmp_path: Path) -> None:
    options = json.dumps({"ExportHiddenSlides": {"type": "boolean", "value": "true"}})
    pdf = soffice_pdf(FIXTURE, tmp_path, f"pdf:impress_pdf_Export:{options}", timeout=120)
    pngs = pdf_to_pngs(pdf, tmp_path / "png", "slide")
    assert len(pngs) == 7
