"""A model-mode build against an endpoint that truncates, resets and stalls replies.

The build completes; candidates whose checks lost a reply are `incomplete`, not kept;
`--no-retry-failed` leaves them so; a rerun against a healthy endpoint completes them
and drafts again where drafting failed, ending with the candidates of a clean build.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from fidelity.cli import main
from tests.generators.test_llm_generators_pipeline import WORD_FILE, generic_model
from tests.support.openai_stub import StubServer, error, faulty, slow
from tests.support.page_counts import DECLARED_PAGES_TOML

pytestmark = pytest.mark.slow  # whole builds or corpus-wide work: not in make test-quick

SETTINGS = (
    """
[models]
model = "stub-model"
max_retries = {retries}
timeout = 1.0
backoff_base = 0.01
"""
    + DECLARED_PAGES_TOML
)
FAULTS = ("truncate", "cut", "reset", "garbage", "stall", "429", "500")


def rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def misbehaving(body: dict) -> dict:
    """The stand-in model, but one request in three (chosen by its content) is broken."""
    reply = generic_model(body)
    digest = hashlib.sha256(json.dumps(body["messages"], sort_keys=True).encode()).digest()
    if digest[0] % 3:
        return reply
    fault = FAULTS[digest[1] % len(FAULTS)]
    if fault == "stall":
        return slow(2.5, reply)
    return error(int(fault), "stub fault") if fault.isdigit() else faulty(fault, reply)


def settled(out: Path) -> dict[str, tuple[str, str]]:
    """Each candidate's status and the check that rejected it."""
    return {
        row["id"]: (row["status"], row.get("rejected_by", ""))
        for name in ("questions", "rejected", "incomplete")
        for row in rows(out / f"{name}.jsonl")
    }


def failure_verdicts(out: Path) -> list[str]:
    """Checks whose recorded reason is a failed call rather than a verdict."""
    marks = (
        "no judge could decide",
        "no usable",
        "RateLimitError",
        "InternalServerError",
        "did not run",
    )
    return [
        f"{row['id']} {check['check']}: {check['reason']}"
        for name in ("questions", "rejected")
        for row in rows(out / f"{name}.jsonl")
        for check in row["checks"]
        if any(mark in check.get("reason", "") for mark in marks)
    ]


@pytest.fixture
def endpoint(monkeypatch):
    with StubServer(misbehaving) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-faults-test-key")
        monkeypatch.chdir(Path(__file__).parent)  # no stray fidelity.toml
        yield server


def build(out: Path, config: Path, *extra: str) -> int:
    return main(["--config", str(config), "build", str(WORD_FILE), "-o", str(out), *extra])


def test_broken_replies_leave_incomplete_candidates_that_a_healthy_rerun_completes(
    endpoint: StubServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    no_retries, retries = tmp_path / "no-retries.toml", tmp_path / "retries.toml"
    no_retries.write_text(SETTINGS.format(retries=0))
    retries.write_text(SETTINGS.format(retries=2))
    out = tmp_path / "out"
    assert build(out, no_retries) == 0
    incomplete = rows(out / "incomplete.jsonl")
    assert incomplete and all(
        row["status"] == "incomplete" and "model checks did not run" in row["reason"]
        for row in incomplete
    )
    kept_ids = {row["id"] for row in rows(out / "questions.jsonl")}
    assert not kept_ids & {row["id"] for row in incomplete}
    printed = capsys.readouterr().out
    assert f"{len(incomplete)} incomplete" in printed
    assert "incomplete" in (out / "funnel.md").read_text()

    sent = len(endpoint.requests)
    assert build(out, retries, "--no-retry-failed") == 0
    assert len(endpoint.requests) == sent
    assert len(rows(out / "incomplete.jsonl")) == len(incomplete)

    endpoint.responder = generic_model  # the endpoint is healthy again
    assert build(out, retries) == 0
    assert len(endpoint.requests) > sent
    assert rows(out / "incomplete.jsonl") == []
    now_kept = {row["id"] for row in rows(out / "questions.jsonl")}
    rejected = {row["id"] for row in rows(out / "rejected.jsonl")}
    assert {row["id"] for row in incomplete} <= now_kept | rejected
    clean = tmp_path / "clean"  # the same build against a healthy endpoint from the start
    assert build(clean, retries) == 0
    candidates = {
        row["id"] for name in ("questions", "rejected") for row in rows(clean / f"{name}.jsonl")
    }
    assert now_kept | rejected == candidates, "failed drafting calls were made again"
    # A failed call is never a verdict: after the healthy rerun every candidate is decided as in
    # the clean build, and no check carries a failure for its reason.
    assert settled(out) == settled(clean)
    assert failure_verdicts(out) == []
