"""Write the run's files from the store: questions, rejected, incomplete, skipped, coverage,
funnel, quality, report."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from fidelity import coverage, funnel, quality
from fidelity.core.atomic import write_jsonl
from fidelity.core.config import CoverageConfig
from fidelity.core.document import Candidate, Decision
from fidelity.core.gc_pause import collector_paused
from fidelity.core.run_snapshot import RunSnapshot
from fidelity.core.store import RunStore
from fidelity.report import write_report
from ingest.corpus import Corpus, write_corpus_md

SAMPLE_NAME = "quality-sample.tsv"
JsonRow = dict[str, Any]


def candidate_row(
    candidate: Candidate,
    decisions: Sequence[Decision],
    status: str,
    mode: str,
    locator: str,
) -> JsonRow:
    return {
        "id": candidate.id,
        "file": candidate.file,
        "file_sha256": candidate.file_sha,
        "app": candidate.app,
        "category": candidate.category,
        "artifact_id": candidate.artifact_id,
        "locator": locator,
        "question_type": candidate.question_type,
        "question": candidate.question,
        "answer": candidate.answer,
        "generator": candidate.generator,
        "generator_version": candidate.generator_version,
        "mode": mode,
        "status": status,
        "checks": [decision.model_dump(exclude={"candidate_id"}) for decision in decisions],
    }


def question_rows(run: RunSnapshot) -> tuple[list[JsonRow], list[JsonRow], list[JsonRow]]:
    """(accepted, rejected, incomplete) rows of every stored candidate, in the store's order."""
    mode = run.meta.get("mode", "offline")
    accepted, rejected, incomplete = [], [], []
    where = run.locators()
    for candidate, status, rejected_by, reason in run.candidates:
        locator = where.get((candidate.file_sha, candidate.artifact_id), "")
        decisions = run.decisions_of(candidate.id)
        row = candidate_row(candidate, decisions, status, mode, locator)
        if status == "rejected":
            row.update(rejected_by=rejected_by, reason=reason)
            rejected.append(row)
        elif status == "incomplete":  # a model check did not run: not kept until a rerun
            row.update(reason=reason)
            incomplete.append(row)
        else:
            accepted.append(row)
    return accepted, rejected, incomplete


def write_outputs(
    store: RunStore,
    out: Path,
    targets: CoverageConfig | None = None,
    corpus: Corpus | None = None,
) -> dict[str, Any]:
    """Every output file and the report from one snapshot of the run; the build's summary.
    With the build's `corpus`, corpus.md is written again with the extracted counts."""
    with collector_paused():  # the snapshot is freed before the collector resumes
        return write_run_files(store.snapshot(), out, targets, corpus)


def write_run_files(
    run: RunSnapshot,
    out: Path,
    targets: CoverageConfig | None = None,
    corpus: Corpus | None = None,
) -> dict[str, Any]:
    """The output files and the report of one snapshot; the build's summary."""
    mode = run.meta.get("mode", "offline")
    accepted, rejected, incomplete = question_rows(run)
    skipped = [
        {
            "file": entry["path"],
            "sha256": entry["sha256"],
            "reason": entry["reason"],
            **entry["info"],
        }
        for entry in run.files_with_status("skipped")
    ]
    write_jsonl(out / "questions.jsonl", accepted, sort_keys=True)
    write_jsonl(out / "rejected.jsonl", rejected, sort_keys=True)
    write_jsonl(out / "incomplete.jsonl", incomplete, sort_keys=True)
    write_jsonl(out / "skipped.jsonl", skipped, sort_keys=True)
    (out / "coverage.md").write_text(coverage.markdown(run, targets or CoverageConfig()))
    if corpus is not None:
        write_corpus_md(corpus, out, coverage.extracted_counts(run, targets or CoverageConfig()))
    counts = funnel.compute(run)
    (out / "funnel.md").write_text(funnel.markdown(counts, mode))
    graded = quality.compute(run)
    sampled = quality.sample(graded)
    (out / SAMPLE_NAME).write_text(quality.sample_tsv(sampled))
    (out / "quality.md").write_text(quality.markdown(graded, SAMPLE_NAME, len(sampled)))
    write_report(run, out, targets)
    total = counts.total  # the numbers funnel.md and the report's header show
    return {
        "accepted": total.kept,
        "unverified": total.unverified,
        "rejected": total.rejected_total,
        "incomplete": total.incomplete,
        "skipped": len(skipped),
        "funnel": funnel.headline(counts),
        "quality": quality.totals(graded),
    }
