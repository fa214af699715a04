"""The corpus-level ingest pass: analyse every file, curate, rank Word, write the corpus files.

`ingest_corpus(inputs, out, config)` returns a `Corpus` whose records say, for
each input file, keep or drop (with reason code and reason) and which OOXML file
to extract (`ooxml`: the file itself, or its cached conversion). It writes
`out/corpus.jsonl` (one row per file), `out/corpus.md` (the curator's report)
and `out/ingest/comparisons.jsonl` (every ranking comparison, with the judge).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterable, Mapping
from contextlib import nullcontext
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from fidelity.core.atomic import write_jsonl, write_text
from fidelity.core.config import Config
from fidelity.core.executor import MEMORY, Failure, failure_of
from fidelity.core.hashing import file_sha256
from fidelity.core.progress import progress as show_progress
from fidelity.core.workers import PRELOAD, WorkerPool, open_workers
from ingest.analyze import AnalysisWork, FileRecord, analysis_task, refused_record
from ingest.curate import curate
from ingest.discover import discover, refused
from ingest.rank import HeuristicJudge, Judge, Ranking, assign_domains, rank_word
from ingest.report import corpus_markdown
from ingest.settings import IngestSettings
from ingest.unoserver_pool import Converter, shared_converter

CORPUS_JSONL = "corpus.jsonl"
CORPUS_MD = "corpus.md"
COMPARISONS = "ingest/comparisons.jsonl"
ROW_FIELDS = (
    "path",
    "sha256",
    "bytes",
    "app",
    "format",
    "container",
    "strict",
    "converted_from",
    "ooxml",
    "extension_mismatch",
    "decision",
    "reason_code",
    "reason",
    "duplicate_of",
    "language",
    "language_score",
    "text_chars",
    "placeholder_fraction",
    "categories",
    "domain",
    "elo",
    "rank",
)


@dataclass
class Corpus:
    """Ingest's answer for a set of input files."""

    records: list[FileRecord]
    ranking: Ranking
    settings: IngestSettings

    def kept(self) -> list[FileRecord]:
        return [record for record in self.records if record.kept]

    def dropped(self) -> list[FileRecord]:
        return [record for record in self.records if not record.kept]

    def row(self, record: FileRecord) -> dict[str, Any]:
        """The corpus.jsonl row of a file."""
        row = {name: getattr(record, name) for name in ROW_FIELDS}
        row["size"] = {key: record.size.get(key) for key in ("unit", "count", "source")}
        row["bucket"] = record.size.get("bucket")
        row["rank_judge"] = self.ranking.judge if record.elo is not None else None
        return row


def failed_record(path: Path, sha: str, failure: Failure) -> FileRecord:
    """The record of a file whose analysis raised, crashed, hung or ran out of memory."""
    try:
        size = path.stat().st_size
    except OSError:
        size = 0
    record = FileRecord(path=str(path), sha256=sha, bytes=size, extension=path.suffix.lower()[1:])
    code = MEMORY if failure.out_of_memory else "analysis_failed"
    record.problem, record.problem_code = failure.reason, code
    record.failure = failure.info()
    return record


def _hashes(files: list[Path]) -> tuple[dict[Path, str], dict[Path, Failure]]:
    """The sha256 of each readable file, and why each other one could not be read.

    An unreadable file is keyed by a hash of its path (it has no content hash).
    """
    shas, unreadable = {}, {}
    for path in files:
        try:
            shas[path] = file_sha256(path)
        except OSError as error:
            unreadable[path] = failure_of(error, "ingest")
            shas[path] = hashlib.sha256(f"unreadable:{path}".encode()).hexdigest()
    return shas, unreadable


def _analyze_all(
    files: list[Path], out: Path, settings: IngestSettings, workers: WorkerPool, progress: bool
) -> list[FileRecord]:
    """One analysis per distinct content (identical files share it), in worker processes."""
    shas, unreadable = _hashes(files)
    first: dict[str, Path] = {}
    for path in files:
        if path not in unreadable:
            first.setdefault(shas[path], path)
    work = [AnalysisWork(path, sha, out, settings, workers.services) for sha, path in first.items()]
    done = []
    results = workers.executor.map(analysis_task, work)
    for item, result in zip(
        work,
        show_progress(results, total=len(work), desc="ingest", enabled=progress),
        strict=True,
    ):
        if result.value is not None:
            done.append(result.value)
        else:
            assert result.failure is not None
            done.append(failed_record(item.path, item.sha256, result.failure))
    by_sha = {record.sha256: record for record in done}
    for path, failure in unreadable.items():
        by_sha[shas[path]] = failed_record(path, shas[path], failure)
    records = []
    for path in files:
        record = by_sha[shas[path]]
        if record.path != str(path):
            ooxml = record.ooxml if record.converted_from else str(path)
            record = replace(record, path=str(path), ooxml=ooxml)
        records.append(record)
    return records


def ingest_corpus(
    inputs: Iterable[Path],
    out: Path,
    config: Config,
    *,
    settings: IngestSettings | None = None,
    converter: Converter | None = None,
    use_libreoffice: bool = True,
    judge: Judge | None = None,
    labeler: Callable[[FileRecord], str] | None = None,
    progress: bool = True,
    workers: WorkerPool | None = None,
) -> Corpus:
    """Run discovery, conversion, curation and ranking over the inputs; write the corpus files.

    Each file is analysed in a worker process (`workers`, else a pool opened for this
    call from `config`); a file whose analysis fails in any way is dropped with the
    reason. LibreOffice work goes to `converter`, else to the process-wide shared
    converter (started on first need; `use_libreoffice=False` runs without it: files
    that need a conversion are dropped as conversion_failed, Word pages come from app.xml).
    """
    settings = settings or IngestSettings.from_config(config)
    out.mkdir(parents=True, exist_ok=True)
    if converter is None and use_libreoffice:
        converter = shared_converter(settings.servers, settings.conversion_timeout)
    inputs = list(inputs)
    files = discover(inputs)
    preload = (*PRELOAD, "ingest.analyze", "ingest.language_model")
    pool = (
        nullcontext(workers)
        if workers is not None
        else open_workers(config, converter, None, preload)
    )
    with pool as opened:
        records = _analyze_all(files, out, settings, opened, progress)
    records += [refused_record(path, *refusal) for path, refusal in refused(inputs).items()]
    curate(records, settings)
    assign_domains(records, settings, labeler)
    ranking = rank_word(records, settings, judge or HeuristicJudge())
    corpus = Corpus(records, ranking, settings)
    write_corpus(corpus, out)
    return corpus


def write_corpus(corpus: Corpus, out: Path) -> None:
    """The corpus files; a conversion's path is written relative to OUT (OUT's name is no
    part of a decision)."""
    rows = [corpus.row(record) for record in corpus.records]
    for row in rows:
        if row["converted_from"] and row["ooxml"]:
            row["ooxml"] = os.path.relpath(os.path.abspath(row["ooxml"]), os.path.abspath(out))
    write_jsonl(out / CORPUS_JSONL, rows, sort_keys=True)
    write_jsonl(out / COMPARISONS, corpus.ranking.comparisons, sort_keys=True)
    write_corpus_md(corpus, out)


def write_corpus_md(
    corpus: Corpus, out: Path, extracted: Mapping[tuple[str, str], tuple[int, int]] | None = None
) -> None:
    """corpus.md; after extraction, `extracted` gives its coverage table the artifacts'
    (files, count) per (app, category), the counts coverage.md shows."""
    text = corpus_markdown(corpus.records, corpus.ranking, corpus.settings, extracted)
    write_text(out / CORPUS_MD, text)
