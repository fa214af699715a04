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

from extractors import ExtractContext, ExtractionError, Source, extract
from extractors.media import MediaWriter
from extractors.rendering import Renderers
from fidelity.core.config import Config
from fidelity.core.document import Document
from fidelity.core.executor import Progress
from fidelity.core.services import Endpoint, RemoteConverter, RemoteModelClient
from fidelity.stages import Stages, filter_candidates, model_stages
from filters.groundedness import Outcome
from ingest.analyze import FileRecord


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


def new_document(record: FileRecord) -> Document:
    """The empty document of an ingested file (extraction fills it)."""
    return Document(
        sha256=record.sha256,
        app=record.app,
        format=record.format,
        source=record.path,
        converted_from=record.converted_from,
        notes=[record.extension_mismatch] if record.extension_mismatch else [],
    )


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
    media = MediaWriter(media_dir(context.out, record.sha256))
    document = extract(
        Source(Path(record.ooxml), new_document(record)),
        ExtractContext(media=media, renderers=renderers),
    )
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
