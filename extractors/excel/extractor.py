"""Excel extractor: a workbook (.xlsx/.xlsm/.xltx, transitional or strict) into a Document.

The body is a leading sheet index, then one section per sheet whose content is a
sequence of placeholders ordered by position: table-like ranges, formal tables,
pivot tables and free-cell blocks (each cell with coordinates, displayed value and
formatting cues; formula cells are nested Formula artifacts whose fallback is the
cached value), charts, images and shapes at their anchor cell; then the sheet's
comments, hyperlinks, data validations and conditional formats; defined names last.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path
from typing import Any

from extractors.base import ExtractContext, ExtractionError, Source
from extractors.excel import colors
from extractors.excel.formulas import analyse
from extractors.excel.objects import comments, drawing_objects, persons, pivots, related, tables
from extractors.excel.regions import Region, detect
from extractors.excel.render import CellRenderer, cell_lines, grid, sheet_label
from extractors.excel.sheet import (
    MAX_ROWS,
    Cell,
    SheetData,
    parse_range,
    range_ref,
    read_sheet,
)
from extractors.excel.workbook import SheetInfo, Workbook, open_workbook
from extractors.ooxml.chart import chart_text, parse_chart
from extractors.ooxml.namespaces import preset_name
from extractors.ooxml.props import metadata_artifacts
from extractors.rendering import ChartRenderer
from fidelity.model import Artifact, Document, placeholder_for
from fidelity.sizes import size_metadata
from fidelity.xmlsafe import Package, UnsafePackage

MAX_FORMULAS_PER_SHEET = 2000
ASKED_FORMULAS_PER_SHEET = 6
MAX_LOOKUPS = 4


def geometry_words(prst: str) -> str:
    """A DrawingML preset geometry by the name Office shows (shared with PowerPoint)."""
    return "freeform" if prst == "custom" else preset_name(prst)


class _Builder:
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
        self.chart_renderer: ChartRenderer | None = (
            context.renderers.charts if context.media.enabled else None
        )
        self.context = context
        self.ids = context.ids
        self.workbook: Workbook = open_workbook(package)
        self.body: list[str] = []
        self.data: dict[str, SheetData] = {}
        self.formulas: dict[tuple[str, str], Artifact] = {}

    # -- helpers -------------------------------------------------------------
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
        artifact_id = self.ids(prefix, *key)
        artifact = Artifact(
            id=artifact_id,
            category=category,
            kind=kind,
            modality=modality,  # type: ignore[arg-type]
            locator=locator,
            text=text,
            facts=facts,
            fallback=fallback,
            media=media,
            placeholder=placeholder_for(artifact_id),
        )
        self.document.artifacts.append(artifact)
        return artifact

    def note(self, text: str) -> None:
        self.context.note(text)

    # -- workbook --------------------------------------------------------------
    def run(self) -> None:
        sheets = self.workbook.sheets
        if not sheets:
            raise ExtractionError("workbook has no sheets")
        for sheet in sheets:
            if sheet.part and sheet.kind == "worksheet":
                try:
                    self.data[sheet.name] = read_sheet(self.workbook, sheet.part)
                except (UnsafePackage, ValueError, KeyError, zipfile.BadZipFile) as error:
                    self.note(f"sheet {sheet.name!r} could not be read: {error}")
        self.table_names = {
            t["name"]
            for sheet in sheets
            if sheet.part and sheet.kind == "worksheet"
            for t in tables(self.package, sheet.part)
        }
        self.name_set = {n.name for n in self.workbook.names}
        self.people = persons(self.package, self.workbook.part)
        title = Path(self.document.source).name
        self.body.append(f"# Workbook {title}")
        plural = "sheet" if len(sheets) == 1 else "sheets"
        self.body.append(f"## Sheet index ({len(sheets)} {plural})")
        for sheet in sheets:
            self.body.append(self.sheet_artifact(sheet, len(sheets)).placeholder or "")
        for sheet in sheets:
            self.sheet_section(sheet)
        self.defined_names()
        properties = metadata_artifacts(self.package, category="Other")
        self.document.artifacts.extend(properties)
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
            f"{sheet_label(sheet.name)}",
            text,
            facts,
        )

    # -- one sheet -------------------------------------------------------------
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
        label = sheet_label(sheet.name)
        formula_marks = self.formula_artifacts(sheet, data)
        renderer = CellRenderer(data.cells, self.workbook.styles.of, formula_marks, data.merged)
        excluded = []
        for table in tables(self.package, sheet.part):
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
            placed.append((position, self.region(sheet, label, region, renderer, data)))
        for rid_ in data.drawing_rids:
            rel = self.package.rels(sheet.part).get(rid_)
            if not rel:
                continue
            drawing = Package.resolve(sheet.part, rel[1])
            for item in drawing_objects(self.package, drawing):
                placed.extend(self.drawing_item(sheet, item))
        self.body.extend(p for _, p in sorted(placed, key=lambda x: x[0]))
        extras = self.sheet_extras(sheet, data)
        if extras:
            self.body.append(f"### Comments, links and rules on '{sheet.name}'")
            self.body.extend(extras)

    def formula_artifacts(self, sheet: SheetInfo, data: SheetData) -> dict[tuple[int, int], str]:
        marks: dict[tuple[int, int], str] = {}
        label = sheet_label(sheet.name)
        seen_patterns: set[str] = set()
        asked = 0
        ordered = sorted(
            (c for c in data.cells.values() if c.formula),
            key=lambda c: (c.row, c.col),
        )
        if len(ordered) > MAX_FORMULAS_PER_SHEET:
            self.note(
                f"sheet {sheet.name!r}: {len(ordered)} formulas, only the first "
                f"{MAX_FORMULAS_PER_SHEET} become Formula artifacts (the rest show values)"
            )
        for cell in ordered[:MAX_FORMULAS_PER_SHEET]:
            info = analyse(cell.formula or "", self.name_set, self.table_names)
            pattern = re.sub(r"\$?[A-Z]{1,3}\$?\d+", "R", cell.formula or "")
            representative = pattern not in seen_patterns and cell.formula_type != "dataTable"
            seen_patterns.add(pattern)
            notable = bool(info["sheets"] or info["names"] or info["aggregate"] or info["tables"])
            ask = (
                representative
                and asked < ASKED_FORMULAS_PER_SHEET
                and (notable or asked < ASKED_FORMULAS_PER_SHEET // 2)
            )
            asked += ask
            shown = cell.display
            if cell.formula_type == "array":
                formula_text = f"{{={cell.formula}}}"
                what = "array formula"
            else:
                formula_text = f"={cell.formula}"
                what = "formula"
            text = f"{shown} ({what} {label}!{cell.ref}: {formula_text})".strip()
            facts = {
                "sheet": sheet.name,
                "cell": cell.ref,
                "formula": formula_text,
                "cached_value": None if cell.value is None else str(cell.value),
                "display": shown,
                "formula_type": cell.formula_type,
                "representative": representative,
                "ask": ask,
                **info,
            }
            artifact = self.add(
                "formula",
                (sheet.name, cell.ref),
                "Formula",
                "formula",
                "element",
                f"{label}!{cell.ref}",
                " ".join(text.replace("|", "\\|").split()),
                facts,
                fallback=" ".join(shown.replace("|", "\\|").split()),
            )
            self.formulas[(sheet.name, cell.ref)] = artifact
            marks[(cell.row, cell.col)] = artifact.placeholder or ""
        return marks

    def region(
        self,
        sheet: SheetInfo,
        label: str,
        region: Region,
        renderer: CellRenderer,
        data: SheetData,
    ) -> str:
        ref = range_ref(region.box)
        locator = f"{label}!{ref}"
        if region.kind == "tlr":
            header = region.header_row
            detail = f"header row {header}" if header else "no header row detected"
            text = f"Table-like range {locator} ({detail})\n\n" + grid(
                renderer, region.box, header, MAX_ROWS
            )
            facts = {
                "sheet": sheet.name,
                "range": ref,
                "header_row": header,
                "headers": self.headers(data, region.box, header),
                "lookups": self.lookups(data, region.box, header),
                "rows": region.box[2] - region.box[0] + 1,
                "columns": region.box[3] - region.box[1] + 1,
            }
            artifact = self.add(
                "tlr", (sheet.name, ref), "TLR", "tlr", "table", locator, text, facts
            )
            return artifact.placeholder or ""
        text = f"Cells in {locator}:\n" + cell_lines(renderer, region.cells)
        pairs = []
        for row, col in region.cells:
            left, right = data.cells.get((row, col)), data.cells.get((row, col + 1))
            if (
                left is not None
                and right is not None
                and isinstance(left.value, str)
                and left.display.strip()
                and right.display.strip()
                and not right.formula
            ):
                pairs.append({"label": left.display, "cell": right.ref, "value": right.display})
        facts = {
            "sheet": sheet.name,
            "range": ref,
            "cells": [
                {"cell": data.cells[p].ref, "text": data.cells[p].display}
                for p in region.cells[:50]
                if p in data.cells
            ],
            "pairs": pairs[:10],
        }
        artifact = self.add(
            "cells", (sheet.name, ref), "Unstructured", "cells", "text", locator, text, facts
        )
        return artifact.placeholder or ""

    @staticmethod
    def headers(data: SheetData, box: tuple[int, int, int, int], header: int | None) -> dict:
        if header is None:
            return {}
        out = {}
        for col in range(box[1], box[3] + 1):
            cell = data.cells.get((header, col))
            if cell is not None and cell.display.strip():
                out[cell.ref[: -len(str(header))]] = cell.display
        return out

    @staticmethod
    def lookups(data: SheetData, box: tuple[int, int, int, int], header: int | None) -> list:
        """Cells addressable by (row label in the first column, column header)."""
        if header is None:
            return []
        top, left, bottom, right = box
        labels: dict[int, str] = {}
        for row in range(header + 1, bottom + 1):
            cell = data.cells.get((row, left))
            if cell is not None and isinstance(cell.value, str) and cell.display.strip():
                labels[row] = cell.display.strip()
        unique_labels = {r: t for r, t in labels.items() if list(labels.values()).count(t) == 1}
        # A header merged over several columns names none of them alone (ask no lookup there).
        spanned = {
            (header, col)
            for top_row, first, bottom_row, last in data.merged
            if top_row <= header <= bottom_row and last > first
            for col in range(first, last + 1)
        }
        out = []
        for row, row_label in unique_labels.items():
            for col in range(right, left, -1):
                head = data.cells.get((header, col))
                cell = data.cells.get((row, col))
                if head is None or cell is None or not head.display.strip():
                    continue
                if (header, col) in spanned:
                    continue
                if not cell.display.strip() or len(cell.display) > 60:
                    continue
                out.append(
                    {
                        "cell": cell.ref,
                        "row_label": row_label,
                        "column_header": head.display.strip(),
                        "value": cell.display.strip(),
                        "formula": bool(cell.formula),
                    }
                )
                break
            if len(out) >= MAX_LOOKUPS:
                break
        return out

    def table(self, sheet: SheetInfo, table: dict[str, Any], renderer: CellRenderer) -> str:
        label = sheet_label(sheet.name)
        box = table["box"]
        header = box[0] if table["header_rows"] else None
        lines = [f"Table '{table['name']}' at {label}!{table['ref']}"]
        if table["style"]:
            lines.append(f"Table style: {table['style']}")
        columns = ", ".join(c["name"] for c in table["columns"])
        lines.append(f"Declared columns: {columns}")
        if table["totals_rows"]:
            lines.append("The table has a totals row")
        for column in table["columns"]:
            if column["formula"]:
                lines.append(f"Calculated column '{column['name']}': ={column['formula']}")
            if column["totals_function"] and table["totals_rows"]:
                lines.append(f"Totals row of '{column['name']}': {column['totals_function']}")
        text = "\n".join(lines) + "\n\n" + grid(renderer, box, header, MAX_ROWS)
        data = self.data[sheet.name]
        facts = {
            **{k: v for k, v in table.items() if k != "box"},
            "sheet": sheet.name,
            "range": table["ref"],
            "lookups": self.lookups(data, box, header),
        }
        artifact = self.add(
            "table",
            (sheet.name, table["name"]),
            "Table",
            "table",
            "table",
            f"{label}!{table['ref']}",
            text,
            facts,
        )
        return artifact.placeholder or ""

    def pivot(self, sheet: SheetInfo, pivot: dict[str, Any], renderer: CellRenderer) -> str:
        label = sheet_label(sheet.name)
        lines = [f"PivotTable '{pivot['name']}' at {label}!{pivot['location']}"]
        lines.append(f"Source data: {pivot['source'] or 'unknown'}")
        for key, word in (
            ("row_fields", "Row fields"),
            ("column_fields", "Column fields"),
            ("page_fields", "Filter (page) fields"),
        ):
            if pivot[key]:
                lines.append(f"{word}: {', '.join(pivot[key])}")
        for data_field in pivot["data_fields"]:
            shown = f" shown as {data_field['show_as']}" if data_field["show_as"] else ""
            lines.append(
                f"Value field '{data_field['name']}': {data_field['aggregation']} "
                f"of {data_field['field']}{shown}"
            )
        text = "\n".join(lines)
        if pivot["box"] is not None:
            text += "\n\n" + grid(renderer, pivot["box"], None, MAX_ROWS)
        facts = {**{k: v for k, v in pivot.items() if k != "box"}, "sheet": sheet.name}
        artifact = self.add(
            "pivot",
            (sheet.name, pivot["name"]),
            "PivotTable",
            "pivot",
            "table",
            f"{label}!{pivot['location']}",
            text,
            facts,
        )
        return artifact.placeholder or ""

    def drawing_item(
        self, sheet: SheetInfo, item: dict[str, Any]
    ) -> list[tuple[tuple[int, int], str]]:
        label = sheet_label(sheet.name)
        position = item.get("position") or (0, 0)
        where = item["anchor"] + (f":{item['anchor_end']}" if item.get("anchor_end") else "")
        locator = f"{label}!{item['anchor']}" if item["anchor"] else label
        base = {
            "sheet": sheet.name,
            "name": item["name"],
            "description": item["description"],
            "anchor": item["anchor"],
            "anchor_range": where,
        }
        alt = f"\nAlt text: {item['description']}" if item["description"] else ""
        if item["type"] == "chart":
            try:
                facts = parse_chart(self.package, item["part"])
            except (KeyError, ValueError, UnsafePackage) as error:
                self.note(f"chart {item['part']} could not be read: {error}")
                return []
            facts.update(base)
            media = self.render_chart(sheet, facts)
            text = f"Chart '{item['name']}' on sheet {label}, placed over {where}{alt}\n"
            text += chart_text(facts)
            artifact = self.add(
                "chart",
                (item["part"],),
                "Chart",
                "chart",
                "visual",
                locator,
                text,
                facts,
                media=media,
            )
            return [(position, artifact.placeholder or "")]
        if item["type"] == "image":
            media, info = self.copy_media(item.get("part"))
            text = f"Image '{item['name']}' on sheet {label}, placed over {where}{alt}"
            if info.get("width"):
                text += f"\nImage size: {info['width']}x{info['height']} pixels ({info['format']})"
            artifact = self.add(
                "image",
                (sheet.name, item["name"], item.get("part") or "", item["anchor"]),
                "Image",
                "image",
                "visual",
                locator,
                text,
                {**base, **info, "part": item.get("part")},
                media=media,
            )
            return [(position, artifact.placeholder or "")]
        if item.get("connector") and not item["text"]:
            return []
        shape = geometry_words(item["geometry"])
        text = f"Shape '{item['name']}' ({shape}) on sheet {label}, placed over {where}"
        if item["text"]:
            text += f"\nShape text: {item['text']}"
        if item.get("group"):
            text += f"\nPart of group '{item['group']}'"
        text += alt
        facts = {**base, "geometry": item["geometry"], "shape_type": shape, "text": item["text"]}
        facts["group"] = item.get("group")
        artifact = self.add(
            "shape",
            (sheet.name, item["name"], item["anchor"]),
            "Shape",
            "shape",
            "element",
            locator,
            text,
            facts,
        )
        return [(position, artifact.placeholder or "")]

    def render_chart(self, sheet: SheetInfo, facts: dict[str, Any]) -> str | None:
        if self.chart_renderer is None:
            return None
        try:
            image = self.chart_renderer(self.path, sheet.name, facts, self.media.directory())
        except Exception as error:  # rendering is optional; the chart's facts remain
            self.note(f"chart image not rendered: {error}")
            return None
        return self.media.relative(image.name) if image else None

    def copy_media(self, part: str | None) -> tuple[str | None, dict[str, Any]]:
        if not part or not self.package.has(part):
            return None, {}
        data = self.package.read(part)
        info: dict[str, Any] = {"format": part.rsplit(".", 1)[-1].lower()}
        try:
            from io import BytesIO

            from PIL import Image

            with Image.open(BytesIO(data)) as image:
                info.update(width=image.width, height=image.height, format=image.format or "")
        except Exception:  # not every embedded picture is a raster image Pillow reads
            pass
        from fidelity.hashing import short_hash

        name = f"{short_hash(part)}-{part.rsplit('/', 1)[-1]}"
        return self.media.write(name, data), info

    # -- comments, links, validation, conditional formats ------------------------
    def sheet_extras(self, sheet: SheetInfo, data: SheetData) -> list[str]:
        out = []
        label = sheet_label(sheet.name)
        assert sheet.part is not None
        for item in comments(self.package, sheet.part, self.people):
            kind_word = "Threaded comment" if item["kind"] == "threaded" else "Comment (note)"
            author = f" by {item['author']}" if item["author"] else ""
            text = f"{kind_word} on {label}!{item['ref']}{author}: {item['text']}"
            for reply in item["replies"]:
                by = f" by {reply['author']}" if reply["author"] else ""
                text += f"\nReply{by}: {reply['text']}"
            cell = self.cell_at(data, item["ref"])
            facts = {**item, "sheet": sheet.name, "cell_value": cell.display if cell else None}
            artifact = self.add(
                "comment",
                (sheet.name, item["ref"], item["text"][:50]),
                "Other",
                "comment",
                "element",
                f"{label}!{item['ref']}",
                text,
                facts,
            )
            out.append(artifact.placeholder or "")
        rels = self.package.rels(sheet.part)
        for link in data.hyperlinks:
            target = ""
            rel = rels.get(link["rid"]) if link["rid"] else None
            if rel:
                target = rel[1]
            if link["location"]:
                target = f"{target}#{link['location']}" if target else link["location"]
            if not target:
                continue
            cell = self.cell_at(data, link["ref"].split(":")[0])
            shown = link["display"] or (cell.display if cell else "")
            text = f"Hyperlink on {label}!{link['ref']}"
            text += f" ('{shown}')" if shown else ""
            text += f" points to {target}"
            if link["tooltip"]:
                text += f" (tooltip: {link['tooltip']})"
            facts = {
                "sheet": sheet.name,
                "cell": link["ref"],
                "target": target,
                "display": shown,
                "internal": not rel,
            }
            artifact = self.add(
                "link",
                (sheet.name, link["ref"], target),
                "Other",
                "hyperlink",
                "element",
                f"{label}!{link['ref']}",
                text,
                facts,
            )
            out.append(artifact.placeholder or "")
        for rule in data.validations:
            artifact = self.validation(sheet, rule)
            if artifact:
                out.append(artifact.placeholder or "")
        seen: set[tuple[str, str, str]] = set()
        for rule in data.conditional:
            key = (str(rule["sqref"]), str(rule["type"]), str(rule["formulas"]))
            if key in seen:
                continue
            seen.add(key)
            artifact = self.conditional(sheet, rule)
            out.append(artifact.placeholder or "")
        return out

    @staticmethod
    def cell_at(data: SheetData, ref: str) -> Cell | None:
        try:
            top, left, _, _ = parse_range(ref)
        except ValueError:
            return None
        return data.cells.get((top, left))

    def resolve_values(self, reference: str, sheet: str) -> list[str]:
        """Displayed values of a range reference (or a defined name pointing to one)."""
        for name in self.workbook.names:
            if name.name == reference:
                reference = name.value.lstrip("=")
                break
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

    def validation(self, sheet: SheetInfo, rule: dict[str, Any]) -> Artifact | None:
        label = sheet_label(sheet.name)
        sqref = str(rule["sqref"])
        if not sqref:
            return None
        formula = rule["formula1"] or ""
        values: list[str] = []
        if rule["type"] == "list":
            if formula.startswith('"'):
                values = [v.strip() for v in formula.strip('"').split(",")]
                description = f"list of allowed values: {', '.join(values)}"
            else:
                values = self.resolve_values(formula, sheet.name)
                shown = f": {', '.join(values[:30])}" if values else ""
                description = f"list of allowed values from {formula}{shown}"
        else:
            bounds = " and ".join(f for f in (rule["formula1"], rule["formula2"]) if f)
            operator = rule["operator"] or ("between" if rule["formula2"] else "")
            description = f"{rule['type']} values {operator} {bounds}".replace("  ", " ").strip()
        text = f"Data validation on {label}!{sqref}: {description}"
        if rule["prompt"]:
            text += f"\nInput message: {rule['prompt_title'] or ''} {rule['prompt']}".rstrip()
        if rule["error"]:
            text += f"\nError message: {rule['error_title'] or ''} {rule['error']}".rstrip()
        facts = {**rule, "sheet": sheet.name, "values": values[:50], "description": description}
        return self.add(
            "validation",
            (sheet.name, sqref, formula),
            "Other",
            "data-validation",
            "element",
            f"{label}!{sqref.split()[0]}",
            text,
            facts,
        )

    def conditional(self, sheet: SheetInfo, rule: dict[str, Any]) -> Artifact:
        label = sheet_label(sheet.name)
        kind = rule["type"]
        if kind == "cellIs":
            bounds = " and ".join(rule["formulas"])
            condition = f"cell value {_words(rule['operator'] or '')} {bounds}"
        elif kind == "expression":
            condition = f"formula ={rule['formulas'][0]}" if rule["formulas"] else "formula"
        elif kind in ("containsText", "beginsWith", "endsWith", "notContainsText"):
            condition = f"text {_words(kind)} '{rule['text'] or ''}'"
        elif kind == "top10":
            side = "bottom" if rule["bottom"] else "top"
            unit = "%" if rule["percent"] else ""
            condition = f"{side} {rule['rank']}{unit} values"
        elif kind == "aboveAverage":
            condition = "above average" if rule["above_average"] else "below average"
        else:
            condition = _words(kind)
        if rule["visual"]:
            effect = _words(rule["visual"]) + (f" ({rule['icon_set']})" if rule["icon_set"] else "")
            condition = "every value" if condition == effect.split(" (")[0] else condition
            text = f"Conditional formatting on {label}!{rule['sqref']}: {effect} over {condition}"
        else:
            effect = (
                ", ".join(k if k == v else f"{k} {v}" for k, v in rule["style"].items())
                or "a format"
            )
            text = f"Conditional formatting on {label}!{rule['sqref']}: {condition} -> {effect}"
        facts = {**rule, "sheet": sheet.name, "condition": condition, "effect": effect}
        return self.add(
            "cf",
            (sheet.name, str(rule["sqref"]), condition),
            "Other",
            "conditional-format",
            "element",
            f"{label}!{str(rule['sqref']).split()[0]}",
            text,
            facts,
        )

    def defined_names(self) -> None:
        names = [n for n in self.workbook.names if not n.name.startswith("_xlnm.")]
        if not names:
            return
        self.body.append("## Defined names")
        for name in names:
            values = self.resolve_values(name.value, name.scope or "")
            scope = f" (scope: sheet '{name.scope}')" if name.scope else ""
            text = f"Defined name '{name.name}'{scope} refers to {name.value}"
            if len(values) == 1:
                text += f" (value: {values[0]})"
            if name.hidden:
                text += " [hidden name]"
            if name.comment:
                text += f"\nComment: {name.comment}"
            users = [
                f"{sheet_label(a.facts['sheet'])}!{a.facts['cell']}"
                for a in self.formulas.values()
                if name.name in a.facts.get("names", [])
            ]
            facts = {
                "name": name.name,
                "refers_to": name.value,
                "scope": name.scope,
                "hidden": name.hidden,
                "value": values[0] if len(values) == 1 else None,
                "used_by": users[:20],
            }
            artifact = self.add(
                "name",
                (name.name, name.scope or ""),
                "Other",
                "defined-name",
                "element",
                name.name,
                text,
                facts,
            )
            self.body.append(artifact.placeholder or "")


def _words(camel: str) -> str:
    return re.sub(r"(?<=[a-z])(?=[A-Z])", " ", camel).lower()


class ExcelExtractor:
    """Excel workbooks (.xlsx, .xlsm, .xltx; older formats arrive converted by ingest)."""

    app = "excel"

    def accepts(self, source: Source) -> bool:
        return source.document.app == self.app

    def extract(self, source: Source, context: ExtractContext) -> Document:
        """The document of the workbook (see the module docstring)."""
        try:
            package = Package(source.path)
        except (zipfile.BadZipFile, UnsafePackage, OSError) as error:
            raise ExtractionError(f"not a readable workbook package: {error}") from error
        with package:
            try:
                _Builder(source.path, package, source.document, context).run()
            except (UnsafePackage, zipfile.BadZipFile) as error:
                raise ExtractionError(f"unreadable workbook: {error}") from error
        return source.document
