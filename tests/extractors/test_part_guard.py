"""A missing key, index or attribute inside one extractor part costs that part, with a note,
never the file: a real workbook whose conditional format lost its cell range."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from extractors import ExtractionError, extract_file
from extractors.part_guard import read_part
from fidelity.core.document import Document

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
WORKBOOK = FIXTURES / "regional_sales.xlsx"
SHEET = "xl/worksheets/sheet1.xml"
EXTRAS = {"comment", "hyperlink", "data-validation", "conditional-format"}


def without_cf_range(source: Path, target: Path) -> Path:
    """`source` with its first sheet's conditional format lacking its `sqref` (cell range)."""
    with zipfile.ZipFile(source) as package, zipfile.ZipFile(target, "w") as copy:
        for info in package.infolist():
            data = package.read(info)
            if info.filename == SHEET:
                cut = data.replace(
                    b'<conditionalFormatting sqref="E4:E7">', b"<conditionalFormatting>"
                )
                assert cut != data
                data = cut
            copy.writestr(info, data, compress_type=info.compress_type)
    return target


def extracted(path: Path) -> Document:
    return extract_file(
        path, Document(sha256="0" * 64, app="excel", format="xlsx", source=str(path))
    )


def test_a_sheets_rules_cost_only_themselves(tmp_path):
    whole = extracted(WORKBOOK)
    damaged = extracted(without_cf_range(WORKBOOK, tmp_path / "regional_sales.xlsx"))
    assert any(
        "comments, links and rules of sheet" in n and "IndexError" in n for n in damaged.notes
    )
    kept = {a.id for a in damaged.artifacts}
    lost = [a for a in whole.artifacts if a.id not in kept]
    assert lost and {a.kind for a in lost} <= EXTRAS  # only the first sheet's extras are gone
    assert any(a.kind == "table" for a in damaged.artifacts)
    assert any(a.kind == "conditional-format" for a in whole.artifacts)
    assert not any(a.placeholder and a.placeholder in damaged.body for a in lost)


def test_other_errors_still_cost_the_file(tmp_path):
    broken = tmp_path / "broken.xlsx"
    broken.write_bytes(WORKBOOK.read_bytes()[:2000])
    with pytest.raises(ExtractionError):
        extracted(broken)


def test_the_lists_a_failed_part_grew_lose_what_it_added():
    artifacts, notes = ["kept"], []

    def half_done() -> list[str]:
        artifacts.append("half")
        return ["x"][1:][0]

    assert read_part(notes.append, "a part", half_done, "none", (artifacts,)) == "none"
    assert artifacts == ["kept"] and notes == [
        "a part not read: IndexError: list index out of range"
    ]
