"""Human review round trip: every export format filled in and read back, agreement, adjudication,
the final dataset and grader calibration."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import openpyxl
import pytest
from PIL import Image

from fidelity.cli import main as cli
from fidelity.core.document import Decision
from fidelity.core.store import open_store
from fidelity.review.agreement import agreement, cohen_kappa, percent_agreement
from fidelity.review.calibration import calibrate
from fidelity.review.formats import FORMATS
from fidelity.review.formats import labelstudio as ls
from fidelity.review.formats import xlsx as sheet_format
from fidelity.review.labels import Label
from fidelity.review.resolve import resolve_task
from fidelity.review.tasks import Task, grader_score
from tests.support.review_support import (
    FILL,
    answers,
    build_run,
    expected_dataset,
    expected_states,
    fill_jsonl,
    tasks_of,
)

pytestmark = pytest.mark.slow  # whole builds: not in make test-quick


@pytest.fixture(scope="module")
def built(corpus: Path, tmp_path_factory: pytest.TempPathFactory, run_folder: Path) -> Path:
    return build_run(corpus, tmp_path_factory.mktemp("review"), run_folder)


@pytest.fixture
def run(built: Path, tmp_path: Path) -> Path:
    out = tmp_path / "out"
    shutil.copytree(built, out)
    return out


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_round_trip_through_every_format(
    name: str, run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tasks = tasks_of(run)
    assert len(tasks) >= 10
    assert cli(["review", "export", str(run), "--format", name]) == 0
    filled = FILL[name](run / "review" / name, tmp_path)
    assert cli(["review", "import", str(run), *map(str, filled)]) == 0
    printed = capsys.readouterr().out
    assert "correct:" in printed and "kappa" in printed

    labels = [
        json.loads(line) for line in (run / "review" / "labels.jsonl").read_text().splitlines()
    ]
    assert len(labels) == 2 * len(tasks)
    order = {task.id: number for number, task in enumerate(tasks)}
    people = sorted({label["annotator"] for label in labels})
    assert len(people) == 2
    for label in labels:
        given = answers(order[label["task_id"]], people.index(label["annotator"]) + 1)
        assert label["correct"] == (given["correct"] == "yes")
        assert label["evidence_located"] == (given["evidence_located"] == "yes")
        assert label["quality"] == given["quality"]
        assert label["evidence_mark"]

    agreed, split = expected_states(len(tasks))
    report = (run / "review" / "report.md").read_text()
    assert f"{agreed} agreed" in report and f"{split} adjudicate" in report
    dataset = [json.loads(line) for line in (run / "dataset.jsonl").read_text().splitlines()]
    assert len(dataset) == expected_dataset(len(tasks))
    # Task 0: both annotators made the same revision; it is in the dataset with the original.
    first = next(row for row in dataset if row["id"] == tasks[0].id)
    assert first["query"] == "Revised question 0?"
    assert first["atomic_assertions"] == ["Revised statement 0.", "Second statement."]
    revision = first["provenance"]["revision"]
    assert revision["original"] == {"question": tasks[0].question, "answer": tasks[0].answer}
    assert len(revision["by"]) == 2
    assert all(row["provenance"]["revision"] is None for row in dataset if row is not first)
    adjudication = run / "review" / "adjudication" / name
    assert adjudication.is_dir() and any(adjudication.iterdir())


def test_label_studio_tasks_match_the_labeling_config(run: Path) -> None:
    paths = FORMATS["labelstudio"].export(tasks_of(run), run / "ls", run, "review", {})
    tasks = json.loads(paths[0].read_text())
    config = paths[1].read_text()
    variables = set(re.findall(r'value="\$(\w+)"', config))
    controls = dict(re.findall(r'<(Choices|Rating|Labels|TextArea) name="(\w+)"', config))
    assert set(controls) == {"Choices", "Rating", "Labels", "TextArea"}
    assert isinstance(tasks, list) and tasks
    for task in tasks:
        assert set(task) == {"data"}  # Label Studio's basic import format
        assert variables <= set(task["data"])
        assert all(isinstance(value, str) and value for value in task["data"].values())
    names = set(re.findall(r'<\w+ name="(\w+)" toName=', config))
    assert {"correct", "evidence_located", "quality", "evidence_mark", "comment"} <= names


def test_images_are_inlined_and_embedded(run: Path, tmp_path: Path) -> None:
    picture = tmp_path / "media" / "slide-001.png"
    picture.parent.mkdir()
    Image.new("RGB", (400, 300), "red").save(picture)
    task = Task(
        id="t1",
        question="Q?",
        answer=["A."],
        app="powerpoint",
        category="Image",
        question_type="image",
        file="deck.pptx",
        file_sha="0" * 64,
        artifact_id="a",
        locator="slide 1",
        evidence_text="text",
        evidence_html="<table><tr><td>1</td></tr></table>",
        image="media/slide-001.png",
        image_kind="slide",
        grade=None,
    )
    data = ls.task_json(task, tmp_path, "review", [])["data"]
    assert data["image"].startswith("data:image/png;base64,")
    assert "<table>" in data["evidence_html"] and "<img" not in data["evidence_html"]
    paths = sheet_format.export([task], tmp_path / "x", tmp_path, "review", {})
    book = openpyxl.load_workbook(paths[0])
    assert len(book["tasks"]._images) == 1
    assert sheet_format.read(paths[0])[0][0].task_id == "t1"


def test_adjudication_decides_and_unlocatable_evidence_is_dropped(
    run: Path, tmp_path: Path
) -> None:
    tasks = tasks_of(run)
    assert cli(["review", "export", str(run), "--format", "jsonl"]) == 0
    filled = fill_jsonl(run / "review" / "jsonl", tmp_path)
    assert cli(["review", "import", str(run), *map(str, filled)]) == 0
    before = len((run / "dataset.jsonl").read_text().splitlines())
    sheet = run / "review" / "adjudication" / "jsonl" / "adjudicator.jsonl"
    lines = [json.loads(line) for line in sheet.read_text().splitlines()]
    agreed, split = expected_states(len(tasks))
    assert len(lines) == split and all(len(line["previous"]) == 2 for line in lines)
    located_count = 0
    for number, line in enumerate(lines):
        located = number % 2 == 0 or line["task_id"] == tasks[2].id
        located_count += located
        line["labels"].update(correct="yes", evidence_located="yes" if located else "no", quality=5)
        if line["task_id"] == tasks[2].id:  # one annotator revised it: the adjudicator decides
            assert line["previous"][0]["revised_question"] == "Revised question 2?"
            line["labels"]["revised_question"] = "Adjudicated question 2?"
    decided = tmp_path / "adjudicated.jsonl"
    decided.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    assert cli(["review", "import", str(run), str(decided)]) == 0
    dataset = [json.loads(line) for line in (run / "dataset.jsonl").read_text().splitlines()]
    assert len(dataset) == before + located_count  # the located evidence enters the dataset
    second = next(row for row in dataset if row["id"] == tasks[2].id)
    assert second["query"] == "Adjudicated question 2?"
    assert second["atomic_assertions"] == tasks[2].answer
    assert second["provenance"]["revision"]["by"] == ["adjudicator"]
    assert "revision" in second["provenance"]["review"]["disagreements"]
    dropped = [
        json.loads(line)
        for line in (run / "review" / "dropped.jsonl").read_text().split("\n")
        if line
    ]
    reasons = {row["reason"] for row in dropped}
    assert "the evidence could not be located in the file" in reasons
    row = next(r for r in dataset if r["provenance"]["review"]["adjudication"])
    assert row["provenance"]["review"]["state"] == "adjudicated"
    assert row["quality"] == 5
    assert {"query", "file", "atomic_assertions", "taxonomy", "evidence", "provenance"} <= set(row)
    assert row["evidence"]["locator"] and row["taxonomy"]["category"]
    assert any(check["check"] == "no-context" for check in row["provenance"]["checks"])
    assert len(row["provenance"]["review"]["annotations"]) == 2
    assert not (run / "review" / "adjudication" / "jsonl" / "adjudicator.jsonl").read_text() == ""


# ---- agreement and calibration on hand-made examples ---------------------------------------


def test_percent_agreement_and_kappa_on_a_hand_made_example() -> None:
    # 50 items: both yes 20, A yes/B no 5, A no/B yes 10, both no 15.
    # p_o = 35/50 = 0.7; p_e = 0.5*0.6 + 0.5*0.4 = 0.5; kappa = (0.7-0.5)/(1-0.5) = 0.4
    pairs = [(True, True)] * 20 + [(True, False)] * 5 + [(False, True)] * 10
    pairs += [(False, False)] * 15
    assert percent_agreement(pairs) == pytest.approx(0.7)
    assert cohen_kappa(pairs) == pytest.approx(0.4)
    assert cohen_kappa([(1, 2), (2, 1)], quadratic=True) == pytest.approx(-1.0)
    assert cohen_kappa([(1, 1), (5, 5), (3, 3)], quadratic=True) == pytest.approx(1.0)
    assert cohen_kappa([(True, True)] * 3) is None  # one shared label: undefined
    labels: dict[str, list[Label]] = {}
    for number, (a, b) in enumerate(pairs):
        labels[str(number)] = [
            Label(str(number), "ann", correct=a, evidence_located=True, quality=4),
            Label(str(number), "bob", correct=b, evidence_located=True, quality=4),
        ]
    figures = {figure.field: figure for figure in agreement(labels)}
    assert figures["correct"].n == 50
    assert figures["correct"].kappa == pytest.approx(0.4)
    assert figures["evidence_located"].percent == 1.0


def test_calibration_suggests_the_threshold_that_matches_humans() -> None:
    # Humans keep quality >= 3; the grader gives 4-5 to those and 1-3 to the rest.
    pairs = [(5, 5), (4, 4), (4, 3), (5, 4), (3, 2), (2, 1), (1, 2), (3, 1)]
    result = calibrate(pairs, human_ok=3)
    assert result is not None
    assert result.suggested == 4
    best = next(t for t in result.thresholds if t.threshold == 4)
    assert best.accuracy == 1.0 and best.kappa == pytest.approx(1.0)
    assert result.exact == pytest.approx(2 / 8)
    assert result.within_one == pytest.approx(7 / 8)


def test_grader_scores_are_read_from_stored_grade_decisions(run: Path, tmp_path: Path) -> None:
    def grade(answered: str) -> Decision:
        return Decision(
            candidate_id="c",
            check="grade",
            view="full",
            context_hash="",
            answered=answered,
            match="llm",
            verdict="pass",
            reason="",
        )

    assert grader_score([grade('{"score": 4}')]) == 4.0
    assert grader_score([grade('{"clarity": 3, "grounding": 5}')]) == 4.0
    assert grader_score([grade("clarity 4, precision 5, value 3")]) == 4.0
    assert grader_score([grade("score: 2")]) == 2.0
    assert grader_score([]) is None

    tasks = tasks_of(run)
    store = open_store(run)
    try:
        with store.transaction():
            for number, task in enumerate(tasks):
                score = answers(number, 1)["quality"] if number % 3 else 2
                store.add_decision(
                    Decision(
                        candidate_id=task.id,
                        check="grade",
                        view="full",
                        context_hash="",
                        answered=json.dumps({"score": score}),
                        match="llm",
                        verdict="pass",
                        reason="",
                    )
                )
    finally:
        store.close()
    assert cli(["review", "export", str(run), "--format", "jsonl"]) == 0
    filled = fill_jsonl(run / "review" / "jsonl", tmp_path)
    assert cli(["review", "import", str(run), *map(str, filled)]) == 0
    report = (run / "review" / "report.md").read_text()
    assert "Suggested grader threshold" in report
    dataset = [json.loads(line) for line in (run / "dataset.jsonl").read_text().splitlines()]
    assert all(row["provenance"]["grader_score"] in (2.0, 4.0) for row in dataset)


def test_an_edit_needs_both_annotators_or_the_adjudicator() -> None:
    def label(who: str, quality: int, question: str = "", round_: str = "review") -> Label:
        return Label("t", who, round_, True, True, quality=quality, revised_question=question)

    both = resolve_task("t", [label("a", 5, "Better?"), label("b", 5, "Better?")])
    assert both.state == "agreed" and both.revision == {
        "question": "Better?",
        "answer": None,
        "by": ["a", "b"],
    }
    # Agreed edit, split on quality: the adjudicator without an edit keeps it.
    split = [label("a", 5, "Better?"), label("b", 1, "Better?")]
    kept = resolve_task("t", [*split, label("judge", 4, round_="adjudication")])
    assert kept.state == "adjudicated" and kept.revision["by"] == ["a", "b"]

    one = [label("a", 4, "Better?"), label("b", 4)]
    assert resolve_task("t", one).state == "adjudicate"
    assert resolve_task("t", one).disagreements == ["revision"]
    original = resolve_task("t", [*one, label("judge", 4, round_="adjudication")])
    assert original.state == "adjudicated" and original.revision is None
    judged = resolve_task("t", [*one, label("judge", 4, "Best?", "adjudication")])
    assert judged.revision == {"question": "Best?", "answer": None, "by": ["judge"]}
