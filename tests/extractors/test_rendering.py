"""Chart images: a workbook rendered one page per sheet by LibreOffice, attached to charts."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image

from extractors import extract_file as extract
from extractors.rendering import RenderError, Renderers, SheetPageRenderer
from fidelity.core.document import Document
from fidelity.core.hashing import file_sha256
from ingest.unoserver_pool import shared_converter

WORKBOOK = Path(__file__).resolve().parents[2] / "fixtures" / "regional_sales.xlsx"


@pytest.fixture
def chart_images() -> SheetPageRenderer:
    converter = shared_converter()
    assert converter.available, converter.unavailable_reason
    return SheetPageRenderer(converter.to_pdf)


def test_each_sheet_gets_its_page(chart_images: SheetPageRenderer, tmp_path: Path) -> None:
    sales = chart_images(WORKBOOK, "Sales", {}, tmp_path / "media" / "wb")
    staff = chart_images(WORKBOOK, "Staff", {}, tmp_path / "media" / "wb")
    assert sales and staff and sales != staff
    with Image.open(sales) as image:
        assert image.format == "PNG" and image.width > 200


def test_chart_artifacts_carry_the_rendered_image(
    chart_images: SheetPageRenderer, tmp_path: Path
) -> None:
    document = Document(
        sha256=file_sha256(WORKBOOK), app="excel", format="xlsx", source=str(WORKBOOK)
    )
    document = extract(
        WORKBOOK, document, tmp_path / "media" / "wb", Renderers(charts=chart_images)
    )
    charts = [a for a in document.artifacts if a.category == "Chart"]
    assert charts
    for chart in charts:
        assert chart.media and (tmp_path / chart.media).is_file()


def test_unmatched_page_count_is_an_error(tmp_path: Path) -> None:
    page = io.BytesIO()
    Image.new("RGB", (80, 60), "white").save(page, format="PDF")
    renderer = SheetPageRenderer(lambda path, app: page.getvalue())
    with pytest.raises(RenderError, match="1 pages for 3 sheets"):
        renderer(WORKBOOK, "Sales", {}, tmp_path / "media" / "x")
