"""The build: ingest -> extract -> generate -> filter per file, then run-wide steps and outputs.

Each file's results are committed to the store in one transaction, so a killed
run resumes at the first unfinished file with nothing duplicated or lost.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path

from tqdm import tqdm

from extractors import ExtractionError, excel, extract, powerpoint
from extractors.rendering import SheetPageRenderer
from fidelity.config import Config
from fidelity.hashing import file_sha256
from fidelity.llm import ModelClient
from fidelity.llm.batch import prefetch
from fidelity.model import KEPT_STATUSES, Candidate, Decision, Document
from fidelity.outputs import write_outputs
from fidelity.retry import remember_failed_drafts, retry_generation, retry_incomplete
from fidelity.store import RunStore
from filters import dedup, grading
from filters.answerer import ModelAnswerer
from filters.grading import Grader
from filters.groundedness import Answerer, Mapper, Outcome, check_document
from filters.matching import Matcher
from filters.qualify import qualify
from generators import rules
from generators.model import ModelGenerators
from ingest.analyze import FileRecord
from ingest.corpus import ingest_corpus
from ingest.discover import discover
from ingest.prepare import NotReadable, prepare
from ingest.rank import ModelJudge, chat_through
from ingest.sniff import sniff
from ingest.unoserver_pool import Converter, shared_converter

STORE_NAME = "run.sqlite"


@dataclass
class Stages:
    """The pluggable parts of a build: candidate generation, the model answerer and grader."""

    generate: object = rules.generate
    answerer: Answerer | None = None
    grader: Grader | None = None
    map: Mapper | None = None  # spreads a file's candidates over the model client's threads
    mode: str = "offline"


def open_store(out: Path) -> RunStore:
    return RunStore(out / STORE_NAME)


def load_document(path: Path, sha: str, out: Path, config: Config) -> Document:
    """Sniff, prepare and extract one file; raises NotReadable or ExtractionError."""
    size_mb = path.stat().st_size / 1e6
    if size_mb > config.max_file_mb:
        raise NotReadable(f"file is {size_mb:.1f} MB, over the {config.max_file_mb} MB limit")
    sniffed = sniff(path)
    ooxml, converted_from = prepare(path, sniffed, out / "converted")
    document = Document(
        sha256=sha,
        app=sniffed.app,
        format=sniffed.format,
        source=str(path),
        converted_from=converted_from,
        notes=list(sniffed.notes),
    )
    return extract(ooxml, document, out / "media" / sha[:16])


def process_file(
    path: Path,
    store: RunStore,
    out: Path,
    config: Config,
    stages: Stages,
    ingested: FileRecord | None = None,
) -> str:
    """One file through every per-file stage; `ingested` is its ingest record, if any.

    A file's earlier outcome stands unless curation now decides otherwise: a file it
    dropped before and keeps now is processed (what was stored is not duplicated), a
    file it keeps no longer is marked skipped and its candidates leave the outputs.
    """
    sha = file_sha256(path)
    status = store.file_status(sha)
    kept = ingested is None or ingested.kept
    if status == "done" and kept or status == "skipped" and not kept:
        return "done-before"
    if not kept:  # dropped by curation (now, or since curation settings changed)
        info = {"stage": "ingest", "reason_code": ingested.reason_code}
        with store.transaction():
            store.put_file(sha, str(path), "skipped", ingested.reason, info, store.document(sha))
        return "skipped"
    try:
        document = load_document(path, sha, out, config)
    except (NotReadable, ExtractionError, OSError) as error:
        with store.transaction():
            store.put_file(sha, str(path), "skipped", str(error), {"stage": "ingest"})
        return "skipped"
    if ingested is not None:  # ingest measured pages on a rendering: it wins over app.xml
        document.size.update(ingested.size)
    outcomes = filter_candidates(document, stages.generate(document), stages)
    with store.transaction():
        store.put_file(sha, str(path), "done", info={"app": document.app}, document=document)
        store_outcomes(store, outcomes)
    return "done"


def filter_candidates(
    document: Document, candidates: list[Candidate], stages: Stages
) -> list[Outcome]:
    """Every per-file filter on a document's candidates (the build, `regen` and replay share it).

    Questions recurring with other answers are qualified, groundedness is checked, then
    (in model mode) the survivors are graded.
    """
    candidates = qualify(document, candidates)
    outcomes = check_document(document, candidates, stages.answerer, stages.map)
    if stages.grader is not None:
        stages.grader.grade_outcomes(document, outcomes, stages.map)
    return outcomes


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
        if status in KEPT_STATUSES or status == "rejected" and by == dedup.CHECK
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
        store.reset_run_wide(dedup.CHECK)
        scope = dedup_scope(store, config)
        store.set_meta("dedup_scope", scope)  # a replay de-duplicates the same way
        for decision in dedup_decisions(store, scope):
            store.add_decision(decision)
            store.set_status(decision.candidate_id, "rejected", dedup.CHECK, decision.reason)


def default_stages(config: Config, store: RunStore, out: Path) -> tuple[Stages, ModelClient | None]:
    """Offline stages, or model mode (rules + model generators) when a model is configured."""
    if not config.models.enabled:
        return Stages(), None
    store.set_meta("models", asdict(config.models))  # for replaying the calls (no secrets)
    store.set_meta("filters", asdict(config.filters))
    client = ModelClient(config.models, store, out)
    answerer, grader = model_filters(config, client)
    generate = ModelGenerators(client, config.models)
    stages = Stages(generate, answerer, grader, client.map, mode="model")
    return stages, client


def model_filters(config: Config, client: ModelClient) -> tuple[ModelAnswerer, Grader | None]:
    """The model-mode answerer (with its matcher) and grader; a replay builds the same."""
    answerer = ModelAnswerer(client, Matcher(client, config.filters.judges), config.filters)
    return answerer, Grader(client, config.filters) if config.filters.grading else None


def pending_documents(
    files: list[Path], store: RunStore, out: Path, config: Config
) -> list[Document]:
    """Documents of the files not finished yet (unreadable ones are left to the main loop)."""
    documents = []
    for path in files:
        sha = file_sha256(path)
        if store.file_status(sha):
            continue
        try:
            documents.append(load_document(path, sha, out, config))
        except (NotReadable, ExtractionError, OSError):
            continue
    return documents


def install_renderers(converter: Converter | None) -> None:
    """Slide images and chart images through LibreOffice when it runs here (None: no images)."""
    if converter is None or not converter.available:
        powerpoint.set_pdf_renderer(None)
        excel.chart_renderer = None
        return
    powerpoint.set_pdf_renderer(lambda path: converter.to_pdf(path, "powerpoint"))
    excel.chart_renderer = SheetPageRenderer(converter.to_pdf)


def build(
    inputs: Iterable[Path], out: Path, config: Config, stages: Stages | None = None
) -> dict[str, int]:
    out.mkdir(parents=True, exist_ok=True)
    store = open_store(out)
    client: ModelClient | None = None
    try:
        if stages is None:
            stages, client = default_stages(config, store, out)
        store.set_meta("mode", stages.mode)
        inputs = list(inputs)
        files = discover(inputs)
        judge = ModelJudge(chat_through(client), name="model") if client is not None else None
        corpus = ingest_corpus(inputs, out, config, judge=judge)  # corpus.jsonl, corpus.md
        ingested = {Path(record.path): record for record in corpus.records}
        install_renderers(shared_converter())
        if client is not None and config.models.retry_failed:
            refilter = partial(filter_candidates, stages=stages)
            retry_incomplete(store, refilter)
            retry_generation(store, stages.generate, refilter, store_outcomes)
        if client is not None and config.models.batch:
            kept = [path for path in files if ingested[path].kept]
            documents = pending_documents(kept, store, out, config)
            prefetch(client, lambda: [stages.generate(d) for d in documents])
        for path in tqdm(files, desc="files", unit="file", file=sys.stderr, disable=None):
            process_file(path, store, out, config, stages, ingested[path])
        run_dedup(store, config)
        summary = write_outputs(store, out, config.coverage)
        if client is not None:
            remember_failed_drafts(store, client.accounting, config.models.retry_failed)
            print(client.finish(out), file=sys.stderr)
        return summary
    finally:
        install_renderers(None)
        store.close()
