"""`fidelity explain`: the decision trail, --question, --diff, and --replay in both modes."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from pathlib import Path

import pytest

from fidelity.cli import main as cli
from fidelity.core.config import Config
from fidelity.pipeline import build
from tests.support.numbered import each_alone
from tests.support.openai_stub import StubServer, error, json_reply, schema_name, text_of
from tests.support.page_counts import DECLARED_PAGES, DECLARED_PAGES_TOML

pytestmark = pytest.mark.slow  # whole builds: not in make test-quick

WORD = ["memo.docx", "testWORD_various.docx"]


def rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line]


@pytest.fixture(scope="module")
def offline_run(corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("explain")
    inputs = base / "in"
    inputs.mkdir()
    for name in WORD:
        shutil.copy(corpus / "word" / name, inputs / name)
    build([inputs], base / "out", Config(extra=DECLARED_PAGES))
    return inputs, base / "out"


def test_offline_replay_reproduces_every_decision(offline_run, capsys):
    inputs, out = offline_run
    for name in WORD:
        assert cli(["explain", str(inputs / name), "-o", str(out), "--replay"]) == 0
        printed = capsys.readouterr().out
        summary = re.search(r"replay \(offline.*: (\d+) candidates, (\d+) decisions, 0 d", printed)
        assert summary and int(summary[1]) > 0 and int(summary[2]) > int(summary[1])
        assert "DIFFERS" not in printed


def test_replay_reports_a_tampered_decision(offline_run, tmp_path, capsys):
    inputs, out = offline_run
    copy = tmp_path / "out"
    shutil.copytree(out, copy)
    with sqlite3.connect(copy / "run.sqlite") as db:
        candidate_id, seq, body = db.execute(
            "SELECT d.candidate_id, d.seq, d.body FROM decisions d JOIN candidates c "
            "ON c.id = d.candidate_id JOIN files f ON f.sha256 = c.file_sha "
            "WHERE f.path LIKE '%memo.docx' AND json_extract(d.body, '$.verdict') = 'pass' "
            "ORDER BY d.candidate_id LIMIT 1"
        ).fetchone()
        decision = json.loads(body)
        decision["verdict"] = "fail"
        db.execute(
            "UPDATE decisions SET body=? WHERE candidate_id=? AND seq=?",
            (json.dumps(decision), candidate_id, seq),
        )
    assert cli(["explain", str(inputs / "memo.docx"), "-o", str(copy), "--replay"]) == 1
    printed = capsys.readouterr().out
    assert f"DIFFERS {candidate_id} {decision['check']} verdict" in printed
    assert "1 differences" in printed


def test_question_narrows_and_diff_shows_what_the_view_removed(offline_run, capsys):
    inputs, out = offline_run
    memo = [r for r in rows(out / "questions.jsonl") if r["file"].endswith("memo.docx")]
    target = next(r for r in memo if r["category"] == "Metadata")
    args = ["explain", str(inputs / "memo.docx"), "-o", str(out), "--question", target["id"]]
    assert cli([*args, "--diff", "--replay"]) == 0
    printed = capsys.readouterr().out
    assert printed.count("  Q: ") == 1 and target["question"] in printed
    assert "removed 1 lines" in printed  # the one property line of the `without:` view
    removed = [line for line in printed.splitlines() if line.strip().startswith("- Document")]
    value = target["answer"][0].rsplit(" is ", 1)[-1].rstrip(".")
    assert any(value in line for line in removed)
    assert "1 candidates" in printed
    assert cli([*args[:-1], "no-such-id"]) == 1


def test_funnel_is_written_and_summarised(offline_run):
    _, out = offline_run
    funnel = (out / "funnel.md").read_text()
    kept = len(rows(out / "questions.jsonl"))
    total = kept + len(rows(out / "rejected.jsonl"))
    assert f"Run: {total} candidates" in funnel
    assert f"→ {kept} kept" in funnel
    assert "| word / Metadata |" in funnel and "| word |" in funnel


def _words(text: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[A-Za-z]{5,}", text)}


def generic_filter_model(body: dict) -> dict:
    """A stand-in answerer, judge and grader whose replies depend only on the request."""
    name, text = schema_name(body), text_of(body)
    if name == "ReAnswer":
        question = re.findall(r"Question: (.*)", text)[-1]
        context = re.search(r"Document:\n<<<\n(.*)\n>>>", text, re.DOTALL)
        lines = context.group(1).splitlines() if context else []
        best = max(lines, key=lambda line: len(_words(line) & _words(question)), default="")
        if len(_words(best) & _words(question)) >= 2:
            return json_reply({"answer": " ".join(best.split()[-4:]), "answerable": True})
        return json_reply({"answer": "unknown", "answerable": False})
    if name == "JudgeVerdict":
        return json_reply({"satisfied": len(text) % 2 == 0, "reason": "stub"})
    if name == "Grade":
        question = re.search(r"Question: (.*)", text).group(1)
        clarity = 2 + len(question) % 4
        return json_reply({"clarity": clarity, "precision": 4, "value": 3, "rationale": "stub"})
    return error(400, f"the stub does not serve {name or 'this request'}")


def test_model_run_replays_from_records_only(corpus, tmp_path, monkeypatch, capsys):
    inputs = tmp_path / "in"
    inputs.mkdir()
    for name in WORD:
        shutil.copy(corpus / "word" / name, inputs / name)
    settings = tmp_path / "fidelity.toml"
    settings.write_text(
        '[models]\nmodel = "stub-model"\ngenerators = []\nmax_retries = 0\n' + DECLARED_PAGES_TOML
    )
    out = tmp_path / "out"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-explain-test")
    with StubServer(each_alone(generic_filter_model)) as stub:
        monkeypatch.setenv("OPENAI_BASE_URL", stub.base_url)
        assert cli(["--config", str(settings), "build", str(inputs), "-o", str(out)]) == 0
        served = {schema_name(r["json"]) for r in stub.chat_requests()}
    assert {"ReAnswer", "JudgeVerdict", "Grade"} <= served
    produced = rows(out / "questions.jsonl") + rows(out / "rejected.jsonl")
    assert {row["mode"] for row in produced} == {"model"}
    rejected_by = {row["rejected_by"] for row in rows(out / "rejected.jsonl")}
    assert (
        "answerable:full" in rejected_by
    )  # the stub's answer from the whole file is not the reference
    checks = [check for row in produced for check in row["checks"]]
    assert any(c["check"] == "grade" for c in checks)
    assert any(c["match"].startswith("judge:") for c in checks)
    assert any(c["check"] == "no-context" and c["verdict"] == "pass" for c in checks)
    funnel = (out / "funnel.md").read_text()
    assert "Mode: model" in funnel and "without a model call" in funnel
    capsys.readouterr()
    # The endpoint is gone: a replay must come from the records alone and match exactly.
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    for name in WORD:
        assert cli(["explain", str(inputs / name), "-o", str(out), "--replay"]) == 0
        printed = capsys.readouterr().out
        assert re.search(r"replay \(model, from recorded model calls only\).* 0 diff", printed)
        assert "model call: " in printed and "(recorded)" in printed
