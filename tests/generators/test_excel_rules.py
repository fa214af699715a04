"""Offline Excel question rules and their groundedness checks on the fixture workbook."""

from __future__ import annotations

from pathlib import Path

import pytest

from extractors import extract_file as extract
from fidelity.core.document import Document
from fidelity.core.views import View, view_context
from filters import leakage
from filters.groundedness import check_document
from generators.rules import generate
from generators.rules.excel import RULES

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "regional_sales.xlsx"


@pytest.fixture(scope="module")
def document(tmp_path_factory: pytest.TempPathFactory) -> Document:
    media = tmp_path_factory.mktemp("out") / "media" / "doc"
    doc = Document(sha256="1" * 64, app="excel", format="xlsx", source=str(FIXTURE))
    return extract(FIXTURE, doc, media)


def by_type(candidates: list) -> dict[str, list]:
    out: dict[str, list] = {}
    for item in candidates:
        out.setdefault(item.question_type, []).append(item)
    return out


def test_every_artifact_kind_has_a_rule(document: Document) -> None:
    assert {a.kind for a in document.artifacts} <= set(RULES)


def test_rules_cover_each_category_of_the_fixture(document: Document) -> None:
    candidates = generate(document)
    categories = {c.category for c in candidates}
    assert categories == {a.category for a in document.artifacts}
    types = by_type(candidates)
    (hidden,) = types["sheet-visibility"]
    assert hidden.probe.value == "Settings" and hidden.probe.anchor == ["hidden"]
    (lookup, _) = [c for c in types["cell-lookup"] if c.category == "TLR"]
    assert lookup.probe.value == "12.5%" and lookup.probe.anchor == ["North"]
    named = types["formula-named-range"][0]
    assert named.probe.value == "TaxRate"
    assert types["chart-title"][0].probe.value == "Sales by region"


def test_full_view_states_every_answer_near_its_anchor(document: Document) -> None:
    full = leakage.lines(view_context(document, View("full")).text)
    for candidate in generate(document):
        assert leakage.test(full, candidate.probe).verdict == "fail", candidate.question


def test_grounded_candidates_survive_their_ablations(document: Document) -> None:
    candidates = generate(document)
    outcomes = {o.candidate.question_type: o for o in check_document(document, candidates)}
    formula = outcomes["formula-named-range"]
    assert formula.status == "kept"
    assert {d.view for d, _ in formula.decisions} >= {"values-only"}
    assert outcomes["chart-title"].status == "kept"
    assert outcomes["table-style"].status == "kept"
    kept = [o for o in check_document(document, candidates) if o.status != "rejected"]
    assert len(kept) >= 0.8 * len(candidates)
