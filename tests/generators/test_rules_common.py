"""Rules shared by the Word and PowerPoint rule modules: document properties, alt text, charts."""

from __future__ import annotations

import zipfile
from datetime import datetime
from pathlib import Path

import docx
import pptx
import pytest

from extractors.ooxml.props import metadata_artifacts
from fidelity.core.document import Artifact, Document
from fidelity.core.locator import Locator
from fidelity.core.xmlsafe import Package
from generators.rules import common, powerpoint, word

CUSTOM = """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/custom-properties"
 xmlns:vt="http://schemas.openxmlformats.org/officeDocument/2006/docPropsVTypes">
<property fmtid="{D5CDD505-2E9C-101B-9397-08002B2CF9AE}" pid="2" name="Project code">
<vt:lpwstr>ALPHA-7</vt:lpwstr></property>
<property fmtid="{D5CDD505-2E9C-101B-9397-08002B2CF9AE}" pid="3"
 name="MSIP_Label_0001_Enabled"><vt:lpwstr>yes-enabled</vt:lpwstr></property>
<property fmtid="{D5CDD505-2E9C-101B-9397-08002B2CF9AE}" pid="4" name="Reviewed">
<vt:lpwstr>true</vt:lpwstr></property>
</Properties>"""

APPS = {"word": (word.RULES, "docx"), "powerpoint": (powerpoint.RULES, "pptx")}


def _with_properties(path: Path) -> Path:
    """Add a custom-properties part to a saved file."""
    with zipfile.ZipFile(path, "a") as package:
        package.writestr("docProps/custom.xml", CUSTOM)
    return path


def _built(app: str, tmp_path: Path) -> Path:
    made = docx.Document() if app == "word" else pptx.Presentation()
    props = made.core_properties
    props.title = "Quarterly garden review"
    props.author = "Dana Reyes"
    props.category = "7"
    props.keywords = "false"
    props.created = datetime(2021, 3, 12, 9, 30)
    path = tmp_path / f"props.{APPS[app][1]}"
    made.save(path)
    return _with_properties(path)


def _metadata_candidates(app: str, tmp_path: Path) -> dict[str, str]:
    """question type -> question, from the app's metadata rule over its file's properties."""
    path = _built(app, tmp_path)
    document = Document(sha256="7" * 64, app=app, format=path.suffix[1:], source=str(path))
    with Package(path) as package:
        artifacts = metadata_artifacts(package)
    rule = APPS[app][0]["metadata"]
    return {c.question_type: c.question for a in artifacts for c in rule(document, a)}


@pytest.mark.parametrize("app", APPS)
def test_property_rule_skips_tool_written_and_trivial_values(app: str, tmp_path: Path) -> None:
    asked = _metadata_candidates(app, tmp_path)
    assert "metadata-Project code" in asked
    assert {"metadata-title", "metadata-creator", "metadata-created"} <= set(asked)
    # A sensitivity label, a boolean and a one-character value make no question.
    assert not {"metadata-MSIP_Label_0001_Enabled", "metadata-Reviewed"} & set(asked)
    assert not {"metadata-category", "metadata-keywords", "metadata-revision"} & set(asked)


def test_property_questions_name_the_file_by_its_application(tmp_path: Path) -> None:
    asked = {app: _metadata_candidates(app, tmp_path) for app in APPS}
    assert set(asked["word"]) <= set(asked["powerpoint"])
    assert "the document's author" in asked["word"]["metadata-creator"]
    assert "the presentation's author" in asked["powerpoint"]["metadata-creator"]
    assert asked["word"]["metadata-title"] == "What title is recorded in the document's properties?"
    assert "presentation's “Title” property" in asked["powerpoint"]["metadata-title"]


@pytest.mark.parametrize(
    ("alt", "expected"),
    [
        ("Picture 3", False),
        ("ink 2", False),
        ("scan_0042.bmp", False),
        ("short", False),
        ("Bar chart of rainfall by month", True),
    ],
)
def test_alt_text_rules_agree_on_what_describes_an_image(alt: str, expected: bool) -> None:
    assert common.described(alt) is expected
    image = Artifact(
        id="img-1",
        category="Image",
        kind="image",
        modality="visual",
        where=Locator(slide=1),
        facts={"alt_text": alt, "slide": 1, "shape_name": "Picture 3"},
    )
    for app, (rules, extension) in APPS.items():
        document = Document(sha256="8" * 64, app=app, format=extension, source="x")
        assert bool(rules["image"](document, image)) is expected, app


def test_charts_are_asked_about_by_one_shared_rule() -> None:
    assert word.RULES["chart"] is powerpoint.RULES["chart"] is common.chart_questions


@pytest.mark.parametrize(
    "text",
    [
        "Fluctuat: Poly, Inv, F1a, F1b, idem, …",
        "Vector DBs, specialized data prep vendors, …",
        "Portfolio Management, Foreign Exchange, Systems Management, Statistical Analysis, "
        "Financial Consolidation, General Ledger, CIM, Plant Control",
    ],
)
def test_a_run_of_fragments_is_no_sentence_to_blank(text: str) -> None:
    assert not common.is_sentence(text)
    assert common.cloze_spans(text) == []


def test_a_cloze_never_blanks_a_stock_word_or_the_sentence_s_first_word() -> None:
    text = (
        "Regardless of the structure of the Ostrava team, the goal is to solve it quickly.\n"
        "Practice makes perfect so build on the Halvorsen platform everybody created together."
    )
    blanks = [span for _, span in common.cloze_spans(text)]
    assert blanks and not {"Regardless", "Practice", "together"} & set(blanks)
    assert set(blanks) == {"Ostrava", "Halvorsen"}  # names only: English fills the rest
    assert common.is_sentence("However, he said, the plan failed badly in the second year.")
