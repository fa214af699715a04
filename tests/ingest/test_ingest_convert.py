"""Conversion through unoserver on the test corpus: variants, rendering, crashes and hangs.

The session's shared unoserver (and its LibreOffice) serves these tests; the crash
and hang tests break it on purpose and check that it comes back.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from extractors import extract_file as extract
from fidelity.core.config import Config
from fidelity.core.document import Document
from ingest.corpus import ingest_corpus
from ingest.prepare import prepare
from ingest.settings import IngestSettings
from ingest.size import pdf_pages
from ingest.sniff import sniff
from ingest.unoserver_pool import ConversionError, Converter, _live_members

pytestmark = pytest.mark.needs("libreoffice")

VARIANTS = [
    "45690.docm",
    "50939.xls",
    "CommunicationsPlan_TP10192719.dotx",
    "ExcelWithAttachments.xlsm",
    "PPTWithAttachments.pptm",
    "PortfolioAnalysis_TP10073883.xltx",
    "SalesPropPres_TP10220213.potx",
    "SampleSS.ods",
    "bug58516.ppt",
    "parentinvguid.doc",
    "testODFwithOOo3.odt",
    "testODP_NPE.odp",
    "universal-content-strict.xlsx",
]
NEEDS_LIBREOFFICE = {"xls", "ppt", "doc", "ods", "odt", "odp", "xlsx-strict"}


@pytest.fixture(scope="module")
def converter() -> Iterator[Converter]:
    """One LibreOffice server of this module's own: the shared converter grows to one server
    per worker once a build has run, and the crash tests below freeze the only server."""
    with Converter(servers=1) as pool:
        pool.start()
        yield pool


def test_closing_stops_every_process(tmp_path: Path) -> None:
    pool = Converter(root=tmp_path, start_timeout=60)
    pool.start()
    (pid,) = pool.pids
    pool.close()
    assert not pool.pids and not _live_members(pid)
    assert not list(tmp_path.glob("profile-*")), "private profiles are removed"


def test_a_second_server_starts_only_when_every_server_is_busy(
    corpus: Path, tmp_path: Path
) -> None:
    source = corpus / "variants" / "testODFwithOOo3.odt"
    with Converter(servers=2, root=tmp_path) as pool:
        for _ in range(2):
            assert pool.convert(source, "docx")[:2] == b"PK"
        assert len(pool.pids) == 1, "conversions one after another share one server"
        held = pool._take()  # as a conversion in progress holds the only server
        try:
            assert pool.convert(source, "docx")[:2] == b"PK"
            assert len(pool.pids) == 2
        finally:
            pool._idle.put(held)


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("work")


@pytest.mark.parametrize("name", VARIANTS)
def test_every_variant_converts_then_extracts(
    converter: Converter, corpus: Path, work: Path, name: str
) -> None:
    source = corpus / "variants" / name
    sniffed = sniff(source)
    ooxml, converted_from = prepare(source, sniffed, work / "converted", converter)
    plain = {"word": "docx", "excel": "xlsx", "powerpoint": "pptx"}[sniffed.app]
    assert converted_from is not None and ooxml.suffix == f".{plain}"
    assert sniff(ooxml).format == plain and not sniff(ooxml).strict
    document = Document(
        sha256=ooxml.stem,
        app=sniffed.app,
        format=sniffed.format,
        source=str(source),
        converted_from=converted_from,
    )
    document = extract(ooxml, document, work / "media" / ooxml.stem[:12])
    assert document.artifacts, f"{name}: nothing extracted after conversion"
    again, _ = prepare(source, sniffed, work / "converted", None)  # cached: no converter needed
    assert again == ooxml


def test_rtf_is_sniffed_and_converted(converter: Converter, tmp_path: Path) -> None:
    source = tmp_path / "letter.doc"  # RTF saved under a .doc name, as editors often do
    source.write_bytes(rb"{\rtf1\ansi{\fonttbl\f0 Arial;}\f0 Dear reader,\par Thank you.\par}")
    sniffed = sniff(source)
    assert (sniffed.app, sniffed.format) == ("word", "rtf")
    assert sniffed.extension_mismatch == "extension .doc but content is rtf"
    ooxml, converted_from = prepare(source, sniffed, tmp_path / "converted", converter)
    assert converted_from == "rtf" and sniff(ooxml).format == "docx"


def test_pdf_rendering_keeps_hidden_slides(converter: Converter, corpus: Path) -> None:
    deck = corpus / "powerpoint" / "002.pptx"  # three slides, one hidden
    assert pdf_pages(converter.to_pdf(deck, "powerpoint")) == 3
    assert pdf_pages(converter.convert(deck, "pdf")) == 2


def _freeze(converter: Converter) -> int:
    (pid,) = converter.pids
    os.killpg(pid, signal.SIGSTOP)
    return pid


def test_server_killed_mid_conversion_is_restarted(converter: Converter, corpus: Path) -> None:
    restarts = converter.restarts
    pid = _freeze(converter)  # the request below is accepted but not answered ...
    result: dict[str, object] = {}

    def convert() -> None:
        try:
            result["pdf"] = converter.convert(corpus / "variants" / "bug58516.ppt", "pdf")
        except ConversionError as error:
            result["error"] = error

    worker = threading.Thread(target=convert)
    worker.start()
    time.sleep(0.5)
    os.killpg(pid, signal.SIGKILL)  # ... when the server dies under it
    worker.join(timeout=120)
    assert "error" not in result and pdf_pages(result["pdf"]) == 5
    assert converter.restarts == restarts + 1
    assert converter.pids and converter.pids[0] != pid


def test_hung_conversion_times_out_and_the_next_one_works(
    converter: Converter, corpus: Path
) -> None:
    restarts = converter.restarts
    _freeze(converter)
    with pytest.raises(ConversionError, match="hung"):
        converter.convert(corpus / "variants" / "SampleSS.ods", "xlsx", timeout=1)
    assert converter.restarts == restarts + 1
    assert converter.convert(corpus / "variants" / "SampleSS.ods", "xlsx")[:2] == b"PK"


def test_ingest_pass_on_variants_and_bad_files(
    converter: Converter, corpus: Path, tmp_path: Path
) -> None:
    settings = IngestSettings()
    inputs = [corpus / "variants", corpus / "bad"]
    result = ingest_corpus(
        inputs, tmp_path, Config(), settings=settings, converter=converter, progress=False
    )
    records = {Path(r.path).name: r for r in result.records}
    assert len(records) == len(VARIANTS) + 8
    for name in VARIANTS:
        record = records[name]
        assert record.problem is None, f"{name}: {record.problem}"
        assert record.ooxml and Path(record.ooxml).is_file()
        assert record.size["bucket"] in {"Small", "Medium", "Long"}
        assert record.reason_code not in {"corrupt", "conversion_failed"}
    assert records["parentinvguid.doc"].size["source"] == "rendered PDF"
    assert records["parentinvguid.doc"].converted_from == "doc"
    assert records["universal-content-strict.xlsx"].converted_from == "xlsx-strict"
    assert records["SalesPropPres_TP10220213.potx"].reason_code == "template"
    assert {records[name].reason_code for name in records if name not in VARIANTS} == {
        "corrupt",
        "encrypted",
        "not_office",
    }
    rows = (tmp_path / "corpus.jsonl").read_text().splitlines()
    assert len(rows) == len(records)
    assert all(json.loads(row)["reason"] or json.loads(row)["decision"] == "keep" for row in rows)

    conversions = converter.conversions
    again = ingest_corpus(
        inputs, tmp_path, Config(), settings=settings, converter=converter, progress=False
    )
    assert converter.conversions == conversions, "a second run converts nothing"
    assert [r.decision for r in again.records] == [r.decision for r in result.records]
