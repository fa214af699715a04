"""The state the workbook's artifact readers share: package, document, ids, media, notes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from extractors.artifacts import ArtifactMaker
from extractors.base import ExtractContext
from extractors.excel.sheet import SheetData
from extractors.excel.workbook import Workbook, open_workbook
from extractors.media import MediaWriter
from extractors.rendering import ChartRenderer
from fidelity.core.document import Artifact, Document
from fidelity.core.hashing import IdMaker
from fidelity.core.xmlsafe import Package


class WorkbookState:
    """The state the workbook's artifact readers share: package, document, ids, media, notes."""

    path: Path
    package: Package
    document: Document
    context: ExtractContext
    media: MediaWriter
    chart_renderer: ChartRenderer | None
    ids: IdMaker
    maker: ArtifactMaker
    workbook: Workbook
    body: list[str]
    data: dict[str, SheetData]
    formulas: dict[tuple[str, str], Artifact]
    analyses: dict[str, tuple[dict[str, Any], str]]  # formula text -> analysis, pattern
    copied_media: dict[str, tuple[str | None, dict[str, Any]]]  # picture part -> path, facts
    tables_of: dict[str, list[dict[str, Any]]]  # the tables of each worksheet part, read once
    table_names: set[str]
    names_by_lower: dict[str, str]
    people: dict[str, str]

    def __init__(
        self,
        path: Path,
        package: Package,
        document: Document,
        context: ExtractContext,
    ):
        self.path = path
        self.package = package
        self.document = document
        self.media = context.media
        self.chart_renderer = context.renderers.charts if context.media.enabled else None
        self.context = context
        self.ids = context.ids
        self.maker = ArtifactMaker(context.ids)
        self.workbook = open_workbook(package)
        self.body = []
        self.data = {}
        self.formulas = {}
        self.analyses = {}
        self.copied_media = {}

    def add(
        self,
        prefix: str,
        key: tuple[str, ...],
        category: str,
        kind: str,
        modality: str,
        locator: str,
        text: str,
        facts: dict[str, Any],
        fallback: str = "",
        media: str | None = None,
    ) -> Artifact:
        artifact = self.maker.make(
            prefix,
            key,
            category=category,
            kind=kind,
            modality=modality,
            locator=locator,
            text=text,
            facts=facts,
            fallback=fallback,
            media=media,
        )
        self.document.artifacts.append(artifact)
        return artifact

    def note(self, text: str) -> None:
        self.context.note(text)
