"""The build: ingest -> extract -> generate -> filter per file, then run-wide steps and outputs.

Each file's results are committed to the store in one transaction, so a killed
run resumes at the first unfinished file with nothing duplicated or lost.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from contextlib import AbstractContextManager
from dataclasses import asdict
from functools import partial
from pathlib import Path
from typing import Any

from extractors import ExtractionError
from fidelity.core.config import STORED_KEY, Config
from fidelity.core.document import KEPT_STATUSES, Candidate, Decision, Document
from fidelity.core.executor import Executor, TaskResult
from fidelity.core.llm import LLMClient
from fidelity.core.llm.batch import prefetch
from fidelity.core.progress import progress
from fidelity.core.store import RunStore, open_store
from fidelity.core.workers import PRELOAD, WorkerPool, open_workers
from fidelity.filework import FileResult, FileWork, WorkContext, generate_task, process_file_task
from fidelity.outlock import output_lock
from fidelity.outputs import write_outputs
from fidelity.retry import remember_failed_drafts, retry_generation, retry_incomplete
from fidelity.stages import Stages, filter_candidates, model_filters, model_stages
from filters import dedup, grading
from filters.chain import DEDUP
from filters.groundedness import Outcome
from ingest.analyze import FileRecord
from ingest.corpus import ingest_corpus
from ingest.rank import LLMJudge, chat_through
from ingest.settings import IngestSettings, converter_servers
from ingest.unoserver_pool import Converter, shared_converter

__all__ = ["Stages", "build", "filter_candidates", "model_filters"]


def file_actions(records: list[FileRecord], store: RunStore) -> list[tuple[str, FileRecord]]:
    """What the build does with each ingested file, in input order: "work", "skip" or nothing.

    A file's earlier outcome stands unless curation now decides otherwise: a file it
    dropped before and keeps now is processed (what was stored is not duplicated), a
    file it keeps no longer is marked skipped and its candidates leave the outputs.
    Of files with identical bytes only one is acted on (the kept one, else the first).
    """
    chosen: dict[str, FileRecord] = {}
    for record in records:
        if record.sha256 not in chosen or record.kept and not chosen[record.sha256].kept:
            chosen[record.sha256] = record
    actions = []
    for record in records:
        if chosen[record.sha256] is not record:
            continue
        status = store.file_status(record.sha256)
        if status == "done" and record.kept or status == "skipped" and not record.kept:
            continue
        actions.append(("work" if record.kept else "skip", record))
    return actions


def store_dropped(store: RunStore, record: FileRecord) -> None:
    """A file curation dropped (or whose analysis failed) goes to skipped.jsonl with its reason."""
    info = {"stage": "ingest", "reason_code": record.reason_code, **record.failure}
    with store.transaction():
        store.put_file(
            record.sha256,
            record.path,
            "skipped",
            record.reason,
            info,
            store.document(record.sha256),
        )


# Set to 1 (the test suite does) to make a file its extractor cannot read stop the run
# instead of becoming a skipped file, so an extractor bug fails loudly.
RAISE_EXTRACTION_ERRORS = "FIDELITY_RAISE_EXTRACTION_ERRORS"


def store_result(store: RunStore, record: FileRecord, result: TaskResult[FileResult]) -> str:
    """Commit one file's task result in one transaction; returns the file's status."""
    sha, path = record.sha256, record.path
    with store.transaction():
        if result.failure is not None:
            failure = result.failure
            store.put_file(sha, path, "skipped", failure.reason, failure.info())
            return "skipped"
        value = result.value
        assert value is not None
        if value.document is None:
            if value.skip_stage == "extract" and os.environ.get(RAISE_EXTRACTION_ERRORS) == "1":
                raise ExtractionError(f"{path}: {value.skip_reason}")
            store.put_file(sha, path, "skipped", value.skip_reason, {"stage": value.skip_stage})
            return "skipped"
        store.put_file(sha, path, "done", info={"app": value.document.app}, document=value.document)
        store_outcomes(store, value.outcomes)
    return "done"


def process_files(
    records: list[FileRecord],
    store: RunStore,
    config: Config,
    context: WorkContext,
    executor: Executor,
    documents: dict[str, Document] | None = None,
) -> int:
    """Per-file work for every ingested file in worker processes; the driver stores each result
    in input order, so a killed run resumes at the first unfinished file. `documents`: files
    extracted already (by sha256). Returns how many files were acted on (0: all done before)."""
    known = documents or {}
    actions = file_actions(records, store)
    work = (
        FileWork(record, config, context, known.get(record.sha256))
        for kind, record in actions
        if kind == "work"
    )
    results = executor.map(process_file_task, work)
    for kind, record in progress(actions, total=len(actions), desc="files"):
        if kind == "skip":
            store_dropped(store, record)
        else:
            store_result(store, record, next(results))
    return len(actions)


def store_outcomes(store: RunStore, outcomes: list[Outcome], first_seq: int = 0) -> int:
    """Store filtered candidates with their decisions (inside the caller's transaction).

    Candidates already stored are left as they are; returns how many were new.
    """
    added = 0
    for seq, outcome in enumerate(outcomes, start=first_seq):
        if not store.put_candidate(outcome.candidate, seq):
            continue
        added += 1
        for decision, context in outcome.decisions:
            store.add_decision(decision, context)
        store.set_ground_status(
            outcome.candidate.id, outcome.status, outcome.rejected_by, outcome.reason
        )
    return added


def dedup_scope(store: RunStore, config: Config) -> str:
    """`[run] dedup_scope`, else per file offline (rule questions repeat by design), else run."""
    if config.dedup_scope:
        return config.dedup_scope
    return "run" if store.meta("mode", "offline") == "model" else "file"


def dedup_decisions(store: RunStore, scope: str) -> list[Decision]:
    """Near-duplicate rejections among the candidates that passed every per-file filter.

    Better-graded candidates come first; earlier de-duplication rejections are ignored.
    """
    live = [
        c
        for c, status, by, _ in store.candidates()
        if status in KEPT_STATUSES or status == "rejected" and by == DEDUP.name
    ]
    grades = {c.id: sum(grading.scores(store.decisions(c.id)).values()) for c in live}
    same = dedup.same_file_or_answer if scope == "run" else None
    groups: dict[str, list[Candidate]] = {}
    for candidate in live:
        groups.setdefault(candidate.file_sha if scope == "file" else "run", []).append(candidate)
    return [
        decision
        for group in groups.values()
        for decision in dedup.deduplicate(group, rank=lambda c: grades[c.id], same=same)
    ]


def run_dedup(store: RunStore, config: Config) -> None:
    with store.transaction():
        store.reset_run_wide(DEDUP.name)
        scope = dedup_scope(store, config)
        store.set_meta("dedup_scope", scope)  # a replay de-duplicates the same way
        for decision in dedup_decisions(store, scope):
            store.add_decision(decision)
            store.set_status(decision.candidate_id, "rejected", DEDUP.name, decision.reason)


def default_stages(config: Config, store: RunStore, out: Path) -> tuple[Stages, LLMClient | None]:
    """Offline stages, or model mode (rules + model generators) when a model is configured."""
    if not config.models.enabled:
        return Stages(), None
    store.set_meta("models", asdict(config.models))  # for replaying the calls (no secrets)
    store.set_meta("filters", asdict(config.filters))
    client = LLMClient(config.models, store, out)
    return model_stages(config, client), client


def batch_round(
    pending: list[FileRecord],
    config: Config,
    context: WorkContext,
    pool: WorkerPool,
    documents: dict[str, Document],
) -> None:
    """One batch-mode generation round over the pending files; the documents extracted in
    the first round are kept in `documents` for the later rounds and the per-file work."""
    work = [FileWork(r, config, context, documents.get(r.sha256)) for r in pending]
    for record, result in zip(pending, pool.executor.map(generate_task, work), strict=True):
        if result.value is not None:
            documents[record.sha256] = result.value


# Preloaded in the build's workers with the libraries: this module, which imports the per-file
# tasks and all a driver's main module (the CLI) imports, which a new worker imports again
# before its first task; and the language model ingest's analysis loads. Together about 1.5 s
# of CPU a worker saves.
WORKER_PRELOAD = (*PRELOAD, __name__, "ingest.language_model")


def worker_pool(
    config: Config, converter: Converter | None, client: LLMClient | None
) -> AbstractContextManager[WorkerPool]:
    """Local worker processes, or Ray tasks with `executor = "ray"` (Ray is an optional extra)."""
    if config.executor == "ray":
        from fidelity.cluster.pool import open_ray_workers

        return open_ray_workers(config, converter, client)
    return open_workers(config, converter, client, WORKER_PRELOAD)


def build(inputs: Iterable[Path], out: Path, config: Config) -> dict[str, Any]:
    """The whole build over the input files into OUT (one build or regen per OUT at a time)."""
    with output_lock(out, "build"):
        return _build(inputs, out, config)


def _build(inputs: Iterable[Path], out: Path, config: Config) -> dict[str, Any]:
    store = open_store(out)
    client: LLMClient | None = None
    try:
        stages, client = default_stages(config, store, out)
        store.set_meta("mode", stages.mode)
        store.set_meta(STORED_KEY, config.stored())  # what coverage, regen, report... read
        inputs = list(inputs)
        judge = LLMJudge(chat_through(client), name="model") if client is not None else None
        settings = IngestSettings.from_config(config)
        servers = converter_servers(config, settings)
        converter = shared_converter(servers, settings.conversion_timeout)
        with worker_pool(config, converter, client) as pool:
            corpus = ingest_corpus(
                inputs,
                out,
                config,
                settings=settings,
                converter=converter,
                judge=judge,
                workers=pool,
            )  # corpus.jsonl, corpus.md
            context = WorkContext(out, pool.services)
            if client is not None and config.models.retry_failed:
                refilter = partial(filter_candidates, stages=stages)
                retry_incomplete(store, refilter)
                retry_generation(store, stages.generate, refilter, store_outcomes)
            documents: dict[str, Document] = {}
            if client is not None and config.models.batch:
                pending = [r for r in corpus.records if r.kept and not store.file_status(r.sha256)]
                prefetch(client, lambda: batch_round(pending, config, context, pool, documents))
            acted = process_files(corpus.records, store, config, context, pool.executor, documents)
        run_dedup(store, config)
        usage = ""
        if client is not None:  # model_usage.json first, so report.html shows this run's usage
            remember_failed_drafts(store, client.accounting, config.models.retry_failed)
            usage = client.finish(out)
        summary = {**write_outputs(store, out, config.coverage, corpus), "files_acted_on": acted}
        if usage:
            print(usage, file=sys.stderr)
        return summary
    finally:
        store.close()
