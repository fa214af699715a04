"""Offline PowerPoint question rules and their groundedness checks."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from pptx import Presentation
from pptx.enum.shapes import MSO_SHAPE
from pptx.util import Inches

from extractors import extract_file as extract
from fidelity.core.apps import TAXONOMY
from fidelity.core.document import Candidate, Document
from fidelity.core.views import View, view_context
from filters import leakage
from filters.groundedness import check_document
from generators.rules import generate
from generators.rules.powerpoint import RULES

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "garden_review.pptx"
CORPUS_DECKS = [
    "powerpoint/SmartArt_OrgChart1.pptx",
    "powerpoint/stress013.pptx",
    "powerpoint/60810.pptx",
    "powerpoint/highlight-test-case.pptx",
    "powerpoint/aascu.org_hbcu_leadershipsummit_cooper_.pptx",
    "variants/PPTWithAttachments.pptm",
]


def load(path: Path, media: Path) -> Document:
    document = Document(sha256="5" * 64, app="powerpoint", format="pptx", source=str(path))
    return extract(path, document, media)


@pytest.fixture(scope="module")
def deck(tmp_path_factory: pytest.TempPathFactory) -> Document:
    return load(FIXTURE, tmp_path_factory.mktemp("out") / "media" / "deck")


def by_type(candidates: list[Candidate]) -> dict[str, list[Candidate]]:
    out: dict[str, list[Candidate]] = {}
    for item in candidates:
        out.setdefault(item.question_type, []).append(item)
    return out


def full_view_states_every_answer(document: Document) -> list[str]:
    """Questions whose answer the full view does not state next to its anchors."""
    full = leakage.lines(view_context(document, View("full")).text)
    return [
        c.question
        for c in generate(document)
        if leakage.test(full, c.probe).verdict not in ("fail", "unverified")
    ]


def test_every_artifact_kind_has_a_rule(deck: Document) -> None:
    assert {a.kind for a in deck.artifacts} <= set(RULES)


def test_rules_cover_the_fixture_categories(deck: Document) -> None:
    candidates = generate(deck)
    assert {c.category for c in candidates} == {a.category for a in deck.artifacts}
    types = by_type(candidates)
    (hidden,) = types["hidden-slides"]
    assert hidden.probe.value == "slide 6" and hidden.probe.anchor == ["hidden slide"]
    assert "Draft budget (internal)" in hidden.answer[0]
    fills = {c.probe.value for c in types["table-cell-fill"]}
    assert fills and fills <= {"green", "gold", "red"}
    (first,) = types["animation-first"]
    assert first.probe.value == "Step apply"
    assert {c.probe.value for c in types["shape-type"]} == {"rounded rectangle", "chevron", "oval"}
    (language,) = types["run-language"]
    assert language.probe.value == "fr-FR"
    assert types["section-of-slide"][1].probe.value == "Results"
    assert {c.probe.value for c in types["footer-text"]} == {
        "Riverside Community Garden",
        "Committee only",
    }
    (link,) = types["hyperlink-slide"]
    assert link.probe.value == "slide 3"


def test_full_view_states_every_answer(deck: Document) -> None:
    assert full_view_states_every_answer(deck) == []


def test_grounded_candidates_survive_their_ablations(deck: Document) -> None:
    outcomes = check_document(deck, generate(deck))
    by_question = {o.candidate.question_type: o for o in outcomes}
    note = by_question["note-text"]
    assert note.status == "kept"
    assert {d.view for d, _ in note.decisions} >= {"no-notes"}
    footer = by_question["footer-text"]
    assert footer.status == "kept"
    assert {d.view for d, _ in footer.decisions} >= {"no-headers-footers"}
    assert by_question["highlight-text"].status == "kept"
    assert by_question["hidden-slides"].status == "kept"
    kept = [o for o in outcomes if o.status != "rejected"]
    assert len(kept) >= 0.85 * len(outcomes)


def test_duplicated_content_is_rejected(tmp_path: Path) -> None:
    prs = Presentation()
    for _ in range(2):
        slide = prs.slides.add_slide(prs.slide_layouts[5])
        slide.shapes.title.text = "Same words"
        box = slide.shapes.add_textbox(Inches(1), Inches(2), Inches(6), Inches(1))
        box.text_frame.text = "The pump delivers 4200 litres every single hour."
    prs.save(tmp_path / "twice.pptx")
    document = load(tmp_path / "twice.pptx", tmp_path / "m")
    outcomes = check_document(document, generate(document))
    cloze = [o for o in outcomes if o.candidate.question_type == "slide-text-cloze"]
    assert cloze and all(o.status == "rejected" for o in cloze)


def test_shape_type_question_skipped_when_the_name_gives_it_away(tmp_path: Path) -> None:
    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    named = slide.shapes.add_shape(MSO_SHAPE.OVAL, Inches(1), Inches(1), Inches(2), Inches(1))
    named.text = "Start here"
    renamed = slide.shapes.add_shape(MSO_SHAPE.OVAL, Inches(4), Inches(1), Inches(2), Inches(1))
    renamed.text = "Finish"
    renamed.name = "Goal marker"
    prs.save(tmp_path / "shapes.pptx")
    document = load(tmp_path / "shapes.pptx", tmp_path / "m")
    questions = [c for c in generate(document) if c.question_type == "shape-type"]
    assert [c.question for c in questions] == [
        "What type of shape (preset geometry) is the shape holding the text “Finish” on slide 1?"
    ]


@pytest.mark.parametrize("name", CORPUS_DECKS)
def test_corpus_answers_are_stated_in_the_full_view(
    corpus: Path, extracted: Callable[[Path], Document], name: str
) -> None:
    document = extracted(corpus / name)
    assert generate(document)
    assert full_view_states_every_answer(document) == []


def test_corpus_covers_every_category(
    corpus: Path, tmp_path: Path, extracted: Callable[[Path], Document]
) -> None:
    kept: set[str] = set()
    for name in [*CORPUS_DECKS, "powerpoint/013.pptx"]:
        document = extracted(corpus / name)
        outcomes = check_document(document, generate(document))
        kept |= {o.candidate.category for o in outcomes if o.status != "rejected"}
    fixture = load(FIXTURE, tmp_path / "fixture")
    kept |= {o.candidate.category for o in check_document(fixture, generate(fixture))}
    assert kept == set(TAXONOMY["powerpoint"])
