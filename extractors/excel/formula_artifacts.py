"""Formulas as artifacts: the formula cells of a sheet and the workbook's defined names."""

from __future__ import annotations

import re
from typing import Any

from extractors.excel.book import WorkbookState
from extractors.excel.formulas import analyse
from extractors.excel.sheet import (
    SheetData,
)
from extractors.excel.workbook import SheetInfo
from fidelity.core.locator import Locator, sheet_label

MAX_FORMULAS_PER_SHEET = 2000
CELL_REFERENCE = re.compile(r"\$?[A-Z]{1,3}\$?\d+")


ASKED_FORMULAS_PER_SHEET = 6


class FormulaArtifacts(WorkbookState):
    """Formulas as artifacts: the formula cells of a sheet and the workbook's defined names."""

    def formula_artifacts(self, sheet: SheetInfo, data: SheetData) -> dict[tuple[int, int], str]:
        marks: dict[tuple[int, int], str] = {}
        label = sheet_label(sheet.name)
        seen_patterns: set[str] = set()
        asked = 0
        cells = data.cells
        ordered = [cells[point] for point in sorted(p for p, c in cells.items() if c.formula)]
        if len(ordered) > MAX_FORMULAS_PER_SHEET:
            self.note(
                f"sheet {sheet.name!r}: {len(ordered)} formulas, only the first "
                f"{MAX_FORMULAS_PER_SHEET} become Formula artifacts (the rest show values)"
            )
        for cell in ordered[:MAX_FORMULAS_PER_SHEET]:
            ref = cell.ref  # written once: each use would write it again
            info, pattern = self.analysed(cell.formula or "")
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
            text = f"{shown} ({what} {label}!{ref}: {formula_text})".strip()
            facts = {
                "sheet": sheet.name,
                "cell": ref,
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
                (sheet.name, ref),
                "Formula",
                "formula",
                "element",
                Locator(sheet=sheet.name, cells=ref),
                " ".join(text.replace("|", "\\|").split()),
                facts,
                fallback=" ".join(shown.replace("|", "\\|").split()),
            )
            self.formulas[(sheet.name, ref)] = artifact
            marks[(cell.row, cell.col)] = artifact.placeholder or ""
        return marks

    def analysed(self, formula: str) -> tuple[dict[str, Any], str]:
        """(analysis, pattern: its cell references as 'R') of a formula text, worked out once
        per workbook: both depend on the text alone, given the workbook's names and tables,
        and sheets repeat formulas (the analysis is shared: do not modify)."""
        known = self.analyses.get(formula)
        if known is None:
            info = analyse(formula, self.names_by_lower, self.table_names)
            known = self.analyses[formula] = (info, CELL_REFERENCE.sub("R", formula))
        return known

    def defined_names(self) -> None:
        names = [n for n in self.workbook.names if not n.name.startswith("_xlnm.")]
        if not names:
            return
        self.body.append("## Defined names")
        users_of: dict[str, list[str]] = {}
        for formula in self.formulas.values():
            for used in formula.facts.get("names", []):
                users_of.setdefault(used, []).append(
                    f"{sheet_label(formula.facts['sheet'])}!{formula.facts['cell']}"
                )
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
            users = users_of.get(name.name, [])
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
                Locator(element=name.name),
                text,
                facts,
            )
            self.body.append(artifact.placeholder or "")
