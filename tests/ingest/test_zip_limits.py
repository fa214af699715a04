"""Zip and XML limits: each hostile package gets a reason code before any large read."""

from __future__ import annotations

import random
import tracemalloc
from pathlib import Path

import pytest

from fidelity.core.xmlsafe import Package, UnsafePackage, parse_xml
from ingest.sniff import sniff
from tests.support.hostile_packages import (
    DOCUMENT,
    docx_with,
    dtd_in_unread_part,
    hostile,
    raw_zip,
    word_member,
    zeros_stream,
)

CODES = {
    "zip-bomb.docx": "unsafe",
    "lying-size.docx": "corrupt",
    "many-entries.docx": "unsafe",
    "entity-bomb.docx": "unsafe",
    "dotdot-names.docx": "unsafe",
    "random.docx": "not_office",
    "random-zip.xlsx": "corrupt",
}


@pytest.fixture(scope="module")
def packages(corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    folder = tmp_path_factory.mktemp("hostile")
    expected = hostile(folder, random.Random(7), corpus / "variants" / "parentinvguid.doc")
    return folder, expected


@pytest.mark.parametrize("name", sorted(CODES))
def test_sniff_refuses_each_hostile_package_with_a_code(packages, name: str) -> None:
    folder, expected = packages
    sniffed = sniff(folder / name)
    assert sniffed.code == CODES[name]
    assert expected[name].lower() in sniffed.problem.lower()


def test_a_lying_size_header_costs_no_more_than_its_declared_size(tmp_path: Path) -> None:
    """4 GB of zeros declared as 1,000 bytes (with the CRC of 1,000 zeros): reading the part
    stops at 1,000 bytes, in bounded memory, whatever the header says."""
    member = ("word/document.xml", zeros_stream(256), 0, 1000, 8)
    path = tmp_path / "lying.docx"
    path.write_bytes(raw_zip(docx_with(member)))
    tracemalloc.start()
    try:
        with Package(path) as package:
            with pytest.raises(UnsafePackage) as refused:
                package.read("word/document.xml")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert refused.value.code == "corrupt" and peak < 16 * 1024 * 1024


def test_every_xml_parse_error_is_a_reason_with_a_code() -> None:
    whole = DOCUMENT.format(text="Hello").encode()
    with pytest.raises(UnsafePackage) as truncated:
        parse_xml(whole[: len(whole) // 2], "word/document.xml")
    assert truncated.value.code == "corrupt" and "word/document.xml" in str(truncated.value)
    late = b'<?xml version="1.0"?><!--' + b"x" * 100_000 + b'--><!DOCTYPE a [<!ENTITY b "c">]><a/>'
    with pytest.raises(UnsafePackage, match="DTD"):
        parse_xml(late)
    utf16 = '<?xml version="1.0" encoding="UTF-16"?><!DOCTYPE a [<!ENTITY b "c">]><a>&b;</a>'
    with pytest.raises(UnsafePackage, match="DTD") as wide:
        parse_xml(utf16.encode("utf-16"))
    assert wide.value.code == "unsafe"


def test_a_flipped_byte_in_a_compressed_part_is_a_corrupt_package(tmp_path: Path) -> None:
    name, data, crc, size, method = word_member("word/document.xml", DOCUMENT.format(text="Hi"))
    damaged = bytearray(data)
    damaged[len(damaged) // 2] ^= 0x55
    path = tmp_path / "flipped.docx"
    path.write_bytes(raw_zip(docx_with((name, bytes(damaged), crc, size, method))))
    sniffed = sniff(path)
    assert sniffed.code == "corrupt" and "word/document.xml" in sniffed.problem


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16"])
def test_a_dtd_in_a_part_no_reader_opens_is_refused(
    corpus: Path, tmp_path: Path, encoding: str
) -> None:
    """Slide layout 11 of this deck is used by no slide: only the package check sees it."""
    source = corpus / "powerpoint" / "bug60993.pptx"
    path = tmp_path / "layout-dtd.pptx"
    path.write_bytes(dtd_in_unread_part(source, "ppt/slideLayouts/slideLayout11.xml", encoding))
    sniffed = sniff(path)
    assert sniffed.code == "unsafe", sniffed.problem
    assert sniffed.problem == "ppt/slideLayouts/slideLayout11.xml declares a DTD or entities"
    assert sniff(source).problem is None


def test_odf_keeps_the_doctype_of_its_embedded_formulas(corpus: Path) -> None:
    """ODF's embedded MathML carries a DOCTYPE; LibreOffice reads ODF, so it is not refused."""
    assert sniff(corpus / "variants" / "testODFwithOOo3.odt").problem is None
