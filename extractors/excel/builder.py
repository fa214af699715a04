"""The workbook's document: sheet index, one section per sheet (placed by position), names."""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

from extractors.base import ExtractionError
from extractors.excel import colors
from extractors.excel.display import CellDisplay
from extractors.excel.drawing_artifacts import DrawingArtifacts
from extractors.excel.formula_artifacts import FormulaArtifacts
from extractors.excel.formulas import by_lower_case
from extractors.excel.note_artifacts import NoteArtifacts
from extractors.excel.objects import drawing_objects, persons, pivots, related, tables
from extractors.excel.region_artifacts import RegionArtifacts
from extractors.excel.regions import detect
from extractors.excel.render import CellRenderer
from extractors.excel.sheet import (
    MAX_ROWS,
    range_ref,
    read_sheet,
)
from extractors.excel.workbook import SheetInfo
from extractors.ooxml.props import metadata_artifacts, original_properties
from extractors.part_guard import PART_ERRORS, read_part
from fidelity.core.document import Artifact
from fidelity.core.locator import Locator
from fidelity.core.sizes import size_metadata
from fidelity.core.xmlsafe import Package, UnsafePackage


class WorkbookBuilder(RegionArtifacts, FormulaArtifacts, DrawingArtifacts, NoteArtifacts):
    """The workbook's document: sheet index, one section per sheet (placed by position), names."""

    def run(self) -> None:
        sheets = self.workbook.sheets
        if not sheets:
            raise ExtractionError("workbook has no sheets")
        display = CellDisplay(self.workbook)
        for sheet in sheets:
            if sheet.part and sheet.kind == "worksheet":
                try:
                    self.data[sheet.name] = read_sheet(self.workbook, sheet.part, display)
                except (UnsafePackage, ValueError, zipfile.BadZipFile, *PART_ERRORS) as error:
                    self.note(f"sheet {sheet.name!r} could not be read: {error}")
        self.tables_of = {
            sheet.part: tables(self.package, sheet.part)
            for sheet in sheets
            if sheet.part and sheet.kind == "worksheet"
        }
        self.table_names = {t["name"] for found in self.tables_of.values() for t in found}
        self.names_by_lower = by_lower_case({n.name for n in self.workbook.names})
        self.people = persons(self.package, self.workbook.part)
        title = Path(self.document.source).name
        self.body.append(f"# Workbook {title}")
        plural = "sheet" if len(sheets) == 1 else "sheets"
        self.body.append(f"## Sheet index ({len(sheets)} {plural})")
        for sheet in sheets:
            self.body.append(self.sheet_artifact(sheet, len(sheets)).placeholder or "")
        for sheet in sheets:
            self.sheet_section(sheet)
        grown = (self.document.artifacts, self.body)
        read_part(self.note, "defined names", self.defined_names, None, grown)
        properties: list[Artifact] = read_part(
            self.note,
            "document properties",
            lambda: metadata_artifacts(self.package, category="Other"),
            [],
        )
        self.document.artifacts.extend(properties)
        original_properties(self.document, category="Other")  # a converted .xls: its dates
        self.document.body = "\n\n".join(self.body)
        hidden = sum(1 for sheet in sheets if sheet.state != "visible")
        self.document.size = size_metadata(
            "excel", len(sheets), "xl/workbook.xml", hidden_sheets=hidden
        )

    def sheet_artifact(self, sheet: SheetInfo, count: int) -> Artifact:
        data = self.data.get(sheet.name)
        kind_word = {"chartsheet": "chart sheet", "dialogsheet": "dialog sheet"}.get(
            sheet.kind, "worksheet"
        )
        parts = [f"Sheet {sheet.index} of {count}: '{sheet.name}'", kind_word, sheet.state]
        facts: dict[str, Any] = {
            "sheet": sheet.name,
            "name": sheet.name,
            "position": sheet.index,
            "count": count,
            "state": sheet.state,
            "kind": sheet.kind,
        }
        if data is not None:
            if data.cells_seen:
                used = range_ref((1, 1, data.max_row, data.max_col))
                parts.append(f"content up to {used} ({data.cells_seen} non-empty cells)")
                facts.update(used_range=used, cells=data.cells_seen, formulas=data.formulas_seen)
            else:
                parts.append("empty")
                facts["empty"] = True
            if data.tab_color:
                parts.append(f"tab colour {colors.describe(data.tab_color)}")
                facts["tab_color"] = colors.name(data.tab_color)
                facts["tab_color_hex"] = data.tab_color
            if data.frozen:
                parts.append(f"panes frozen at {data.frozen}")
                facts["frozen"] = data.frozen
            if data.truncated_at_row:
                parts.append(
                    f"only rows before {data.truncated_at_row} are rendered "
                    f"(limit {MAX_ROWS} rows; {data.rows_seen} rows in the sheet)"
                )
                facts["truncated_at_row"] = data.truncated_at_row
                self.note(
                    f"sheet {sheet.name!r}: rendering stopped at row {data.truncated_at_row} "
                    f"of {data.max_row}"
                )
        text = "; ".join(parts)
        return self.add(
            "sheet",
            (sheet.name,),
            "Sheet",
            "sheet",
            "element",
            Locator(sheet=sheet.name),
            text,
            facts,
        )

    def sheet_section(self, sheet: SheetInfo) -> None:
        self.body.append(f"## Sheet '{sheet.name}'")
        if sheet.part is None:
            self.body.append("(no content part)")
            return
        placed: list[tuple[tuple[int, int], str]] = []
        if sheet.kind == "chartsheet":
            for drawing in related(self.package, sheet.part, "drawing"):
                for item in drawing_objects(self.package, drawing):
                    placed.extend(self.drawing_item(sheet, item))
            self.body.extend(p for _, p in sorted(placed))
            return
        data = self.data.get(sheet.name)
        if data is None:
            return
        formula_marks = self.formula_artifacts(sheet, data)
        renderer = CellRenderer(data.cells, self.workbook.styles.of, formula_marks, data.merged)
        excluded = []
        for table in self.tables_of.get(sheet.part, []):
            excluded.append(table["box"])
            placed.append(((table["box"][0], table["box"][1]), self.table(sheet, table, renderer)))
        for pivot in pivots(self.package, sheet.part):
            if pivot["box"] is not None:
                excluded.append(pivot["box"])
                position = (pivot["box"][0], pivot["box"][1])
            else:
                position = (0, 0)
            placed.append((position, self.pivot(sheet, pivot, renderer)))
        points = set(data.cells)

        def is_text(point: tuple[int, int]) -> bool:
            cell = data.cells.get(point)
            return cell is None or isinstance(cell.value, str)

        def is_bold(point: tuple[int, int]) -> bool:
            cell = data.cells.get(point)
            return cell is not None and self.workbook.styles.of(cell.style).bold

        for region in detect(points, excluded, data.merged, is_text, is_bold):
            position = (region.box[0], region.box[1])
            placed.append((position, self.region(sheet, region, renderer, data)))
        for rid_ in data.drawing_rids:
            rel = self.package.rels(sheet.part).get(rid_)
            if not rel:
                continue
            drawing = Package.resolve(sheet.part, rel[1])
            for item in drawing_objects(self.package, drawing):
                placed.extend(self.drawing_item(sheet, item))
        self.body.extend(p for _, p in sorted(placed, key=lambda x: x[0]))
        extras: list[str] = read_part(
            self.note,
            f"comments, links and rules of sheet {sheet.name!r}",
            lambda: self.sheet_extras(sheet, data),
            [],
            (self.document.artifacts,),
        )
        if extras:
            self.body.append(f"### Comments, links and rules on '{sheet.name}'")
            self.body.extend(extras)
