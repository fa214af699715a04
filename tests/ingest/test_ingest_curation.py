"""Ingest without LibreOffice: sniffing bad files, curation reasons, size buckets, the CLI."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import docx
import pytest

from fidelity.cli import main
from fidelity.core.config import Config
from fidelity.core.sizes import bucket
from ingest.corpus import ingest_corpus
from ingest.flavours import normalise_flavour
from ingest.neardup import near_duplicates
from ingest.settings import IngestSettings
from ingest.size import pdf_pages
from ingest.sniff import sniff

ENGLISH = (
    "The regional water authority reviewed the quarterly maintenance report for the northern "
    "reservoir. Inspectors found that the spillway gates operated within tolerance, while two "
    "pumping stations required new bearings before the summer season. The board approved a "
    "budget of four hundred thousand dollars for repairs and asked staff to publish a schedule "
    "of outages so that residents could plan ahead. "
)
OTHER_ENGLISH = (
    "Our library opened a new reading room dedicated to local history, with maps, photographs "
    "and letters donated by families from the valley. Volunteers catalogued more than two "
    "thousand items during the winter, and the exhibition will travel to three schools in the "
    "spring so that students can see how the town grew around the railway station. "
)
FRENCH = (
    "Le conseil municipal a examiné le rapport trimestriel sur l'entretien du réservoir nord. "
    "Les inspecteurs ont constaté que les vannes fonctionnaient correctement, tandis que deux "
    "stations de pompage devaient être réparées avant l'été. Le budget a été approuvé et le "
    "personnel publiera un calendrier des coupures pour informer les habitants. "
)
PLACEHOLDERS = [
    "[Company Name]",
    "[Type the document title]",
    "Click here to enter text.",
    "Click or tap here to enter a date.",
    "[Street Address]",
    "[Type the abstract of the document here. The abstract is a short summary.]",
]
WORD_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml"


def write_docx(path: Path, paragraphs: list[str], heading: str | None = None) -> Path:
    document = docx.Document()
    if heading:
        document.add_heading(heading, level=1)
    for text in paragraphs:
        document.add_paragraph(text)
    path.parent.mkdir(parents=True, exist_ok=True)
    document.save(path)
    return path


def as_template(source: Path, target: Path) -> Path:
    """A copy of a .docx whose main part is typed as a Word template (.dotx)."""
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w") as new:
        for item in old.infolist():
            data = old.read(item.filename)
            if item.filename == "[Content_Types].xml":
                data = data.replace(
                    f"{WORD_TYPE}.document.main+xml".encode(),
                    f"{WORD_TYPE}.template.main+xml".encode(),
                )
            new.writestr(item, data)
    return target


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("built")
    write_docx(root / "reports" / "reservoir.docx", [ENGLISH * 3], heading="Reservoir report")
    write_docx(
        root / "reports" / "reservoir-copy.docx",
        [(ENGLISH * 3).replace("four hundred", "five hundred")],
        heading="Reservoir report",
    )
    write_docx(root / "reports" / "library.docx", [OTHER_ENGLISH * 3], heading="Library")
    write_docx(root / "reports" / "francais.docx", [FRENCH * 3])
    write_docx(root / "reports" / "stub.docx", ["Draft."])
    write_docx(root / "forms" / "prompts.docx", PLACEHOLDERS)
    as_template(
        write_docx(root / "tmp-template.docx", [OTHER_ENGLISH * 2]), root / "forms" / "form.dotx"
    )
    (root / "tmp-template.docx").unlink()
    shutil.copy(root / "reports" / "library.docx", root / "forms" / "library-again.docx")
    (root / "notes.docx").write_text("this is plain text, not a Word file\n")
    return root


@pytest.fixture(scope="module")
def ingested(built: Path, tmp_path_factory: pytest.TempPathFactory):
    settings = IngestSettings(word_pages_from_pdf=False)
    out = tmp_path_factory.mktemp("out")
    return ingest_corpus(
        [built], out, Config(), settings=settings, use_libreoffice=False, progress=False
    ), out


def by_name(ingested) -> dict[str, object]:
    result, _ = ingested
    return {Path(record.path).name: record for record in result.records}


BAD_REASONS = {
    "truncated62886.docx": ("corrupt", "no end-of-central-directory"),
    "Divino_Revelado.pptx": ("corrupt", "no central directory"),
    "clusterfuzz-testcase-minimized-POIXSSFFuzzer-5937385319563264.xlsx": (
        "corrupt",
        "CRC mismatch in xl/worksheets/sheet8.xml",
    ),
    "protected_agile.docx": ("encrypted", "encrypted OOXML package"),
    "testEXCEL_protected_passtika.xlsx": ("encrypted", "encrypted OOXML package"),
    "testPPT_protected_passtika.pptx": ("encrypted", "encrypted OOXML package"),
    "password_tika_binaryrc4.doc": ("encrypted", "encrypted Word 97-2003 document"),
    "testODTnotaZipFile.odt": ("not_office", "not an Office file"),
}


@pytest.mark.parametrize("name", sorted(BAD_REASONS))
def test_every_bad_file_gets_its_specific_reason(corpus: Path, name: str) -> None:
    code, words = BAD_REASONS[name]
    sniffed = sniff(corpus / "bad" / name)
    assert sniffed.code == code
    assert words in sniffed.problem


def test_sniff_reads_bytes_not_extensions(corpus: Path, tmp_path: Path) -> None:
    disguised = tmp_path / "really-a-workbook.docx"
    shutil.copy(corpus / "variants" / "SampleSS.ods", disguised)
    sniffed = sniff(disguised)
    assert (sniffed.app, sniffed.format) == ("excel", "ods")
    assert sniffed.extension_mismatch == "extension .docx but content is ods"
    assert sniff(corpus / "variants" / "universal-content-strict.xlsx").strict
    assert sniff(corpus / "variants" / "50939.xls").format == "xls"


def test_curation_gives_each_file_its_reason(ingested) -> None:
    records = by_name(ingested)
    for pair, code in (
        (("library.docx", "library-again.docx"), "duplicate"),
        (("reservoir.docx", "reservoir-copy.docx"), "near_duplicate"),
    ):
        twins = [records[name] for name in pair]
        assert sorted(r.reason_code for r in twins) == ["", code]
        kept, dropped = sorted(twins, key=lambda r: r.kept, reverse=True)
        assert dropped.duplicate_of == kept.path
    assert records["francais.docx"].reason_code == "non_english"
    assert "fr" in records["francais.docx"].reason
    assert records["stub.docx"].reason_code == "near_empty"
    assert records["prompts.docx"].reason_code == "template"
    assert "placeholder" in records["prompts.docx"].reason
    assert records["form.dotx"].reason_code == "template"
    assert "dotx content type" in records["form.dotx"].reason
    assert records["notes.docx"].reason_code == "not_office"


def test_corpus_files_are_written(ingested) -> None:
    result, out = ingested
    rows = [json.loads(line) for line in (out / "corpus.jsonl").read_text().splitlines()]
    assert len(rows) == len(result.records) == 9
    row = next(r for r in rows if r["decision"] == "keep" and "reservoir" in r["path"])
    assert row["decision"] == "keep" and row["format"] == "docx"
    assert row["size"]["unit"] == "pages" and row["bucket"] == "Small"
    assert row["rank"] in (1, 2) and row["rank_judge"].startswith("heuristic")
    assert row["domain"] == "reports"
    report = (out / "corpus.md").read_text()
    assert "| near_duplicate | 1 |" in report
    assert "**needs more**" in report
    assert "extension .docx but content is not an Office file" in report


def test_template_flavour_normalises_to_plain_docx(built: Path, tmp_path: Path) -> None:
    target = tmp_path / "form.docx"
    target.write_bytes(normalise_flavour(built / "forms" / "form.dotx", "word"))
    assert sniff(target).format == "docx"
    assert "library" in " ".join(p.text for p in docx.Document(target).paragraphs).lower()


def test_near_duplicates_keep_the_first_of_a_cluster() -> None:
    texts = [("a", ENGLISH * 2), ("b", ENGLISH * 2 + " One more line."), ("c", OTHER_ENGLISH)]
    found = near_duplicates(texts, threshold=0.8, shingle_size=3)
    assert [(d.key, d.of) for d in found] == [("b", "a")]
    assert found[0].similarity > 0.8


def test_size_buckets_follow_the_paper() -> None:
    assert [bucket("word", n) for n in (10, 11, 30, 31)] == ["Small", "Medium", "Medium", "Long"]
    assert [bucket("excel", n) for n in (3, 4, 8, 9)] == ["Small", "Medium", "Medium", "Long"]
    assert bucket("powerpoint", 12) == "Medium"
    pdf = b"1 0 obj\n<</Type /Pages\n/Kids [2 0 R]\n/Count 12>>\nendobj\n<</Count 3 /Type/Pages>>"
    assert pdf_pages(pdf) == 12


def test_ingest_command_writes_corpus_files(built: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    status = main(["ingest", str(built / "reports"), "-o", str(out), "--no-libreoffice"])
    assert status == 0
    rows = [json.loads(line) for line in (out / "corpus.jsonl").read_text().splitlines()]
    assert {Path(r["path"]).name for r in rows} == {
        "reservoir.docx",
        "reservoir-copy.docx",
        "library.docx",
        "francais.docx",
        "stub.docx",
    }
    assert (out / "corpus.md").is_file()
