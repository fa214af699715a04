"""The slim copy pandoc reads: the same AST as the Word file itself, with less to parse."""

from __future__ import annotations

import json
import struct
import zipfile
from pathlib import Path

import docx
import pytest
from docx.oxml import OxmlElement
from docx.oxml.ns import qn
from docx.shared import Pt

from extractors.word.index import DOCUMENT
from extractors.word.pandoc_input import pandoc_copy, slim_document
from extractors.word.pandoc_run import read_docx
from fidelity.core.xmlsafe import Package, UnsafePackage

ROOT = Path(__file__).resolve().parents[2]


def formatted_docx(path: Path) -> Path:
    """A Word file with what the slim copy drops (sizes, languages, fonts, cell borders) next
    to what pandoc reads (bold, italic, a Symbol-font run it maps to Greek, a table)."""
    document = docx.Document()
    paragraph = document.add_paragraph()
    runs = (("Quarterly ", 13, False), ("revenue", 9, True), (" rose.", 11, False))
    for text, size, bold in runs:
        run = paragraph.add_run(text)
        run.font.size, run.font.name, run.bold = Pt(size), "Arial", bold
        language = OxmlElement("w:lang")
        language.set(qn("w:val"), "fr-FR")
        run._r.get_or_add_rPr().append(language)
    symbol = document.add_paragraph().add_run("abg")
    symbol.font.name = "Symbol"
    document.add_paragraph().add_run("In italics").italic = True
    table = document.add_table(rows=2, cols=2)
    for number, cell in enumerate(table._cells):
        cell.text = f"cell {number}"
        borders = OxmlElement("w:tcBorders")
        for side in ("top", "left", "bottom", "right"):
            line = OxmlElement(f"w:{side}")
            line.set(qn("w:val"), "single")
            line.set(qn("w:sz"), "8")
            borders.append(line)
        cell._tc.get_or_add_tcPr().append(borders)
    document.save(path)
    return path


def ast_of(path: Path) -> dict:
    with read_docx(path, None) as run:
        return run.ast()


def test_pandoc_reads_the_slim_copy_as_it_reads_the_file(tmp_path: Path) -> None:
    path = formatted_docx(tmp_path / "formatted.docx")
    with Package(path) as package:
        document_xml = package.read(DOCUMENT)
        with pandoc_copy(package, document_xml) as copy:
            with zipfile.ZipFile(copy) as slim:
                assert sorted(slim.namelist()) == sorted(package.names)
                slim_xml = slim.read(DOCUMENT)
            from_copy = ast_of(copy)
        assert not copy.exists()  # the copy is gone with the block
    for dropped in (b"<w:sz ", b"<w:lang ", b"<w:tcBorders>", b'w:ascii="Arial"'):
        assert dropped in document_xml and dropped not in slim_xml, dropped
    assert b'w:ascii="Symbol"' in slim_xml and len(slim_xml) < len(document_xml)
    from_file = ast_of(path)
    assert from_copy == from_file
    text = json.dumps(from_file, ensure_ascii=False)
    assert "αβγ" in text  # pandoc mapped the Symbol run: it read the font the copy kept
    assert '"Strong"' in text and '"Emph"' in text and '"Table"' in text


@pytest.mark.parametrize("name", ["testWORD_various.docx", "SolarOverview.docx", "memo.docx"])
def test_fixtures_read_the_same_through_the_slim_copy(name: str) -> None:
    path = ROOT / "fixtures" / name
    with Package(path) as package, pandoc_copy(package, package.read(DOCUMENT)) as copy:
        assert ast_of(copy) == ast_of(path)


def test_text_that_looks_like_markup_is_kept() -> None:
    """A run's text cannot hold a raw `<`, so text quoting the markup stays as it is."""
    xml = (
        b'<w:r><w:rPr><w:sz w:val="20"/></w:rPr>'
        b"<w:t>set w:sz=&quot;20&quot; or &lt;w:lang w:val=&quot;fr&quot;/&gt; by hand</w:t></w:r>"
    )
    assert slim_document(xml) == (
        b"<w:r><w:rPr></w:rPr>"
        b"<w:t>set w:sz=&quot;20&quot; or &lt;w:lang w:val=&quot;fr&quot;/&gt; by hand</w:t></w:r>"
    )


def test_a_member_that_cannot_be_inflated_makes_the_file_corrupt(tmp_path: Path) -> None:
    path = formatted_docx(tmp_path / "formatted.docx")
    damaged = tmp_path / "damaged.docx"
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as package:
        info = package.getinfo("word/styles.xml")
    name_length, extra_length = struct.unpack_from("<2H", data, info.header_offset + 26)
    start = info.header_offset + 30 + name_length + extra_length  # the member's data
    data[start + 10 : start + 40] = bytes(30)  # inside the deflated stream
    damaged.write_bytes(bytes(data))
    with Package(damaged) as package, pytest.raises(UnsafePackage) as refused:
        with pandoc_copy(package, package.read(DOCUMENT)):
            pass
    assert refused.value.code == "corrupt" and "word/styles.xml" in str(refused.value)
