"""The Word extractor on real files: every category a file has is extracted, with its content."""

from __future__ import annotations

import csv
import re
import zipfile
from collections.abc import Callable
from pathlib import Path

import docx

from extractors import extract_file as extract
from fidelity.core.apps import TAXONOMY
from fidelity.core.document import Artifact, Document
from fidelity.core.hashing import file_sha256
from fidelity.core.text import normalize
from fidelity.core.views import View, placed_ids, view_context

# MANIFEST.tsv tags -> the taxonomy category they should produce.
TAG_CATEGORY = {
    "table": "Table",
    "fonts_styles": "Font",
    "columns_sections": "Layout",
    "hyperlink": "Hyperlink",
    "metadata_core": "Metadata",
    "footnotes": "Footnote",
    "endnotes": "Footnote",
    "highlight": "Highlight",
    "header": "Header",
    "footer": "Footer",
    "comments": "Comment",
    "equation": "Equation",
    "strikethrough": "Strikeout",
    "textbox": "Textbox",
    "image": "Image",
    "chart": "Chart",
}

# Manifest tags that name no visible element (checked in the XML by hand): highlight set only on
# paragraph marks, strike switched off (w:val="0") in styles, header parts with no content.
NOT_VISIBLE = {
    ("word/bug65649.docx", "highlight"),
    ("word/bug65649.docx", "strikethrough"),
    ("word/RA001-Tracked-Revisions-02.docx", "highlight"),
    ("word/lists_restarting.docx", "strikethrough"),
    ("word/lists_continuing.docx", "strikethrough"),
    ("word/Complex01.docx", "header"),
}


class ViewsWithout:
    """The normalized text of the view leaving out one artifact, for every artifact, from
    one rendering.

    The document is rendered once with each artifact's expansion marked, begin and end,
    and the text between markers is normalized once; leaving an artifact out replaces each
    of its marked expansions (with what it nests) by its fallback, as `view_context` does with an
    excluded artifact. A placeholder inside a word splits the word here, not in `view_context`.
    """

    BEGIN, END, CLOSE = "\ue000", "\ue001", "\ue002"

    def __init__(self, document: Document) -> None:
        marked = document.model_copy(
            update={
                "artifacts": [
                    a.model_copy(
                        update={
                            "text": f"{self.BEGIN}{a.id}{self.CLOSE}{a.text}"
                            f"{self.END}{a.id}{self.CLOSE}"
                        }
                    )
                    for a in document.artifacts
                ]
            }
        )
        text = view_context(marked, View("full")).text
        marker = re.compile(f"([{self.BEGIN}{self.END}])([^{self.CLOSE}]*){self.CLOSE}")
        self.segments: list[str] = []
        self.spans: dict[str, list[tuple[int, int]]] = {}
        opened: dict[str, list[int]] = {}
        start = 0
        for match in marker.finditer(text):
            self.segments.append(normalize(text[start : match.start()]))
            start = match.end()
            kind, artifact_id = match.groups()
            if kind == self.BEGIN:
                opened.setdefault(artifact_id, []).append(len(self.segments))
            else:
                begin = opened[artifact_id].pop()
                self.spans.setdefault(artifact_id, []).append((begin, len(self.segments)))
        self.segments.append(normalize(text[start:]))

    def without(self, artifact: Artifact) -> str:
        """normalize(view_context(document, View(exclude={artifact.id})).text), as words."""
        fallback, kept, start = normalize(artifact.fallback), [], 0
        for begin, end in sorted(self.spans.get(artifact.id, [])):
            if begin < start:  # nested in an expansion already left out
                continue
            kept += [*self.segments[start:begin], fallback]
            start = end
        kept += self.segments[start:]
        return " ".join(segment for segment in kept if segment)


def manifest_rows(corpus: Path) -> list[dict[str, str]]:
    with (corpus / "MANIFEST.tsv").open() as handle:
        return [
            row for row in csv.DictReader(handle, delimiter="\t") if row["path"].startswith("word/")
        ]


def test_every_tagged_category_is_extracted(
    corpus: Path, extracted: Callable[[Path], Document]
) -> None:
    missing = []
    for row in manifest_rows(corpus):
        document = extracted(corpus / row["path"])
        found = {artifact.category for artifact in document.artifacts}
        assert found <= set(TAXONOMY["word"]), found - set(TAXONOMY["word"])
        for tag in row["artifacts"].split(","):
            category = TAG_CATEGORY.get(tag)
            if category and category not in found and (row["path"], tag) not in NOT_VISIBLE:
                missing.append(f"{row['path']}: {tag} -> {category}")
    assert not missing, "\n".join(missing)


def _by_kind(document: Document, kind: str) -> list:
    return [artifact for artifact in document.artifacts if artifact.kind == kind]


def test_comments_carry_author_anchor_and_text(
    corpus: Path, extracted: Callable[[Path], Document]
) -> None:
    document = extracted(corpus / "word" / "memo.docx")
    comments = _by_kind(document, "comment") + _by_kind(document, "comment-reply")
    assert comments
    for comment in comments:
        assert comment.facts["author"]
        assert comment.facts["text"]
        assert comment.facts["text"] in comment.text


def test_hyperlink_header_footer_and_strikeout(
    corpus: Path, extracted: Callable[[Path], Document]
) -> None:
    document = extracted(corpus / "word" / "testWORD_various.docx")
    links = {a.facts["text"]: a.facts["target"] for a in _by_kind(document, "hyperlink")}
    assert links["This is a hyperlink"] == "http://tika.apache.org/"
    headers = [a.facts["text"] for a in _by_kind(document, "header")]
    footers = [a.facts["text"] for a in _by_kind(document, "footer")]
    assert headers == ["This is the header text."]
    assert footers == ["This is the footer text."]
    struck = [a.facts["subject"] for a in _by_kind(document, "strikeout")]
    assert "strikethrough" in struck
    sections = _by_kind(document, "layout-section")
    assert [a.facts["columns"] for a in sections].count(2) == 1


def test_notes_are_placed_in_the_body(corpus: Path, extracted: Callable[[Path], Document]) -> None:
    document = extracted(corpus / "word" / "notes.docx")
    footnote = document.artifact("fn-1")
    endnote = document.artifact("en-1")
    assert footnote.facts["text"] == "My note."
    assert endnote.kind == "endnote"
    full = view_context(document, View("full")).text
    assert "My note." in full
    assert footnote.facts["passage"].endswith("Test footnote.")


def test_equations_become_latex(corpus: Path, extracted: Callable[[Path], Document]) -> None:
    document = extracted(corpus / "word" / "equations.docx")
    latex = [a.facts["latex"] for a in _by_kind(document, "equation")]
    assert any(r"\pi r^{2}" in item for item in latex)


def test_tables_keep_merged_cells(corpus: Path, extracted: Callable[[Path], Document]) -> None:
    document = extracted(corpus / "word" / "docx-tables.docx")
    tables = _by_kind(document, "table")
    assert len(tables) >= 3
    assert any("colspan" in (t.html or "") or "rowspan" in (t.html or "") for t in tables)
    placed = placed_ids(document)
    for table in tables:
        assert table.id in placed
        assert table.facts["rows"]


def test_fonts_resolve_through_style_chain(
    corpus: Path, extracted: Callable[[Path], Document]
) -> None:
    document = extracted(corpus / "word" / "notes.docx")
    heading = _by_kind(document, "font-heading")[0]
    # Heading 2 in this file is based on Normal; its size and colour come from the style.
    assert heading.facts["subject"] == "A footnote"
    assert heading.facts["size_pt"] == 13
    assert heading.facts["bold"] is True
    assert heading.facts["color"] == "4F81BD"
    body = document.artifact("font-body")
    assert body.facts["font"] == "Cambria"


def test_chart_facts_from_chart_part(corpus: Path, extracted: Callable[[Path], Document]) -> None:
    document = extracted(corpus / "word" / "SolarOverview.docx")
    charts = _by_kind(document, "chart")
    assert charts
    assert charts[0].facts["series"]
    assert "Chart type:" in charts[0].text


def test_textbox_is_not_duplicated_from_fallback(
    corpus: Path, extracted: Callable[[Path], Document]
) -> None:
    document = extracted(corpus / "word" / "Comment015.docx")
    boxes = _by_kind(document, "textbox")
    assert [box.facts["text"] for box in boxes] == ["TextFrame Story"]
    full = view_context(document, View("full")).text
    assert full.count("TextFrame Story") == 1


def test_view_without_an_artifact_does_not_contain_it(
    corpus: Path, extracted: Callable[[Path], Document]
) -> None:
    """The view property, on every artifact of every Word file in the corpus."""
    failures = []
    for row in manifest_rows(corpus):
        document = extracted(corpus / row["path"])
        texts = {a.id: normalize(re.sub(r"⟦[^⟧]*⟧", " ", a.text)) for a in document.artifacts}
        body = normalize(re.sub(r"⟦[^⟧]*⟧", " ", document.body))
        full = normalize(view_context(document, View("full")).text)
        views = ViewsWithout(document)
        for artifact in document.artifacts:
            content = texts[artifact.id]
            if len(content) < 12:
                continue
            elsewhere = (
                content in body
                or full.count(content) > 1
                or any(content in text for other, text in texts.items() if other != artifact.id)
            )
            if elsewhere:
                continue
            if content in views.without(artifact):
                failures.append(f"{row['path']}: {artifact.id}")
    assert not failures, failures


def _add_web_video(path: Path) -> None:
    """Insert a wp15:webVideoPr picture, as Word writes for an online video."""
    with zipfile.ZipFile(path) as source:
        parts = {name: source.read(name) for name in source.namelist()}
    xml = parts["word/document.xml"].decode()
    drawing = (
        '<w:p><w:r><w:drawing><wp:inline xmlns:wp="http://schemas.openxmlformats.org/'
        'drawingml/2006/wordprocessingDrawing"><wp:extent cx="1" cy="1"/>'
        '<wp:docPr id="7" name="Video 1" title="Solar farm tour" descr="A walk through"/>'
        '<a:graphic xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main">'
        '<a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture">'
        '<pic:pic xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture">'
        '<pic:nvPicPr><pic:cNvPr id="7" name="Video 1"><a:extLst><a:ext uri="{C809E66F}">'
        '<wp15:webVideoPr xmlns:wp15="http://schemas.microsoft.com/office/word/2012/'
        'wordprocessingDrawing" embeddedHtml="&lt;iframe src=&quot;https://www.youtube.com/'
        'embed/abc123&quot;&gt;&lt;/iframe&gt;" h="315" w="560"/></a:ext></a:extLst>'
        "</pic:cNvPr><pic:cNvPicPr/></pic:nvPicPr><pic:blipFill/><pic:spPr/></pic:pic>"
        "</a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>"
    )
    xml = xml.replace("<w:sectPr", drawing + "<w:sectPr", 1)
    parts["word/document.xml"] = xml.encode()
    with zipfile.ZipFile(path, "w") as target:
        for name, data in parts.items():
            target.writestr(name, data)


def test_embedded_video(tmp_path: Path) -> None:
    path = tmp_path / "video.docx"
    builder = docx.Document()
    builder.add_paragraph("Our site visit is recorded below.")
    builder.save(path)
    _add_web_video(path)
    document = Document(sha256=file_sha256(path), app="word", format="docx", source=str(path))
    document = extract(path, document, tmp_path / "media" / "x")
    videos = _by_kind(document, "video")
    assert len(videos) == 1
    assert videos[0].facts["url"] == "https://www.youtube.com/embed/abc123"
    assert videos[0].facts["title"] == "Solar farm tour"
    assert videos[0].category == "Video"
