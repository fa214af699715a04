"""The build end to end, offline: outputs, determinism, resume after a kill, bad input, explain."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import zipfile
from pathlib import Path

import docx
import pytest

from fidelity.cli import main as cli
from fidelity.core.config import Config
from fidelity.pipeline import build
from tests.support.page_counts import DECLARED_PAGES, declared_pages_config

pytestmark = pytest.mark.slow  # whole builds: not in make test-quick

ROOT = Path(__file__).resolve().parents[2]
REQUIRED = {"id", "file", "app", "category", "artifact_id", "question", "answer", "generator"}
OUTPUTS = ("questions.jsonl", "rejected.jsonl", "skipped.jsonl", "coverage.md")


RUSSIAN_REPORT = [
    "В прошлом году лаборатория провела сорок два опыта с новыми солнечными панелями.",
    "Средняя мощность панели составила триста десять ватт при температуре двадцать пять градусов.",
    "Руководитель проекта Анна Петрова предложила продолжить испытания зимой.",
    "Бюджет на следующий год утверждён в размере двух миллионов рублей.",
]


def word_inputs(corpus: Path, target: Path, names: list[str]) -> Path:
    target.mkdir(parents=True, exist_ok=True)
    for name in names:
        shutil.copy(corpus / "word" / name, target / name)
    return target


def rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line]


@pytest.fixture(scope="module")
def small_run(corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("run")
    # files whose headers, notes and comments say something of their own (a header reading
    # "This is the header text." is a giveaway the rules do not ask)
    names = ["memo.docx", "notes.docx", "Comment015.docx", "SolarOverview.docx", "stress016.docx"]
    inputs = word_inputs(corpus, base / "in", names)
    out = base / "out"
    build([inputs], out, Config())
    return inputs, out


def test_outputs_have_the_promised_shape(small_run: tuple[Path, Path]) -> None:
    _, out = small_run
    accepted = rows(out / "questions.jsonl")
    rejected = rows(out / "rejected.jsonl")
    assert accepted and rejected
    for row in accepted:
        assert REQUIRED <= row.keys()
        assert row["mode"] == "offline"
        assert row["status"] in ("kept", "unverified")
        assert isinstance(row["answer"], list) and row["answer"]
        checks = {check["check"] for check in row["checks"]}
        assert "no-context" in checks
        assert any(check.startswith("ablation:") for check in checks)
    for row in rejected:
        assert row["rejected_by"] and row["reason"]
    categories = {row["category"] for row in accepted}
    # (the header "This is the header text." names itself: guessable, not kept)
    assert {"Comment", "Hyperlink", "Footnote", "Metadata", "Font"} <= categories
    coverage = (out / "coverage.md").read_text()
    assert "| word | Comment |" in coverage


def test_unverified_answers_are_marked_not_silently_kept(small_run: tuple[Path, Path]) -> None:
    _, out = small_run
    for row in rows(out / "questions.jsonl"):
        verdicts = {check["verdict"] for check in row["checks"]}
        assert (row["status"] == "unverified") == ("unverified" in verdicts)


def test_property_question_survives_only_without_the_property(
    small_run: tuple[Path, Path],
) -> None:
    """A font question: the heading words stay in the view, the font fact does not."""
    _, out = small_run
    fonts = [r for r in rows(out / "questions.jsonl") if r["question_type"] == "font-typeface"]
    assert fonts
    for row in fonts:
        ablation = [c for c in row["checks"] if c["check"].startswith("ablation:")]
        assert all(check["verdict"] == "pass" for check in ablation)


def test_same_input_gives_identical_outputs(small_run: tuple[Path, Path], tmp_path: Path) -> None:
    inputs, first = small_run
    second = tmp_path / "again"
    build([inputs], second, Config())
    for name in OUTPUTS:
        assert (first / name).read_bytes() == (second / name).read_bytes(), name


def test_rerun_in_place_changes_nothing(small_run: tuple[Path, Path], tmp_path: Path) -> None:
    inputs, first = small_run
    copy = tmp_path / "copy"
    shutil.copytree(first, copy)
    build([inputs], copy, Config())
    for name in OUTPUTS:
        assert (first / name).read_bytes() == (copy / name).read_bytes(), name


def _done_files(store: Path) -> int:
    if not store.exists():
        return 0
    try:
        with sqlite3.connect(store, timeout=1) as db:
            return db.execute("SELECT COUNT(*) FROM files").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


def _kill_after_two_files(process: subprocess.Popen[bytes], out: Path) -> None:
    """SIGKILL the build once it has stored 2 files (or when it ended by itself)."""
    deadline = time.monotonic() + 120
    while _done_files(out / "run.sqlite") < 2 and time.monotonic() < deadline:
        if process.poll() is not None:
            break
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait()


@pytest.mark.needs("libreoffice")  # its build renders or converts through LibreOffice
def test_resume_after_kill(corpus: Path, tmp_path: Path) -> None:
    names = ["memo.docx", "notes.docx", "equations.docx", "Comment015.docx", "Test07.docx"]
    inputs = word_inputs(corpus, tmp_path / "in", names)
    reference, out = tmp_path / "reference", tmp_path / "killed"
    command = [sys.executable, "-m", "fidelity.cli", *declared_pages_config(tmp_path), "build"]
    command += [str(inputs), "-o", str(out)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(command, cwd=ROOT, env=env, stderr=subprocess.DEVNULL)
    killer = threading.Thread(target=_kill_after_two_files, args=(process, out))
    killer.start()  # the build to kill runs alongside the reference build
    try:
        build([inputs], reference, Config(extra=DECLARED_PAGES))
    finally:
        killer.join()
    stored = _done_files(out / "run.sqlite")
    assert 0 < stored < len(names), "the kill should land mid-run"

    build([inputs], out, Config(extra=DECLARED_PAGES))
    for name in ("questions.jsonl", "rejected.jsonl"):
        assert (reference / name).read_bytes() == (out / name).read_bytes()
    ids = [row["id"] for row in rows(out / "questions.jsonl") + rows(out / "rejected.jsonl")]
    assert len(ids) == len(set(ids))


def _billion_laughs(path: Path) -> None:
    builder = docx.Document()
    builder.add_paragraph("placeholder")
    builder.save(path)
    with zipfile.ZipFile(path) as source:
        parts = {name: source.read(name) for name in source.namelist()}
    entities = '<!ENTITY a "ha">' + "".join(
        f'<!ENTITY {chr(98 + i)} "&{chr(97 + i)};&{chr(97 + i)};&{chr(97 + i)};">' for i in range(8)
    )
    parts["word/document.xml"] = (
        f'<?xml version="1.0"?><!DOCTYPE d [{entities}]>'
        '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
        "<w:body><w:p><w:r><w:t>&i;</w:t></w:r></w:p></w:body></w:document>"
    ).encode()
    with zipfile.ZipFile(path, "w") as target:
        for name, data in parts.items():
            target.writestr(name, data)


@pytest.mark.skips_unreadable_files
def test_bad_files_are_skipped_with_a_reason(corpus: Path, tmp_path: Path) -> None:
    inputs = tmp_path / "in"
    shutil.copytree(corpus / "bad", inputs)
    shutil.copy(corpus / "word" / "notes.docx", inputs / "good.docx")
    (inputs / "empty.docx").write_bytes(b"")
    (inputs / "noise.xlsx").write_bytes(os.urandom(2048))
    _billion_laughs(inputs / "laughs.docx")
    shutil.copy(corpus / "word" / "Test07.docx", inputs / "lying-extension.pptx")
    out = tmp_path / "out"
    summary = build([inputs], out, Config())
    skipped = {Path(row["file"]).name: row["reason"] for row in rows(out / "skipped.jsonl")}
    expected = {
        "truncated62886.docx": "truncated",
        "Divino_Revelado.pptx": "truncated",
        "clusterfuzz-testcase-minimized-POIXSSFFuzzer-5937385319563264.xlsx": "CRC",
        "protected_agile.docx": "password-protected",
        "testEXCEL_protected_passtika.xlsx": "password-protected",
        "testPPT_protected_passtika.pptx": "password-protected",
        "password_tika_binaryrc4.doc": "password-protected",
        "testODTnotaZipFile.odt": "not an Office file",
        "empty.docx": "empty",
        "noise.xlsx": "not an Office file",
        "laughs.docx": "DTD",
    }
    for name, fragment in expected.items():
        assert name in skipped, name
        assert fragment.lower() in skipped[name].lower(), (name, skipped[name])
    produced = {Path(row["file"]).name for row in rows(out / "questions.jsonl")}
    assert {"good.docx", "lying-extension.pptx"} <= produced
    assert summary["skipped"] == len(skipped)
    with sqlite3.connect(out / "run.sqlite") as db:
        (document,) = db.execute(
            "SELECT document FROM files WHERE path LIKE '%lying-extension.pptx'"
        ).fetchone()
    assert "extension .pptx but content is docx" in json.loads(document)["notes"]


def test_explain_prints_the_stored_trail(
    small_run: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    inputs, out = small_run
    assert cli(["explain", str(inputs / "memo.docx"), "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    memo = [
        row
        for row in rows(out / "questions.jsonl") + rows(out / "rejected.jsonl")
        if row["file"].endswith("memo.docx")
    ]
    assert memo
    for row in memo:
        assert row["id"] in printed
        for check in row["checks"]:
            assert f"view={check['view']}" in printed


def test_extract_prints_one_json_document_per_line(
    corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    inputs = word_inputs(corpus, tmp_path / "in", ["notes.docx", "equations.docx"])
    assert cli(["extract", str(inputs), "--json", "--media-dir", str(tmp_path / "m")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2
    for line in lines:
        document = json.loads(line)
        assert document["app"] == "word"
        for artifact in document["artifacts"]:
            assert {"id", "category", "locator", "text", "html", "facts"} <= artifact.keys()


def test_curation_changes_apply_on_a_rerun(corpus: Path, tmp_path: Path) -> None:
    """A file curation dropped comes in when the settings keep it, and leaves again."""
    inputs = word_inputs(corpus, tmp_path / "in", ["notes.docx"])
    russian = docx.Document()
    russian.add_heading("Отчёт о работе лаборатории", level=1)
    for paragraph in RUSSIAN_REPORT:
        russian.add_paragraph(paragraph)
    russian.save(inputs / "otchet.docx")
    out = tmp_path / "out"

    def files_with_questions() -> set[str]:
        return {Path(row["file"]).name for row in rows(out / "questions.jsonl")}

    build([inputs], out, Config(extra=DECLARED_PAGES))
    assert files_with_questions() == {"notes.docx"}
    skipped = {Path(row["file"]).name: row for row in rows(out / "skipped.jsonl")}
    assert skipped["otchet.docx"]["reason_code"] == "non_english"

    build([inputs], out, Config(extra={"ingest": {**DECLARED_PAGES["ingest"], "languages": []}}))
    assert files_with_questions() == {"notes.docx", "otchet.docx"}
    assert not rows(out / "skipped.jsonl")

    build([inputs], out, Config(extra=DECLARED_PAGES))
    assert files_with_questions() == {"notes.docx"}
