"""Review import on bad input: nothing stored, every problem named; re-imports change nothing."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import openpyxl
import pytest

from fidelity.cli import main as cli
from fidelity.core.atomic import replacing, write_jsonl
from tests.support.review_support import FILL, build_run, fill_jsonl, tasks_of

pytestmark = pytest.mark.slow  # whole builds: not in make test-quick

OUTPUTS = ("review/labels.jsonl", "dataset.jsonl", "review/dropped.jsonl", "review/report.md")


@pytest.fixture(scope="module")
def built(corpus: Path, tmp_path_factory: pytest.TempPathFactory, run_folder: Path) -> Path:
    return build_run(corpus, tmp_path_factory.mktemp("review-import"), run_folder)


@pytest.fixture
def run(built: Path, tmp_path: Path) -> Path:
    out = tmp_path / "out"
    shutil.copytree(built, out)
    return out


def snapshot(out: Path) -> dict[str, bytes]:
    """Every review output (and the adjudication files) as bytes."""
    files = [out / name for name in OUTPUTS]
    files += sorted((out / "review" / "adjudication").rglob("*.*"))
    return {str(path.relative_to(out)): path.read_bytes() for path in files if path.is_file()}


def imported(run: Path, name: str, tmp_path: Path) -> list[Path]:
    """Both annotators' filled-in files of format `name`, imported once."""
    assert cli(["review", "export", str(run), "--format", name]) == 0
    filled = FILL[name](run / "review" / name, tmp_path)
    assert cli(["review", "import", str(run), *map(str, filled)]) == 0
    return filled


def refused(run: Path, files: list[Path], capsys: pytest.CaptureFixture[str]) -> str:
    """Import that must fail and store nothing; returns what it printed on stderr."""
    before = snapshot(run)
    assert cli(["review", "import", str(run), *map(str, files)]) == 2
    assert snapshot(run) == before
    return capsys.readouterr().err


def rewrite_jsonl(source: Path, target: Path, change: dict[int, dict]) -> Path:
    lines = [json.loads(line) for line in source.read_text().splitlines()]
    for number, labels in change.items():
        lines[number - 1]["labels"].update(labels)
    target.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return target


def test_values_outside_the_allowed_ones_store_nothing(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, _ = imported(run, "jsonl", tmp_path)
    dataset = (run / "dataset.jsonl").read_text().splitlines()
    assert dataset
    bad = rewrite_jsonl(first, tmp_path / "bad.jsonl", {3: {"correct": "maybe"}, 5: {"quality": 9}})
    err = refused(run, [bad], capsys)
    assert f"{bad}: line 3: labels.correct: 'maybe' is not allowed" in err
    assert "accepted: yes: yes, y, true" in err and "no: no, n, false" in err
    assert f"{bad}: line 5: labels.quality: 9 is not allowed" in err
    assert "a whole number from 1 to 5" in err
    assert "nothing stored" in err
    assert (run / "dataset.jsonl").read_text().splitlines() == dataset


def test_an_unknown_field_and_a_truncated_line_are_named(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, _ = imported(run, "jsonl", tmp_path)
    typo = rewrite_jsonl(first, tmp_path / "typo.jsonl", {2: {"corect": "yes"}})
    assert f"{typo}: line 2: labels.corect: unknown field" in refused(run, [typo], capsys)
    text = first.read_text()
    cut = tmp_path / "cut.jsonl"
    cut.write_text(text[: len(text) - 40])  # the last line loses its end
    lines = len(text.splitlines())
    err = refused(run, [cut], capsys)
    assert f"{cut}: line {lines}: (whole line): not valid JSON" in err


@pytest.mark.parametrize("name", ["labelstudio", "argilla"])
def test_a_truncated_export_names_the_file_and_line(
    name: str, run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    filled = imported(run, name, tmp_path)[0]
    pretty = json.dumps(json.loads(filled.read_text()), indent=1).splitlines()
    cut = tmp_path / f"cut-{name}.json"
    cut.write_text("\n".join(pretty[: len(pretty) // 2]))
    err = refused(run, [cut], capsys)
    assert f"{cut}: line " in err and "not valid JSON" in err and "truncated?" in err


def test_workbook_with_a_renamed_column_or_a_typed_value_stores_nothing(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, _ = imported(run, "xlsx", tmp_path)
    book = openpyxl.load_workbook(first)
    sheet = book["tasks"]
    header = [cell.value for cell in sheet[1]]
    sheet.cell(1, header.index("quality") + 1).value = "rating"
    renamed = tmp_path / "renamed.xlsx"
    book.save(renamed)
    err = refused(run, [renamed], capsys)
    assert f"{renamed}: row 1: quality: missing column" in err

    book = openpyxl.load_workbook(first)
    sheet = book["tasks"]
    sheet.cell(4, header.index("correct") + 1).value = "maybe"
    sheet.cell(6, header.index("quality") + 1).value = 4.5
    typed = tmp_path / "typed.xlsx"
    book.save(typed)
    err = refused(run, [typed], capsys)
    assert f"{typed}: row 4: correct: 'maybe' is not allowed" in err
    assert f"{typed}: row 6: quality: 4.5 is not allowed" in err

    broken = tmp_path / "broken.xlsx"
    broken.write_bytes(first.read_bytes()[:2000])
    err = refused(run, [broken], capsys)
    assert f"{broken}: (workbook): (file): not a readable .xlsx workbook" in err


def test_label_studio_and_argilla_values_are_checked(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    studio = imported(run, "labelstudio", tmp_path)[0]
    tasks = json.loads(studio.read_text())
    tasks[1]["annotations"][0]["result"][0]["value"]["choices"] = ["maybe"]
    tasks[2]["annotations"][1]["result"].append(
        {"from_name": "qualiti", "to_name": "question", "type": "rating", "value": {"rating": 3}}
    )
    bad = tmp_path / "bad-ls.json"
    bad.write_text(json.dumps(tasks))
    err = refused(run, [bad], capsys)
    assert f"{bad}: task 2 (Label Studio id 2), annotation 11: correct: 'maybe'" in err
    assert f"{bad}: task 3 (Label Studio id 3), annotation 22: qualiti: unknown control" in err

    del tasks[0]["data"]["task_id"]  # a task of some other project
    other = tmp_path / "other-ls.json"
    other.write_text(json.dumps(tasks[:1]))
    err = refused(run, [other], capsys)
    assert f"{other}: task 1 (Label Studio id 1): data.task_id: missing: not a fidelity task" in err

    records = json.loads(imported(run, "argilla", tmp_path)[0].read_text())
    records[0]["responses"]["quality"][1]["value"] = 9
    records[1]["responses"]["sentiment"] = [{"value": "positive", "user_id": "user-1"}]
    bad = tmp_path / "bad-argilla.json"
    bad.write_text(json.dumps(records))
    err = refused(run, [bad], capsys)
    assert f"{bad}: record 1 (id {records[0]['id']}), user user-2: quality: 9 is not allowed" in err
    assert f"{bad}: record 2 (id {records[1]['id']}): sentiment: unknown question" in err


def test_unknown_tasks_are_refused_or_listed_with_allow_unknown(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli(["review", "export", str(run), "--format", "jsonl"]) == 0
    first, second = fill_jsonl(run / "review" / "jsonl", tmp_path)
    lines = [json.loads(line) for line in first.read_text().splitlines()]
    lines[0]["task_id"] = "0000not-a-task"
    first.write_text("".join(json.dumps(line) + "\n" for line in lines))
    err = refused(run, [first, second], capsys)
    assert f"{first}: line 1: task_id: unknown task '0000not-a-task'" in err
    assert "--allow-unknown" in err
    assert not (run / "review" / "labels.jsonl").exists()

    assert cli(["review", "import", str(run), str(first), str(second), "--allow-unknown"]) == 0
    err = capsys.readouterr().err
    assert "skipped 1 answers to unknown tasks" in err and "0000not-a-task" in err
    labels = (run / "review" / "labels.jsonl").read_text().splitlines()
    assert len(labels) == 2 * len(tasks_of(run)) - 1


@pytest.mark.parametrize("name", sorted(FILL))
def test_reimporting_the_same_files_changes_nothing(name: str, run: Path, tmp_path: Path) -> None:
    filled = imported(run, name, tmp_path)
    adjudication = [p for p in (run / "review" / "adjudication").rglob("*") if p.is_file()]
    for path in adjudication:  # the adjudicator at work in these files: they must be left alone
        if not path.name.startswith("."):
            path.write_bytes(path.read_bytes() + b"\n")
    before = snapshot(run)
    assert cli(["review", "import", str(run), *map(str, filled)]) == 0
    assert snapshot(run) == before


def test_an_empty_answer_never_replaces_a_stored_one(run: Path, tmp_path: Path) -> None:
    first, second = imported(run, "jsonl", tmp_path)
    before = snapshot(run)
    # The untouched export (every answer empty), then a file with only a comment filled in.
    blank = run / "review" / "jsonl" / "annotator-1.jsonl"
    assert cli(["review", "import", str(run), str(blank)]) == 0
    assert snapshot(run) == before
    commented = rewrite_jsonl(blank, tmp_path / "comment.jsonl", {1: {"comment": "checked twice"}})
    assert cli(["review", "import", str(run), str(commented)]) == 0
    after = snapshot(run)
    assert after["dataset.jsonl"].count(b"\n") == before["dataset.jsonl"].count(b"\n")
    labels = [json.loads(line) for line in after["review/labels.jsonl"].splitlines()]
    task = tasks_of(run)[0].id
    mine = next(
        row for row in labels if row["task_id"] == task and row["annotator"] == "annotator-1"
    )
    assert mine["comment"] == "checked twice"
    assert mine["correct"] is True and mine["quality"] == 4


def test_atomic_write_leaves_the_old_file_when_writing_fails(tmp_path: Path) -> None:
    target = tmp_path / "dataset.jsonl"
    write_jsonl(target, [{"id": 1}])
    with pytest.raises(RuntimeError), replacing(target) as handle:
        handle.write('{"id": 2}\n')
        raise RuntimeError("disk full")
    assert target.read_text() == '{"id": 1}\n'
    assert [path.name for path in tmp_path.iterdir()] == ["dataset.jsonl"]


def test_imports_leave_no_temporary_files(run: Path, tmp_path: Path) -> None:
    imported(run, "xlsx", tmp_path)
    assert not [path for path in run.rglob("*") if path.name.endswith(".tmp")]


def test_oversized_lines_and_fields_and_bad_utf8_are_named_by_line(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A 50 MB comment, a 30,000-character one and a line that is not UTF-8: each is named
    with its line, the lines after them are still read, and nothing is stored."""
    first, _ = imported(run, "jsonl", tmp_path)
    lines = first.read_bytes().splitlines(keepends=True)
    assert len(lines) >= 5
    huge, long = json.loads(lines[0]), json.loads(lines[1])
    huge["labels"]["comment"] = "x" * 50_000_000
    long["labels"]["comment"] = "y" * 30_000
    lines[0] = (json.dumps(huge) + "\n").encode()
    lines[1] = (json.dumps(long) + "\n").encode()
    lines[2] = lines[2].replace(b'"task_id"', b'"task_id\xff"', 1)
    late = json.loads(lines[4])
    late["labels"]["quality"] = 9
    lines[4] = (json.dumps(late) + "\n").encode()
    bad = tmp_path / "hostile.jsonl"
    bad.write_bytes(b"".join(lines))
    err = refused(run, [bad], capsys)
    assert f"{bad}: line 1: (whole line): over 8388608 bytes" in err
    assert f"{bad}: line 2: labels.comment: 30000 characters, over the 20000 limit" in err
    offset = lines[2].index(b"\xff") + 1
    assert f"{bad}: line 3: (whole line): not valid UTF-8 (byte {offset}:" in err
    assert f"{bad}: line 5: labels.quality: 9 is not allowed" in err


def test_a_json_export_that_is_not_utf8_names_the_line(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    filled = imported(run, "labelstudio", tmp_path)[0]
    pretty = json.dumps(json.loads(filled.read_text()), indent=1).encode().splitlines()
    pretty[5] = pretty[5] + b"\xc3("
    bad = tmp_path / "latin.json"
    bad.write_bytes(b"\n".join(pretty))
    err = refused(run, [bad], capsys)
    assert f"{bad}: line 6: (whole line): not valid UTF-8 (byte {len(pretty[5]) - 1}:" in err
