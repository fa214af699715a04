"""Curators' hand-written items come in through `review import` and pass the file's filters."""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from pathlib import Path

import openpyxl
import pytest

from fidelity import coverage
from fidelity.cli import main as cli
from fidelity.core.config import CoverageConfig
from fidelity.core.document import Document
from fidelity.pipeline import open_store
from tests.support.review_support import build_run, tasks_of

pytestmark = pytest.mark.slow  # whole builds: not in make test-quick


@pytest.fixture(scope="module")
def built(corpus: Path, tmp_path_factory: pytest.TempPathFactory, run_folder: Path) -> Path:
    return build_run(corpus, tmp_path_factory.mktemp("review-items"), run_folder)


@pytest.fixture
def run(built: Path, tmp_path: Path) -> Path:
    out = tmp_path / "out"
    shutil.copytree(built, out)
    return out


def memo(out: Path) -> Document:
    store = open_store(out)
    try:
        return next(d for d in store.documents() if d.source.endswith("memo.docx"))
    finally:
        store.close()


def words(text: str) -> list[str]:
    return re.findall(r"[a-z]{6,}", text.lower())


def pick(document: Document) -> tuple[str, str, str]:
    """(a paragraph's locator, a word only it states, a word other parts of the file state too)."""
    spread = Counter(w for a in document.artifacts for w in set(words(a.text)))
    for artifact in document.artifacts:
        if artifact.category != "Text":
            continue
        own = [w for w in words(artifact.text) if spread[w] == 1]
        shared = [w for w in words(artifact.text) if spread[w] >= 2]
        if own and shared:
            return artifact.locator, own[0], shared[0]
    raise AssertionError("memo.docx has no paragraph with both kinds of word")


def counts(out: Path, cell: tuple[str, str]) -> tuple[int, int]:
    store = open_store(out)
    try:
        tally = coverage.compute(store, CoverageConfig())[cell]
        return tally.candidates, tally.kept
    finally:
        store.close()


def item_line(locator: str, value: str, question: str) -> str:
    item = {
        "file": "memo.docx",
        "locator": locator,
        "question": question,
        "answer": [f"The paragraph says “{value}”."],
        "value": value,
    }
    return json.dumps({"annotator": "curator", "new_item": item}) + "\n"


def test_hand_written_items_are_filtered_before_they_count(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    locator, own, shared = pick(memo(run))
    cell = ("word", "Text")
    candidates, kept = counts(run, cell)
    tasks = len(tasks_of(run))
    items = tmp_path / "curator.jsonl"
    # ("the text", not "the paragraph": memo's own word is "paragraph", which the question
    # would then give away and the guessability check rightly rejects)
    items.write_text(
        item_line(locator, own, f"Which word does the text at {locator} use? (own)")
        + item_line(locator, shared, f"Which word does the text at {locator} use? (shared)")
    )
    assert cli(["review", "import", str(run), str(items)]) == 0
    printed = capsys.readouterr().out
    assert re.search(r"line 1 of .*: word/Text, (kept|unverified)", printed), printed
    assert re.search(r"line 2 of .*: word/Text, rejected \(answerable from view", printed)
    assert counts(run, cell) == (candidates + 2, kept + 1)
    assert f"the cell has {kept + 1} of " in printed

    questions = [json.loads(line) for line in (run / "questions.jsonl").read_text().splitlines()]
    mine = [row for row in questions if row["generator"] == "human"]
    assert len(mine) == 1 and mine[0]["question"].endswith("(own)")
    assert mine[0]["generator_version"] == "curator:curator"
    assert any(check["check"].startswith("ablation") for check in mine[0]["checks"])
    rejected = (run / "rejected.jsonl").read_text()
    assert "(shared)" in rejected
    assert len(tasks_of(run)) == tasks + 1  # the kept item is now a review task

    assert cli(["review", "import", str(run), str(items)]) == 0  # again: nothing new
    assert "already stored" in capsys.readouterr().out
    assert counts(run, cell) == (candidates + 2, kept + 1)


def test_an_item_naming_no_evidence_stores_nothing(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    locator, own, _ = pick(memo(run))
    items = tmp_path / "curator.jsonl"
    items.write_text(
        item_line(locator, own, "A good item?")
        + item_line("paragraph 9999", own, "Where is this?")
        + json.dumps({"new_item": {"file": "memo.docx", "question": "No answer?"}})
        + "\n"
    )
    before = counts(run, ("word", "Text"))
    assert cli(["review", "import", str(run), str(items)]) == 2
    err = capsys.readouterr().err
    assert f"{items}: line 3: locator: required for a hand-written item" in err
    assert f"{items}: line 3: answer: required for a hand-written item" in err
    assert counts(run, ("word", "Text")) == before

    items.write_text(
        item_line(locator, own, "A good item?") + item_line("paragraph 9999", own, "?")
    )
    assert cli(["review", "import", str(run), str(items)]) == 2
    err = capsys.readouterr().err
    assert f"{items}: line 2: locator: 'paragraph 9999' is not in memo.docx" in err
    assert counts(run, ("word", "Text")) == before


def test_a_workbook_row_without_a_task_id_is_a_hand_written_item(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    locator, own, _ = pick(memo(run))
    candidates, kept = counts(run, ("word", "Text"))
    assert cli(["review", "export", str(run), "--format", "xlsx"]) == 0
    book = openpyxl.load_workbook(run / "review" / "xlsx" / "annotator-1.xlsx")
    sheet = book["tasks"]
    header = [cell.value for cell in sheet[1]]
    row = sheet.max_row + 1
    given = {
        "annotator": "curator",
        "file": "memo.docx",
        "locator": locator,
        "question": "Which unusual word does the memo use? (workbook)",
        "answer": f"The memo uses “{own}”.",
        "evidence mark": own,
    }
    for name, value in given.items():
        sheet.cell(row, header.index(name) + 1).value = value
    sheet.cell(row + 1, header.index("question") + 1).value = "Half an item?"
    filled = tmp_path / "curator.xlsx"
    book.save(filled)
    assert cli(["review", "import", str(run), str(filled)]) == 2
    err = capsys.readouterr().err
    assert f"{filled}: row {row + 1}: file: required for a hand-written item" in err
    assert counts(run, ("word", "Text")) == (candidates, kept)

    book = openpyxl.load_workbook(filled)  # (a saved workbook's pictures cannot be saved again)
    book["tasks"].cell(row + 1, header.index("question") + 1).value = None
    fixed = tmp_path / "curator-fixed.xlsx"
    book.save(fixed)
    assert cli(["review", "import", str(run), str(fixed)]) == 0
    assert re.search(rf"row {row} of .*: word/Text, (kept|unverified)", capsys.readouterr().out)
    assert counts(run, ("word", "Text")) == (candidates + 1, kept + 1)
