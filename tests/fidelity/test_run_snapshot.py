"""The run snapshot reads the same run the store's queries do: candidates in the stable order,
each candidate's decisions in the order they were added, only processed files' work."""

from __future__ import annotations

import gc
from collections.abc import Callable
from pathlib import Path

import pytest

from fidelity.core.document import Candidate, Decision, Document, Probe
from fidelity.core.store import DOCUMENT_FORMAT, FORMAT_KEY, RunStore, snapshot_of


def candidate(number: int, file_sha: str, path: str) -> Candidate:
    return Candidate(
        id=f"q{number}",
        file_sha=file_sha,
        file=path,
        app="word",
        artifact_id="a0",
        category="Text",
        question_type="value",
        question=f"What is {number}?",
        answer=[f"It is {number}."],
        probe=Probe(value=str(number)),
        generator="rules",
        generator_version="1",
    )


def decision(candidate_id: str, check: str, verdict: str = "pass") -> Decision:
    return Decision(
        candidate_id=candidate_id,
        check=check,
        view="full",
        context_hash="",
        answered="",
        match="exact",
        verdict=verdict,
        reason=f"{check} on {candidate_id}",
        model_call="k1" if check == "grade" else None,
    )


def stored_run(path: Path) -> RunStore:
    """Two processed files stored out of path order, one unfinished file, decisions interleaved."""
    store = RunStore(path)
    files = (("b" * 64, "in/b.docx", "done"), ("a" * 64, "in/a.docx", "done"))
    files += (("c" * 64, "in/c.docx", "pending"),)
    for number, (sha, name, status) in enumerate(files):
        document = Document(sha256=sha, app="word", format="docx", source=name)
        store.put_file(sha, name, status, document=document)
        for seq in (1, 0):
            store.put_candidate(candidate(number * 10 + seq, sha, name), seq)
    for check in ("guessability", "ablation:without", "grade"):
        for number in (0, 1, 10, 11, 20):
            store.add_decision(decision(f"q{number}", check, "fail" if number == 11 else "pass"))
    store.set_status("q11", "rejected", "grade", "wrong")
    store.set_meta("mode", "model")
    store.put_model_call("k1", "grade", "m", {"q": 1}, {"a": 1}, {"prompt_tokens": 3})
    store.put_model_call("k0", "answer", "m", {"q": 0}, None, {}, "timeout")
    return store


def test_snapshot_holds_what_the_store_queries_return(tmp_path: Path) -> None:
    store = stored_run(tmp_path / "run.sqlite")
    run = store.snapshot()
    assert list(run.candidates) == store.candidates()
    assert [row.candidate.id for row in run.candidates] == ["q10", "q11", "q0", "q1"]
    assert run.candidates[1].status == "rejected" and run.candidates[1].rejected_by == "grade"
    for row in run.candidates:
        assert list(run.decisions_of(row.candidate.id)) == store.decisions(row.candidate.id)
    assert [d.check for d in run.decisions_of("q11")] == [
        "guessability",
        "ablation:without",
        "grade",
    ]
    assert run.documents == tuple(store.documents())
    assert list(run.files) == store.files()
    assert run.files_with_status("pending") == store.files("pending")
    assert run.meta == {"mode": "model", FORMAT_KEY: DOCUMENT_FORMAT}
    assert run.model_call_usage() == store.model_call_usage()
    assert run.model_calls["k0"].error == "timeout" and not run.model_calls["k0"].answered
    store.close()


def test_unfinished_files_work_stays_out(tmp_path: Path) -> None:
    store = stored_run(tmp_path / "run.sqlite")
    run = store.snapshot()
    assert "q20" not in run.decisions
    assert run.decisions_of("q20") == ()
    assert all(row.candidate.file_sha != "c" * 64 for row in run.candidates)
    store.close()


def test_a_snapshot_read_without_decisions_refuses_to_guess_them(tmp_path: Path) -> None:
    store = stored_run(tmp_path / "run.sqlite")
    run = store.snapshot(decisions=False)
    assert run.candidates == store.snapshot().candidates
    with pytest.raises(LookupError):
        run.decisions_of("q0")
    store.close()


def test_snapshot_of_reads_a_store_with_the_collector_paused_and_passes_a_snapshot_through(
    tmp_path: Path,
) -> None:
    store = stored_run(tmp_path / "run.sqlite")
    run = store.snapshot()
    with snapshot_of(run) as same:
        assert same is run
    assert gc.isenabled()
    with store.transaction(), snapshot_of(store) as read:
        assert read.candidates == run.candidates
        assert not gc.isenabled()
    assert gc.isenabled()
    store.close()


def test_a_snapshots_documents_keep_what_the_outputs_read(
    corpus: Path, extracted: Callable[[Path], Document], tmp_path: Path
) -> None:
    """A workbook with sheet charts: every artifact keeps its id, category, kind, locator and
    media, and of its facts the sheet and anchor; text and html stay on the asked artifact."""
    book = extracted(corpus / "excel" / "stress002.xlsx")
    asked = next(a for a in book.artifacts if a.text and a.facts)
    store = RunStore(tmp_path / "run.sqlite")
    store.put_file(book.sha256, "in/book.xlsx", "done", document=book)
    store.put_candidate(
        candidate(0, book.sha256, "in/book.xlsx").model_copy(update={"artifact_id": asked.id}), 0
    )
    (lean,) = store.snapshot().documents
    store.close()
    assert len(lean.artifacts) == len(book.artifacts)
    charts = 0
    for whole, kept in zip(book.artifacts, lean.artifacts, strict=True):
        same = ("id", "category", "kind", "modality", "locator", "media")
        assert [getattr(kept, f) for f in same] == [getattr(whole, f) for f in same]
        assert kept.facts == {k: v for k, v in whole.facts.items() if k in ("sheet", "anchor")}
        charts += "anchor" in kept.facts
        if whole.id == asked.id:
            assert (kept.text, kept.html) == (whole.text, whole.html)
        else:
            assert (kept.text, kept.html) == ("", None)
    assert charts
