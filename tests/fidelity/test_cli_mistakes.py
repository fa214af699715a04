"""The command line as a user meets it (a subprocess on the repository's fixtures): a mistake is
one line and status 2 with nothing left behind, a run keeps its configuration for the commands
that read it, and the end of a build says where to look next."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from fidelity.cli import BROKEN_PIPE_STATUS
from tests.support.page_counts import DECLARED_PAGES_TOML

pytestmark = pytest.mark.slow  # whole builds or corpus-wide work: not in make test-quick

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"
MEMO = FIXTURES / "memo.docx"
TRUNCATED = FIXTURES / "bad" / "truncated62886.docx"


def fidelity(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`fidelity ARGS...` run from `cwd` with this checkout's packages."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("FIDELITY_RAISE_EXTRACTION_ERRORS", None)  # the truncated file is to be skipped
    command = [sys.executable, "-m", "fidelity.cli", *map(str, args)]
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def assert_one_line_mistake(result: subprocess.CompletedProcess[str], *words: str) -> str:
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, lines
    assert all(word in lines[0] for word in words), lines[0]
    return lines[0]


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One offline build of a Word file and a truncated one, from a folder whose fidelity.toml
    wants three questions per cell; the build's output and its stderr."""
    base = tmp_path_factory.mktemp("cli")
    here, elsewhere = base / "here", base / "elsewhere"
    here.mkdir()
    elsewhere.mkdir()
    (here / "fidelity.toml").write_text("[coverage]\ndefault = 3\n" + DECLARED_PAGES_TOML)
    out = base / "out"
    first = fidelity("build", MEMO, TRUNCATED, "-o", out, cwd=here)
    assert first.returncode == 0, first.stderr
    again = fidelity("build", MEMO, TRUNCATED, "-o", out, cwd=here)
    assert again.returncode == 0, again.stderr
    for name, result in (("first", first), ("again", again)):
        (base / f"{name}.out").write_text(result.stdout)
        (base / f"{name}.err").write_text(result.stderr)
    return {"base": base, "here": here, "elsewhere": elsewhere, "out": out}


def bad_config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "settings.toml"
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (
            "[modles]\nmodel = 'gpt-4o-mini'\n",
            ["unknown section [modles]", "did you mean [models]"],
        ),
        (
            "[models.generation]\nquestions_per_chnk = 3\n",
            ["[models.generation]", "'questions_per_chnk'", "did you mean 'questions_per_chunk'"],
        ),
        ("[run]\nworkrs = 2\n", ["[run]", "'workrs'", "did you mean 'workers'"]),
        ("[ingest]\nservrs = 2\n", ["[ingest]", "'servrs'", "did you mean 'servers'"]),
        ("[coverage.targets.wrod]\nTable = 2\n", ["'wrod'", "did you mean 'word'"]),
        ("[models]\nconcurrency = 'four'\n", ["[models] concurrency", "valid integer"]),
        ("[run]\nship_files = 'maybe'\n", ["[run] ship_files", "valid boolean"]),
        ("[run]\nworkers = 2\n[models\n", ["settings.toml, line 3", "not valid TOML"]),
    ],
)
def test_a_bad_configuration_is_one_line_and_no_output_folder(
    tmp_path: Path, text: str, words: list[str]
) -> None:
    config = bad_config(tmp_path, text)
    out = tmp_path / "out"
    result = fidelity("build", MEMO, "-o", out, "--config", config, cwd=tmp_path)
    assert_one_line_mistake(result, f"fidelity build: {config}", *words)
    assert not out.exists()


def test_fidelity_toml_in_the_folder_is_checked_too(tmp_path: Path) -> None:
    (tmp_path / "fidelity.toml").write_text("[modles]\nmodel = 'gpt-4o-mini'\n")
    result = fidelity("build", MEMO, "-o", tmp_path / "out", cwd=tmp_path)
    assert_one_line_mistake(result, str(tmp_path / "fidelity.toml"), "[modles]")
    assert not (tmp_path / "out").exists()


def test_inputs_and_output_folder_mistakes(tmp_path: Path) -> None:
    out = tmp_path / "out"
    missing = fidelity("build", tmp_path / "nowhere", "-o", out, cwd=tmp_path)
    assert_one_line_mistake(missing, "no such file or folder", "nowhere")
    assert not out.exists()

    a_file = tmp_path / "a-file"
    a_file.write_text("mine\n")
    onto_file = fidelity("build", MEMO, "-o", a_file, cwd=tmp_path)
    assert_one_line_mistake(onto_file, str(a_file), "is a file")
    assert a_file.read_text() == "mine\n"

    no_office = tmp_path / "notes"
    no_office.mkdir()
    (no_office / "readme.bin").write_text("not a document\n")
    empty = fidelity("build", no_office, "-o", out, cwd=tmp_path)
    assert_one_line_mistake(empty, f"no Office files in {no_office}", "1 other file")
    assert not out.exists()

    config_missing = fidelity("coverage", tmp_path, "--config", tmp_path / "x.toml", cwd=tmp_path)
    assert_one_line_mistake(config_missing, "no run in")
    nothing = fidelity("coverage", tmp_path / "nothing", cwd=tmp_path)
    assert_one_line_mistake(nothing, "no run in")
    assert not (tmp_path / "nothing").exists()


def test_explain_on_a_file_not_in_the_run(run: dict[str, Path]) -> None:
    other = FIXTURES / "SolarOverview.docx"
    result = fidelity("explain", other, "-o", run["out"], cwd=run["elsewhere"])
    assert_one_line_mistake(result, f"fidelity explain: {other} is not in the run")


def test_the_run_keeps_its_configuration(run: dict[str, Path]) -> None:
    out, here, elsewhere = run["out"], run["here"], run["elsewhere"]
    assert f"config: {here / 'fidelity.toml'}" in (run["base"] / "first.err").read_text()
    below_here = fidelity("coverage", out, "--below", cwd=here)
    below_elsewhere = fidelity("coverage", out, "--below", cwd=elsewhere)
    assert below_here.returncode == below_elsewhere.returncode == 0
    assert below_here.stdout == below_elsewhere.stdout
    assert f"config: the run's, from {here / 'fidelity.toml'}" in below_elsewhere.stderr
    # Three wanted per cell: every cell is below its target, not only the cells with a default.
    short_rows = [line for line in below_elsewhere.stdout.splitlines() if line.startswith("| ")]
    assert len(short_rows) > 20

    (elsewhere / "none.toml").write_text("")
    told = fidelity("coverage", out, "--below", "--config", elsewhere / "none.toml", cwd=here)
    assert told.returncode == 0
    assert told.stdout != below_here.stdout
    assert "(given;" in told.stderr


def test_the_end_of_a_build_points_onward(run: dict[str, Path]) -> None:
    out = run["out"]
    first = (run["base"] / "first.out").read_text().splitlines()
    assert f"report: {out / 'report.html'}" in first
    assert f"skipped: 1 files, each with its reason in {out / 'skipped.jsonl'}" in first
    assert (out / "report.html").is_file()
    assert not any(line.startswith("nothing new to do") for line in first)
    # Progress without a terminal: plain lines, the last one at 100%.
    errors = (run["base"] / "first.err").read_text().splitlines()
    assert "files: 2/2 files (100%)" in " ".join(errors)
    assert not any("\r" in line for line in errors)

    again = (run["base"] / "again.out").read_text().splitlines()
    assert (
        again[0]
        == f"nothing new to do: every input file was processed by an earlier build of {out}"
    )


def test_a_closed_pipe_ends_quietly(run: dict[str, Path]) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "fidelity.cli", "coverage", str(run["out"])]
    with subprocess.Popen(
        command, cwd=run["elsewhere"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    ) as reader_gone:
        assert reader_gone.stdout is not None and reader_gone.stderr is not None
        reader_gone.stdout.close()  # like `| head` having read enough before the first write
        errors = reader_gone.stderr.read().decode()
        status = reader_gone.wait(timeout=120)
    assert status == BROKEN_PIPE_STATUS
    assert errors.splitlines() == [f"config: the run's, from {run['here'] / 'fidelity.toml'}"]


def test_a_usage_mistake_is_one_line_too(tmp_path: Path) -> None:
    result = fidelity("build", MEMO, "--workers", "many", "-o", tmp_path / "out", cwd=tmp_path)
    assert_one_line_mistake(result, "fidelity build: argument --workers", "fidelity build --help")
    assert not (tmp_path / "out").exists()


def test_a_run_stored_by_an_earlier_version_is_refused_in_one_line(tmp_path: Path) -> None:
    import sqlite3

    from fidelity.core.document import Document
    from fidelity.core.store import FORMAT_KEY, open_store

    out = tmp_path / "old"
    store = open_store(out)
    document = Document(sha256="1" * 64, app="word", format="docx", source=str(MEMO))
    store.put_file(document.sha256, str(MEMO), "done", document=document)
    store.close()
    with sqlite3.connect(out / "run.sqlite") as db:  # as a run before view declarations left it
        db.execute("DELETE FROM meta WHERE key=?", (FORMAT_KEY,))
    for command in (["explain", MEMO, "-o", out], ["coverage", out], ["build", MEMO, "-o", out]):
        result = fidelity(*command, cwd=tmp_path)
        assert_one_line_mistake(result, "earlier version of fidelity", "new output folder")
    fresh = tmp_path / "fresh"
    open_store(fresh).close()
    open_store(fresh).close()  # a new run's own format is read back
