"""The state the workbook's artifact readers share: package, document, ids, media, notes,
and the displayed values a reference or defined name resolves to."""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import Any

from extractors.artifacts import ArtifactMaker
from extractors.base import ExtractContext
from extractors.excel.sheet import SheetData, parse_range
from extractors.excel.workbook import Workbook, open_workbook
from extractors.media import MediaWriter
from extractors.rendering import ChartRenderer
from fidelity.core.document import Artifact, Document
from fidelity.core.hashing import IdMaker
from fidelity.core.locator import Locator
from fidelity.core.xmlsafe import Package


class WorkbookState:
    """The state the workbook's artifact readers share: package, document, ids, media, notes,
    and the displayed values a reference or defined name resolves to."""

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
        where: Locator,
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
            where=where,
            text=text,
            facts=facts,
            fallback=fallback,
            media=media,
        )
        self.document.artifacts.append(artifact)
        return artifact

    def note(self, text: str) -> None:
        self.context.note(text)

    @cached_property
    def name_values(self) -> dict[str, str]:
        """What each defined name refers to (the first of a repeated name), looked up by
        name: each defined name and list validation resolves one."""
        values: dict[str, str] = {}
        for name in self.workbook.names:
            values.setdefault(name.name, name.value)
        return values

    def resolve_values(self, reference: str, sheet: str) -> list[str]:
        """Displayed values of a range reference (or a defined name pointing to one)."""
        named = self.name_values.get(reference)
        if named is not None:
            reference = named.lstrip("=")
        target_sheet, _, ref = reference.lstrip("=").rpartition("!")
        target_sheet = target_sheet.strip("'").replace("''", "'") or sheet
        data = self.data.get(target_sheet)
        try:
            top, left, bottom, right = parse_range(ref.replace("$", ""))
        except ValueError:
            return []
        if data is None:
            return []
        values = []
        for row in range(top, min(bottom, top + 200) + 1):
            for col in range(left, min(right, left + 20) + 1):
                cell = data.cells.get((row, col))
                if cell is not None and cell.display.strip():
                    values.append(cell.display.strip())
        return values
