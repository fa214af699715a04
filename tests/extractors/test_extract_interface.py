"""The extractor interface: extract(source, context), one media writer, media only when asked."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from extractors import EXTRACTORS, ExtractContext, ExtractionError, Source, extract
from extractors.media import MediaWriter
from fidelity.cli import main as cli
from fidelity.core.apps import APPLICATIONS
from fidelity.core.document import Document
from tests.support.kinds import declared_kinds

FILES = {
    "word": "word/SolarOverview.docx",
    "excel": "excel/QuarterlySales.xlsx",
    "powerpoint": "powerpoint/typical.pptx",
}


def source(corpus: Path, app: str) -> Source:
    path = corpus / FILES[app]
    if not path.is_file():
        pytest.skip(f"{path} not in the corpus")
    document = Document(sha256="9" * 64, app=app, format=path.suffix[1:], source=str(path))
    return Source(path, document)


def with_media(document: Document) -> list[str]:
    return [a.media for a in document.artifacts if a.media]


def test_one_extractor_accepts_each_application(corpus: Path) -> None:
    for app in FILES:
        accepting = [e.app for e in EXTRACTORS if e.accepts(source(corpus, app))]
        assert accepting == [app]


@pytest.mark.parametrize("app", sorted(FILES))
def test_media_are_written_only_through_the_context_writer(
    corpus: Path, tmp_path: Path, app: str
) -> None:
    """No media folder: no media files, no media paths; same artifacts and body otherwise."""
    bare = extract(source(corpus, app), ExtractContext())
    assert list(tmp_path.iterdir()) == []
    folder = tmp_path / "media" / "doc"
    full = extract(source(corpus, app), ExtractContext(media=MediaWriter(folder)))
    assert with_media(bare) == []
    assert [a.id for a in bare.artifacts] == [a.id for a in full.artifacts]
    assert bare.body == full.body
    for media in with_media(full):
        assert (tmp_path / media).is_file(), media


def test_pictures_of_each_application_land_in_the_one_folder(corpus: Path, tmp_path: Path) -> None:
    folder = tmp_path / "media" / "doc"
    document = extract(source(corpus, "powerpoint"), ExtractContext(media=MediaWriter(folder)))
    paths = with_media(document)
    assert paths and all(p.startswith("media/doc/") for p in paths)


def test_an_application_without_extractor_is_an_extraction_error(corpus: Path) -> None:
    unknown = source(corpus, "word")
    unknown.document.app = "visio"
    with pytest.raises(ExtractionError, match="no extractor"):
        extract(unknown, ExtractContext())


def test_notes_from_the_context_follow_the_ingest_notes(corpus: Path) -> None:
    given = source(corpus, "word")
    given.document.notes = ["extension says .doc, content is docx"]
    context = ExtractContext()
    context.note("a remark made while extracting")
    document = extract(given, context)
    assert document.notes == [
        "extension says .doc, content is docx",
        "a remark made while extracting",
    ]


def test_cli_extract_writes_media_nowhere_unless_asked(
    corpus: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    deck = corpus / FILES["powerpoint"]
    monkeypatch.chdir(tmp_path)
    assert cli(["extract", str(deck), "--json"]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    assert with_media(Document.model_validate(json.loads(line))) == []
    assert list(tmp_path.iterdir()) == []

    assert cli(["extract", str(deck), "--json", "--media", str(tmp_path / "m")]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    paths = with_media(Document.model_validate(json.loads(line)))
    assert paths
    for media in paths:
        assert (tmp_path / media).is_file(), media


@pytest.mark.parametrize("app", list(FILES))
def test_every_kind_an_extractor_makes_is_declared(
    corpus: Path, extracted: Callable[[Path], Document], app: str
) -> None:
    """The layer test keeps an application's kinds in its own package by this list."""
    fixtures = Path(__file__).resolve().parents[2] / "fixtures"
    paths = [corpus / FILES[app], *sorted(fixtures.glob(f"*.{APPLICATIONS[app].plain_format}"))]
    made = {artifact.kind for path in paths for artifact in extracted(path).artifacts}
    assert made <= declared_kinds(app)
