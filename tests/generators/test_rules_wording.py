"""Every rule question of the test corpus reads as a person would write it.

Scans each candidate the offline rules draw from the corpus for the template artefacts
QUALITY.md lists: an empty slot, a doubled space, a locator pasted into a sentence,
an internal shape or system name, an unrendered field.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from fidelity.core.document import Candidate, Document
from generators.rules import generate
from tests.support.paths import CORPUS

pytestmark = pytest.mark.slow  # whole builds or corpus-wide work: not in make test-quick

FOLDERS = {"word": "docx", "excel": "xls*", "powerpoint": "pptx"}
ARTEFACTS = {
    "doubled space": re.compile(r"\S {2,}\S"),
    "empty slot": re.compile(r"\b(over|at|of|to) +(on|in|of)\b|(^|\s)''([\s.,?]|$)|“”|\(\s*\)"),
    "locator in the sentence": re.compile(r"slide \d+ / shape|shape \d+ \[|in section '"),
    "internal shape name": re.compile(
        r"\[(Rectangle|TextBox|Text Box|Group|Picture|Content Placeholder|Title|Subtitle|"
        r"Diagram|Table|Chart|Ink|Oval|Straight|PlaceHolder|Rounded Rectangle)[^\]]*\d+\]",
        re.I,
    ),
    "internal id": re.compile(r"\bpreset \d+|\bcycle\d+\b|_xlnm\.|\bZ_[0-9A-F]{8}|\.wvu\."),
    "unrendered field": re.compile(r"\{(PAGE|NUMPAGES|DATE|TIME|SECTIONPAGES)\}"),
    "joined paragraphs": re.compile(r"\w / \w"),
}


def _files() -> list[tuple[str, Path]]:
    return [
        (app, path)
        for app, pattern in FOLDERS.items()
        for path in sorted((CORPUS / app).glob(f"*.{pattern}"))
    ]


# Text quoted from the file, and formulas or LaTeX, keep the file's own spacing and slashes.
QUOTED = re.compile(r"“[^”]*”|'[^']*'|=\S.*$|\\.*$")
FROM_THE_FILE = ("doubled space", "joined paragraphs")


def _artefacts(item: Candidate) -> list[str]:
    found = []
    for text in (item.question, *item.answer):
        template = QUOTED.sub("“”", text)
        for name, pattern in ARTEFACTS.items():
            if name == "empty slot":
                hit = pattern.search(QUOTED.sub("“…”", text))
            else:
                hit = pattern.search(template if name in FROM_THE_FILE else text)
            if hit:
                found.append(f"{name}: {text[:160]}")
    return found


@pytest.mark.parametrize(("app", "path"), _files(), ids=lambda v: getattr(v, "name", v))
def test_corpus_questions_have_no_template_artefacts(
    app: str, path: Path, extracted: Callable[[Path], Document]
) -> None:
    document = extracted(path)
    problems = [problem for item in generate(document) for problem in _artefacts(item)]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("What type of chart is the chart placed over  on sheet 'Data'?", "empty slot"),
        ("What type of chart is slide 6 / shape 7 [Chart 6]?", "locator in the sentence"),
        ("Which shape on slide 3 is frontmost?  It is [TextBox 4].", "doubled space"),
        ("Which layout does the diagram use? cycle8", "internal id"),
        ("What text appears in the header? Towards a / working definition", "joined paragraphs"),
    ],
)
def test_the_scan_recognises_each_artefact(text: str, name: str) -> None:
    item = Candidate(
        id="x",
        file_sha="0",
        file="f",
        app="word",
        artifact_id="a",
        category="Text",
        question_type="t",
        question=text,
        answer=[],
        probe={"value": "v"},
        generator="rules",
        generator_version="1",
    )
    assert any(problem.startswith(name) for problem in _artefacts(item))
