"""One input file's per-file work as a plain task: extraction, generation, per-file filters.

`process_file_task(work, progress)` runs in any process (a local worker today,
another machine later): everything it uses comes in `FileWork` — the ingest record
(hash, format and converted path already known: nothing is hashed, sniffed or
converted again), the settings, and a `WorkContext` saying where outputs go and
where the driver's converter and model client answer. It returns the document
with its filtered candidates, or the clean reason the file cannot be read; it
writes only media files under OUT, never the run store.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from extractors import ExtractionError, extract_file
from extractors.rendering import Renderers
from fidelity.core.config import Config
from fidelity.core.document import Document
from fidelity.core.executor import Progress
from fidelity.core.hashing import file_sha256
from fidelity.core.services import Endpoint, RemoteConverter, RemoteModelClient
from fidelity.stages import Stages, filter_candidates, model_stages
from filters.groundedness import Outcome
from ingest.analyze import FileRecord
from ingest.prepare import NotReadable, prepare
from ingest.sniff import sniff


@dataclass(frozen=True)
class WorkContext:
    """What a task needs besides its file and the settings: OUT and the driver's services."""

    out: Path
    services: Endpoint | None = None

    def converter(self) -> RemoteConverter | None:
        if self.services is None or not self.services.converter:
            return None
        return RemoteConverter(self.services)

    def stages(self, settings: Config) -> Stages:
        """Offline stages, or model mode through the driver's model client."""
        if self.services is None or not self.services.models:
            return Stages()
        client = RemoteModelClient(self.services, settings.models, self.out)
        return model_stages(settings, client)


@dataclass
class FileWork:
    """One kept file's work item (`document`: extracted before, so not extracted again)."""

    record: FileRecord
    settings: Config
    context: WorkContext
    document: Document | None = None


@dataclass
class FileResult:
    """The document and its filtered candidates, or why the file could not be read."""

    document: Document | None = None
    outcomes: list[Outcome] = field(default_factory=list)
    skip_reason: str = ""
    skip_stage: str = ""


def media_dir(out: Path, sha: str) -> Path:
    return out / "media" / sha[:16]


def empty_document(
    sha256: str,
    source: str,
    app: str,
    fmt: str,
    converted_from: str | None,
    extension_mismatch: str | None,
) -> Document:
    """The document of a sniffed file before extraction fills it."""
    return Document(
        sha256=sha256,
        app=app,
        format=fmt,
        source=source,
        converted_from=converted_from,
        notes=[extension_mismatch] if extension_mismatch else [],
    )


def new_document(record: FileRecord) -> Document:
    """The empty document of an ingested file (extraction fills it)."""
    assert record.app and record.format  # ingest keeps only files it sniffed as Office files
    return empty_document(
        record.sha256,
        record.path,
        record.app,
        record.format,
        record.converted_from,
        record.extension_mismatch,
    )


def open_document(
    path: Path,
    work: Path,
    sha256: str | None = None,
    media: Path | None = None,
    max_mb: float | None = None,
) -> Document:
    """One file outside a build (`fidelity extract`, the tests): sniffed, prepared (conversions
    under `work`) and extracted as the build extracts an ingested file, media under `media`
    (None: none written); raises NotReadable or ExtractionError."""
    size_mb = path.stat().st_size / 1e6
    if max_mb is not None and size_mb > max_mb:
        raise NotReadable(f"file is {size_mb:.1f} MB, over the {max_mb} MB limit")
    sha256 = sha256 or file_sha256(path)
    sniffed = sniff(path)
    ooxml, converted_from = prepare(path, sniffed, work / "converted", sha256=sha256)
    assert sniffed.app and sniffed.format  # prepare raised NotReadable otherwise
    document = empty_document(
        sha256, str(path), sniffed.app, sniffed.format, converted_from, sniffed.extension_mismatch
    )
    return extract_file(ooxml, document, media)


def extract_record(work: FileWork, progress: Progress) -> Document:
    """The document of the ingested file (raises ExtractionError for an unreadable one)."""
    record, context = work.record, work.context
    if work.document is not None:
        return work.document
    if not record.ooxml:
        raise ExtractionError("ingest found no OOXML file to extract")
    progress.enter("render")
    renderers = Renderers.through(context.converter())
    progress.enter("extract")
    media = media_dir(context.out, record.sha256)
    document = extract_file(Path(record.ooxml), new_document(record), media, renderers)
    document.size.update(record.size)  # ingest measured pages on a rendering: it wins over app.xml
    return document


def process_file_task(work: FileWork, progress: Progress) -> FileResult:
    """Extract, generate and filter one ingested file."""
    try:
        document = extract_record(work, progress)
    except ExtractionError as error:
        return FileResult(skip_reason=str(error), skip_stage="extract")
    progress.enter("generate")
    stages = work.context.stages(work.settings)
    candidates = stages.generate(document)
    progress.enter("filter")
    return FileResult(document, filter_candidates(document, candidates, stages))


def generate_task(work: FileWork, progress: Progress) -> Document | None:
    """Extraction and generation only (batch mode collects generation calls this way);
    returns the document (None when unreadable) so that later rounds skip extraction."""
    try:
        document = extract_record(work, progress)
    except ExtractionError:
        return None
    progress.enter("generate")
    work.context.stages(work.settings).generate(document)
    return document
