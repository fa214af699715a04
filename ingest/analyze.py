"""Everything ingest learns about one file on its own: format, conversion, probe, size, language.

The result depends only on the file's bytes and a few settings, so it is cached
as JSON under `<out>/ingest/` by sha256: a second run re-reads the cache and
neither converts nor parses again. Running out of memory is no verdict on the file:
the MemoryError leaves the task (nothing cached), the file is dropped as `memory` and
analysed again by the next run. Corpus-level decisions (near-duplicates,
ranking) are made later from these records.
"""

from __future__ import annotations

import hashlib
import importlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from fidelity.core.apps import APPLICATIONS, TAXONOMY
from fidelity.core.executor import Progress
from fidelity.core.hashing import file_sha256
from fidelity.core.services import Converter, Endpoint, RemoteConverter
from fidelity.core.xmlsafe import Package, UnsafePackage, out_of_memory
from ingest.language import identify
from ingest.prepare import NotReadable, needs_libreoffice, prepare
from ingest.probe import Probe, metadata
from ingest.settings import IngestSettings
from ingest.size import measure
from ingest.sniff import sniff

ANALYSIS_VERSION = 2  # 2: a DTD in any XML part of an OOXML package is refused


@dataclass
class FileRecord:
    """One input file as ingest sees it; `decision` fields are filled by curation and ranking."""

    path: str
    sha256: str
    bytes: int
    extension: str
    container: str = ""
    app: str | None = None
    format: str | None = None
    strict: bool = False
    template_type: bool = False
    converted_from: str | None = None
    ooxml: str | None = None
    extension_mismatch: str | None = None
    problem: str | None = None
    problem_code: str | None = None
    text: str = ""
    text_chars: int = 0
    placeholder_fraction: float = 0.0
    categories: dict[str, int] = field(default_factory=dict)
    features: dict[str, Any] = field(default_factory=dict)
    language: str = "und"
    language_score: float = 0.0
    size: dict[str, Any] = field(default_factory=dict)
    domain: str = ""
    decision: str = "keep"
    reason_code: str = ""
    reason: str = ""
    duplicate_of: str | None = None
    elo: float | None = None
    rank: int | None = None
    failure: dict[str, str] = field(default_factory=dict)  # how a worker failed on it, if it did

    def drop(self, code: str, reason: str) -> None:
        if self.decision == "keep":
            self.decision, self.reason_code, self.reason = "drop", code, reason

    @property
    def kept(self) -> bool:
        return self.decision == "keep"


def refused_record(path: Path, code: str, reason: str) -> FileRecord:
    """The record of an input entry that is not read at all (a link leading out of the input,
    looping or dangling, a link to a folder...), with the walk's reason code."""
    return FileRecord(
        path=str(path),
        sha256=hashlib.sha256(f"refused:{path}".encode()).hexdigest(),
        bytes=0,
        extension=path.suffix.lower().lstrip("."),
        container="link",
        problem=reason,
        problem_code=code,
    )


def _cache_key(settings: IngestSettings, converter: Converter | None) -> str:
    pdf = settings.word_pages_from_pdf and converter is not None
    return f"v{ANALYSIS_VERSION}-pdf{int(pdf)}-min{settings.language_min_words}"


def analyze(
    path: Path,
    out: Path,
    settings: IngestSettings,
    converter: Converter | None,
    sha256: str | None = None,
) -> FileRecord:
    """The per-file record of `path`, from the cache when this file was analysed before."""
    sha = sha256 or file_sha256(path)
    cache = out / "ingest" / f"{sha}.json"
    key = _cache_key(settings, converter)
    if cache.is_file():
        stored = json.loads(cache.read_text())
        if stored.pop("cache_key", "") == key:
            record = FileRecord(**stored)
            if record.converted_from is None and record.ooxml:
                record.ooxml = str(path)
            record.path = str(path)
            return record
    record = _analyze(path, sha, out, settings, converter)
    # A later run may have LibreOffice: failures that depend on it are not cached.
    lacking = record.problem_code == "conversion_failed" or "failed" in record.size.get(
        "source", ""
    )
    if not lacking:
        cache.parent.mkdir(parents=True, exist_ok=True)
        temporary = cache.with_suffix(".tmp")
        temporary.write_text(json.dumps({**asdict(record), "cache_key": key}, ensure_ascii=False))
        temporary.replace(cache)
    return record


def _analyze(
    path: Path, sha: str, out: Path, settings: IngestSettings, converter: Converter | None
) -> FileRecord:
    record = FileRecord(
        path=str(path),
        sha256=sha,
        bytes=path.stat().st_size,
        extension=path.suffix.lower().lstrip("."),
    )
    sniffed = sniff(path)
    record.container, record.app, record.format = sniffed.container, sniffed.app, sniffed.format
    record.strict, record.template_type = sniffed.strict, sniffed.template
    record.extension_mismatch = sniffed.extension_mismatch
    if sniffed.problem:
        record.problem, record.problem_code = sniffed.problem, sniffed.code
        return record
    if record.bytes > settings.max_file_mb * 1e6:
        record.problem = (
            f"file is {record.bytes / 1e6:.1f} MB, over the {settings.max_file_mb} MB limit"
        )
        record.problem_code = "too_large"
        return record
    if needs_libreoffice(sniffed) and converter is None:
        record.problem = f"{sniffed.format} needs LibreOffice, which this run does not use"
        record.problem_code = "conversion_failed"
        return record
    try:
        ooxml, record.converted_from = prepare(path, sniffed, out / "converted", converter, sha)
    except NotReadable as error:
        record.problem, record.problem_code = str(error), "conversion_failed"
        return record
    record.ooxml = str(ooxml)
    assert record.app is not None
    try:
        probe = _probe(ooxml, record.app)
    except UnsafePackage as error:
        record.problem, record.problem_code = f"unreadable package: {error}", error.code
        return record
    except Exception as error:  # a hostile or broken file must not stop the run
        if memory := out_of_memory(error):  # not a verdict on the file: the task fails
            raise memory from error
        record.problem = f"unreadable package: {type(error).__name__}: {error}"
        record.problem_code = "corrupt"
        return record
    record.text = probe.text
    record.text_chars = probe.content_chars
    record.placeholder_fraction = round(probe.placeholder_fraction, 4)
    record.categories, record.features = probe.categories, probe.features
    record.language, record.language_score = identify(probe.text, settings.language_min_words)
    pdf_converter = converter if settings.word_pages_from_pdf else None
    record.size = measure(record.app, probe, ooxml, pdf_converter)
    return record


def _probe(ooxml: Path, app: str) -> Probe:
    probe = Probe(app=app)
    with Package(ooxml) as package:
        count, values = metadata(package)
        if "Metadata" in TAXONOMY[app]:
            probe.categories["Metadata"] = count
        probe.features.update(
            producer=values.get("app.Application", ""),
            has_title=bool(values.get("title")),
            has_author=bool(values.get("creator")),
        )
        importlib.import_module(APPLICATIONS[app].probe).fill(package, probe, values)
    return probe


@dataclass(frozen=True)
class AnalysisWork:
    """One distinct file's analysis, as a worker receives it."""

    path: Path
    sha256: str
    out: Path
    settings: IngestSettings
    services: Endpoint


def analysis_task(work: AnalysisWork, progress: Progress) -> FileRecord:
    """Sniff, convert (through the driver's converter), probe and measure one file."""
    progress.enter("ingest")
    converter = RemoteConverter(work.services) if work.services.converter else None
    return analyze(work.path, work.out, work.settings, converter, work.sha256)
