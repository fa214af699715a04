"""PowerPoint extractor on the fixture deck, on decks built here and on the test corpus."""

from __future__ import annotations

import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from pptx import Presentation
from pptx.util import Inches

from extractors import ExtractionError
from extractors import extract_file as extract
from extractors import extract_file as extract_any
from extractors.powerpoint.views import without_shape
from fidelity.core.apps import TAXONOMY
from fidelity.core.document import Artifact, Document
from fidelity.core.views import (
    PLACEHOLDER,
    View,
    group_view,
    named_views,
    placed_ids,
    shown_by,
    view_context,
)

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "garden_review.pptx"


def load(path: Path, media: Path) -> Document:
    document = Document(sha256="7" * 64, app="powerpoint", format="pptx", source=str(path))
    return extract(path, document, media)


@pytest.fixture(scope="module")
def deck(tmp_path_factory: pytest.TempPathFactory) -> Document:
    return load(FIXTURE, tmp_path_factory.mktemp("out") / "media" / "deck")


def kinds(document: Document, kind: str) -> list[Artifact]:
    return [a for a in document.artifacts if a.kind == kind]


def one(document: Document, kind: str, **facts: object) -> Artifact:
    found = [a for a in kinds(document, kind) if all(a.facts.get(k) == v for k, v in facts.items())]
    assert len(found) == 1, (kind, facts, [a.facts for a in kinds(document, kind)])
    return found[0]


def text_without(document: Document, *ids: str) -> str:
    return view_context(document, View("test", exclude=frozenset(ids))).text


def test_fixture_covers_categories_and_size(deck: Document) -> None:
    categories = {a.category for a in deck.artifacts}
    assert categories <= set(TAXONOMY["powerpoint"])
    missing = set(TAXONOMY["powerpoint"]) - categories
    assert missing == {"Ink", "SmartArt/Type & Text", "SmartArt/Semantics"}
    assert deck.size == {
        "unit": "slides",
        "count": 7,
        "source": "ppt/presentation.xml",
        "bucket": "Small",
        "hidden_slides": 1,
    }
    assert len({a.id for a in deck.artifacts}) == len(deck.artifacts)


def test_every_artifact_is_placed_once_or_in_an_annex(deck: Document) -> None:
    placed = placed_ids(deck)
    known = {a.id for a in deck.artifacts}
    assert placed <= known
    for artifact in deck.artifacts:
        assert artifact.id in placed or artifact.group, artifact.id
        assert (artifact.placeholder is not None) == (artifact.id in placed), artifact.id


def test_slide_text_keeps_bullet_levels_and_titles(deck: Document) -> None:
    body = one(deck, "slide-text", slide=2, role="body")
    assert "\n- Tomatoes: 412 kg harvested across all plots\n" in body.text
    assert "\n  - Cherry varieties made up 35% of the tomato crop" in body.text
    title = one(deck, "slide-text", slide=2, role="title")
    assert title.text == "[Title 1, title] Harvest results"
    assert title.category == "Slide Text" and title.modality == "text"


def test_speaker_notes_are_kept_apart_from_slides(deck: Document) -> None:
    note = one(deck, "note", slide=2)
    assert note.category == "Slide Note" and note.placeholder is None
    assert note.group == "Speaker notes"
    assert "July drought" not in deck.body
    assert note.removed_by == ["no-notes"] and note.answerable_from == ["notes-only"]
    notes_only = view_context(deck, shown_by(deck, "notes-only")).text
    assert "July drought" in notes_only and "Harvest results" not in notes_only
    no_notes = view_context(deck, group_view(deck, "no-notes")).text
    assert "July drought" not in no_notes and "Harvest results" in no_notes


def test_hidden_slide_and_sections(deck: Document) -> None:
    hidden = one(deck, "hidden-slide", slide=6)
    assert "## Slide 6 " + hidden.placeholder in deck.body
    sections = {a.facts["name"]: a for a in kinds(deck, "section")}
    assert list(sections) == ["Overview", "Results", "Planning", "Next steps"]
    assert sections["Results"].facts["slides"] == [2, 3, 4]
    results = sections["Results"].placeholder
    assert deck.body.index(results) < deck.body.index("## Slide 2")
    assert "slides 2, 3, 4" in sections["Results"].text


def test_master_footer_is_one_artifact_referenced_by_every_slide(deck: Document) -> None:
    footer = one(deck, "footer", override=False)
    assert footer.facts["slides"] == [1, 2, 3, 4, 5, 7]
    assert deck.body.count(footer.placeholder) == 6
    override = one(deck, "footer", override=True)
    assert override.facts["slide"] == 6 and "Committee only" in override.text
    rendered = text_without(deck, footer.id)
    assert "Riverside Community Garden”" not in rendered
    assert "Committee only" in rendered
    number = one(deck, "slide-number")
    assert number.facts["slides"] == list(range(1, 8))
    assert one(deck, "date-time").facts["text"] == "March 2025"


def test_table_values_and_cell_colours(deck: Document) -> None:
    table = one(deck, "table", slide=3)
    assert table.facts["rows"][4] == ["B2", "Unassigned", "Needs repair"]
    assert "| A2 | Tom Becker | Waiting list |" in table.text
    assert 'style="background-color:#FF0000"' in (table.html or "")
    colors = one(deck, "table-cell-colors", slide=3)
    cells = {(c["row_label"], c["column_label"]): c["color_name"] for c in colors.facts["cells"]}
    assert cells[("B2", "Status")] == "red" and cells[("A2", "Status")] == "gold"
    assert colors.facts["common_color_name"] == "light blue"
    assert "red" not in table.text


def test_chart_picture_and_media(deck: Document, tmp_path_factory: pytest.TempPathFactory) -> None:
    chart = one(deck, "chart", slide=4)
    assert chart.modality == "visual" and chart.facts["title"] == "Volunteer hours per month"
    assert "May=240" in chart.text
    picture = one(deck, "image", slide=4)
    assert picture.facts["alt_text"] == "Map of the garden showing 24 raised beds"
    assert picture.media and picture.media.startswith("media/deck/")
    text_only = view_context(deck, named_views(deck)["text-only"]).text
    assert "24 raised beds" not in text_only and "May=240" not in text_only


def test_shapes_types_theme_colours_groups_and_connectors(deck: Document) -> None:
    apply = one(deck, "shape-style", shape_name="Step apply")
    assert apply.facts["geometry_name"] == "rounded rectangle"
    assert apply.facts["fill_theme"] == "accent1" and apply.facts["fill"] == "4F81BD"
    assert one(deck, "shape-style", shape_name="Step review").facts["geometry_name"] == "chevron"
    assert one(deck, "shape-text", slide=5, shape_name="Step review").category == "Shape/Text"
    structure = one(deck, "slide-structure", slide=5)
    shapes = {s["name"]: s for s in structure.facts["shapes"]}
    assert shapes["Legend"]["members"] == ["Legend key", "Legend labels"]
    assert shapes["Legend note"]["group"] == "Legend labels"
    assert shapes["Legend note"]["box"][:2] == [Inches(1), Inches(5)]
    assert structure.facts["connections"][0] == {
        "connector": "Arrow one",
        "from": "Step apply",
        "to": "Step review",
    }
    assert "Layout of slide 5: “Title Only”" in structure.text


def test_animations_languages_highlight_links_equation(deck: Document) -> None:
    effects = one(deck, "animations", slide=5).facts["effects"]
    assert [(e["shape_name"], e["effect"], e["trigger"]) for e in effects] == [
        ("Step apply", "Fade", "on click"),
        ("Step review", "Fly In", "after previous"),
    ]
    runs = one(deck, "slide-languages", slide=2).facts["runs"]
    assert runs == [
        {
            "lang": "fr-FR",
            "language": "French",
            "text": "Jardin partagé de Lyon",
            "shape_name": "Content Placeholder 2",
        }
    ]
    assert one(deck, "deck-language").facts["lang"] == "en-US"
    mark = one(deck, "text-highlight", slide=2)
    assert mark.facts["color_name"] == "yellow" and mark.fallback == "record yield"
    plain = text_without(deck, mark.id)
    assert "Beans had a record yield in September" in plain
    assert "highlighted" not in plain
    url = one(deck, "hyperlink", link_kind="url")
    assert url.facts["target"] == "https://example.org/garden/harvest-2024"
    assert one(deck, "hyperlink", link_kind="slide").facts["target_slide"] == 3
    assert one(deck, "equation", slide=7).facts["equation"] == "W=A/2×4.5"


def test_without_shape_drops_the_shape_and_what_it_nests(deck: Document) -> None:
    table = one(deck, "table", slide=3)
    assert table.where.shape is not None
    view = without_shape(deck, 3, table.where.shape.id)
    colors = one(deck, "table-cell-colors", slide=3)
    assert {table.id, colors.id} <= view.exclude
    rendered = view_context(deck, view).text
    assert "Tom Becker" not in rendered and "Plot status" in rendered
    style = one(deck, "shape-style", shape_name="Step apply")
    text = one(deck, "shape-text", shape_name="Step apply")
    assert text.where.shape is not None
    assert {style.id, text.id} <= without_shape(deck, 5, text.where.shape.id).exclude


def test_metadata_properties(deck: Document) -> None:
    titles = [a for a in deck.artifacts if a.category == "Metadata" and a.facts["key"] == "title"]
    assert titles[0].facts["value"] == "Riverside Community Garden 2024 Review"


def build_deck(path: Path, titles: list[str]) -> Path:
    prs = Presentation()
    for title in titles:
        slide = prs.slides.add_slide(prs.slide_layouts[5])
        slide.shapes.title.text = title
        box = slide.shapes.add_textbox(Inches(1), Inches(2), Inches(4), Inches(1))
        box.text_frame.text = f"Body of {title}"
    prs.save(path)
    return path


def test_ids_survive_inserting_a_slide(tmp_path: Path) -> None:
    first = load(build_deck(tmp_path / "a.pptx", ["Alpha", "Beta"]), tmp_path / "m")
    prs = Presentation(str(tmp_path / "a.pptx"))
    slide = prs.slides.add_slide(prs.slide_layouts[5])
    slide.shapes.title.text = "Inserted"
    order = prs.slides._sldIdLst
    order.insert(0, order[-1])
    prs.save(tmp_path / "b.pptx")
    second = load(tmp_path / "b.pptx", tmp_path / "m")
    before = {a.id: a.text for a in first.artifacts if a.kind == "slide-text"}
    after = {a.id: a.text for a in second.artifacts if a.kind == "slide-text"}
    assert before.items() <= after.items()
    assert one(second, "slide-text", slide=2, role="title").text.endswith("Alpha")
    again = load(tmp_path / "a.pptx", tmp_path / "m")
    assert [a.id for a in again.artifacts] == [a.id for a in first.artifacts]


def test_decks_without_slides_and_broken_packages_are_refused(tmp_path: Path) -> None:
    empty = tmp_path / "empty.pptx"
    Presentation().save(empty)
    with pytest.raises(ExtractionError, match="no slides"):
        load(empty, tmp_path / "m")
    junk = tmp_path / "junk.pptx"
    junk.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(ExtractionError):
        load(junk, tmp_path / "m")
    source = build_deck(tmp_path / "ok.pptx", ["Fine"])
    hostile = tmp_path / "hostile.pptx"
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(hostile, "w") as new:
        for item in old.infolist():
            data = old.read(item)
            if item.filename == "ppt/slides/slide1.xml":
                data = b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e "boom">]>' + data[56:]
            new.writestr(item, data)
    document = Document(sha256="7" * 64, app="powerpoint", format="pptx", source=str(hostile))
    with pytest.raises(ExtractionError, match="DTD"):
        extract_any(hostile, document, tmp_path / "m")


# ---------------------------------------------------------------- test corpus

CORPUS_DECKS = [
    "powerpoint/60810.pptx",
    "powerpoint/stress013.pptx",
    "powerpoint/SmartArt_OrgChart1.pptx",
    "powerpoint/highlight-test-case.pptx",
    "powerpoint/autoshape-case017_slide-number.pptx",
    "powerpoint/group-shapes-nested.pptx",
    "powerpoint/customGeo.pptx",
    "powerpoint/aascu.org_hbcu_leadershipsummit_cooper_.pptx",
    "powerpoint/013.pptx",
    "variants/PPTWithAttachments.pptm",
    "variants/SalesPropPres_TP10220213.potx",
]


@pytest.fixture(scope="module")
def corpus_docs(corpus: Path, extracted: Callable[[Path], Document]) -> dict[str, Document]:
    return {name: extracted(corpus / name) for name in CORPUS_DECKS}


def test_corpus_decks_extract_with_taxonomy_labels(corpus_docs: dict[str, Document]) -> None:
    for name, document in corpus_docs.items():
        assert document.artifacts, name
        assert {a.category for a in document.artifacts} <= set(TAXONOMY["powerpoint"]), name
        assert len({a.id for a in document.artifacts}) == len(document.artifacts), name
        assert set(PLACEHOLDER.findall(document.body)) <= {a.id for a in document.artifacts}


def test_corpus_smartart_hierarchy_and_process(corpus_docs: dict[str, Document]) -> None:
    org = corpus_docs["powerpoint/SmartArt_OrgChart1.pptx"]
    diagram = one(org, "smartart")
    assert diagram.facts["layout_name"] == "Organization Chart"
    structure = one(org, "smartart-structure")
    assert "“Mid-Left” (assistant) is directly under “Top”" in structure.text
    assert structure.facts["restated_by"] == [diagram.id]
    talent = corpus_docs["powerpoint/60810.pptx"]
    process = [a for a in kinds(talent, "smartart") if a.facts["structure"] == "process"]
    assert process and process[0].facts["layout_name"] == "Continuous Block Process"
    steps = one(talent, "smartart-structure", layout_name="Continuous Block Process")
    assert "right after" in steps.text


def test_corpus_hidden_slides_sections_and_notes(corpus_docs: dict[str, Document]) -> None:
    talent = corpus_docs["powerpoint/60810.pptx"]
    assert [a.facts["slide"] for a in kinds(talent, "hidden-slide")] == [4, 21, 22]
    assert kinds(talent, "section")[0].facts["name"] == "Core layouts"
    assert len(kinds(talent, "note")) == 6
    sections = corpus_docs["powerpoint/013.pptx"]
    assert len(kinds(sections, "section")) == 7
    numbered = corpus_docs["powerpoint/autoshape-case017_slide-number.pptx"]
    assert kinds(numbered, "hidden-slide")


def test_corpus_ink_equations_highlight_and_nested_groups(corpus_docs: dict[str, Document]) -> None:
    stress = corpus_docs["powerpoint/stress013.pptx"]
    inks = kinds(stress, "ink")
    assert len(inks) > 20 and all(a.modality == "visual" for a in inks)
    assert any(a.facts["recognized"] for a in inks)
    assert {a.facts["color_names"][0] for a in inks} >= {"black", "orange", "green"}
    assert "√(𝑥+1)−√𝑥" in {a.facts["equation"] for a in kinds(stress, "equation")}
    marks = kinds(corpus_docs["powerpoint/highlight-test-case.pptx"], "text-highlight")
    assert sorted(a.facts["color_name"] for a in marks) == ["green", "green", "yellow", "yellow"]
    nested = one(corpus_docs["powerpoint/group-shapes-nested.pptx"], "slide-structure")
    groups = [s for s in nested.facts["shapes"] if s["members"]]
    assert any(s["group"] for s in groups), "a group inside a group"


def test_corpus_custom_geometry_footers_and_variants(corpus_docs: dict[str, Document]) -> None:
    geometry = {
        a.facts["geometry"] for a in kinds(corpus_docs["powerpoint/customGeo.pptx"], "shape-style")
    }
    assert "custom" in geometry
    attached = corpus_docs["variants/PPTWithAttachments.pptm"]
    assert {a.kind for a in attached.artifacts} >= {"footer", "date-time", "slide-number"}
    template = corpus_docs["variants/SalesPropPres_TP10220213.potx"]
    assert kinds(template, "chart") and kinds(template, "smartart") and kinds(template, "table")
    summit = corpus_docs["powerpoint/aascu.org_hbcu_leadershipsummit_cooper_.pptx"]
    assert kinds(summit, "table-cell-colors") and kinds(summit, "chart")


def test_corpus_bad_packages_raise_extraction_error(corpus: Path, tmp_path: Path) -> None:
    for name in ("bad/Divino_Revelado.pptx", "bad/testPPT_protected_passtika.pptx"):
        with pytest.raises(ExtractionError):
            load(corpus / name, tmp_path)
