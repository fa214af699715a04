"""Regeneration: a short cell rises to its target from the corpus; nothing else changes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from fidelity.cli import main as cli
from fidelity.core.config import Config, CoverageConfig
from fidelity.core.store import open_store
from fidelity.coverage import compute
from fidelity.pipeline import build
from fidelity.regen import regen
from generators import rules
from tests.support.page_counts import DECLARED_PAGES

pytestmark = pytest.mark.slow  # whole builds: not in make test-quick

FILES = ("filenames.docx", "docx-tables.docx", "memo.docx")


def rows(out: Path) -> dict[str, dict]:
    found = {}
    for name in ("questions.jsonl", "rejected.jsonl"):
        for line in (out / name).read_text().splitlines():
            row = json.loads(line)
            found[row["id"]] = row
    return found


@pytest.fixture(scope="module")
def built(corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("regen")
    inputs = base / "in"
    inputs.mkdir()
    for name in FILES:
        shutil.copy(corpus / "word" / name, inputs / name)
    out = base / "out"
    build([inputs], out, Config(extra=DECLARED_PAGES))
    return out


def kept(out: Path, app: str, category: str) -> int:
    store = open_store(out)
    try:
        return compute(store, CoverageConfig())[(app, category)].kept
    finally:
        store.close()


def test_wider_rules_are_a_superset_of_the_default(built: Path) -> None:
    store = open_store(built)
    try:
        documents = list(store.documents())
    finally:
        store.close()
    for document in documents:
        default = [c.id for c in rules.generate(document)]
        wide = [c.id for c in rules.generate(document, widen=10)]
        assert set(default) <= set(wide)
    assert any(len(rules.generate(d, widen=10)) > len(rules.generate(d)) for d in documents), (
        "lifting the caps should draw more table cells or sentences somewhere"
    )


def test_regen_raises_one_cell_to_target_without_touching_others(
    built: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    shutil.copytree(built, out)
    before = rows(out)
    start = kept(out, "word", "Table")
    target = start + 4
    config = Config(coverage=CoverageConfig(targets={"word": {"Table": target}}))
    reports = regen(out, config, app="word", category="Table")
    assert [(r.label, r.before, r.after, r.target) for r in reports] == [
        ("word/Table", start, target, target)
    ]
    assert reports[0].met and reports[0].drawn >= 4
    after = rows(out)
    for row_id, row in before.items():  # nothing lost, nothing changed
        assert after[row_id]["status"] == row["status"]
        assert after[row_id]["checks"] == row["checks"]
    new = [row for row_id, row in after.items() if row_id not in before]
    assert new and {row["category"] for row in new} == {"Table"}
    for row in new:  # new candidates went through the same filters
        checks = [check["check"] for check in row["checks"]]
        assert checks[:2] == ["guessable", "no-context"]
        assert any(c.startswith("ablation:") for c in checks)
    assert "| word | Table |" in (out / "coverage.md").read_text()
    again = regen(out, config, app="word", category="Table")
    assert again == [] and rows(out).keys() == after.keys()


def test_regen_says_which_cells_need_more_documents(
    built: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    shutil.copytree(built, out)
    assert cli(["regen", str(out), "--app", "word", "--category", "Table", "--target", "500"]) == 0
    first = capsys.readouterr().out
    assert "still short" in first and "add documents" in first
    assert first.splitlines()[-1] == f"report: {out / 'report.html'}"
    count = len(rows(out))
    assert cli(["regen", str(out), "--app", "word", "--category", "Table"]) == 0
    second = capsys.readouterr().out
    assert "0 new candidates" in second  # the remembered target; the corpus is used up
    assert len(rows(out)) == count
    assert cli(["regen", str(out), "--app", "word", "--category", "Slide Text"]) == 2
