"""The quality report of a build on corpus files: removals per check, diversity, the sample."""

from __future__ import annotations

import csv
import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from fidelity import quality
from fidelity.core.config import Config
from fidelity.core.store import RunStore
from fidelity.pipeline import build

pytestmark = pytest.mark.slow  # whole builds: not in make test-quick

FILES = ["powerpoint/typical.pptx", "word/SolarOverview.docx"]


@pytest.fixture(scope="module")
def built(corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    base = tmp_path_factory.mktemp("quality")
    inputs = base / "in"
    inputs.mkdir()
    for name in FILES:
        shutil.copy(corpus / name, inputs / Path(name).name)
    summary = build([inputs], base / "out", Config())
    return base / "out", summary


def test_report_counts_what_each_check_removed_per_cell(built):
    out, summary = built
    report = (out / "quality.md").read_text()
    assert (
        "| application / category | candidates | guessable | ambiguous | answerable | kept |"
        in (report)
    )
    # typical.pptx: en-US deck language and the 4:3 presentation format are defaults
    language = next(line for line in report.splitlines() if line.startswith("| powerpoint / Lang"))
    assert language.split(" | ")[2] != "0"
    assert "an application default for deck-language" in report
    removed = summary["quality"]["removed"]
    assert removed["guessable"] > 0 and removed["answerable"] == 0  # offline: no model
    assert set(summary["quality"]["diversity"]) == {"word", "powerpoint"}


def test_template_diversity_folds_what_varies():
    assert quality.template("What is the title of slide 12?") == quality.template(
        "What is the title of slide 3?"
    )
    one = quality.template("What does cell B13 on sheet 'Regional sales' contain?")
    assert one == "what does cell ‹cell› on sheet ‹…› contain?"
    assert quality.template("Which typeface is the text “Sol” set in?") != one


def test_sample_is_stratified_with_empty_score_columns_and_stable(built):
    out, _ = built
    text = (out / "quality-sample.tsv").read_text()
    rows = list(csv.DictReader(text.splitlines(), delimiter="\t"))
    assert rows and list(rows[0]) == list(quality.SAMPLE_COLUMNS)
    assert all(row[score] == "" for row in rows for score in quality.SCORES)
    kept = Counter(
        (row["app"], row["category"])
        for row in map(json.loads, (out / "questions.jsonl").read_text().splitlines())
    )
    sampled = Counter((row["app"], row["category"]) for row in rows)
    assert sampled == {cell: min(n, quality.PER_CELL) for cell, n in kept.items()}
    store = RunStore(out / "run.sqlite")
    again = quality.sample_tsv(quality.sample(quality.compute(store)))
    store.close()
    assert again == text  # a fixed seed: the same sample every time
