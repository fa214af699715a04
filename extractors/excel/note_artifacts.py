"""Comments, hyperlinks, data validation and conditional formats of a sheet as artifacts."""

from __future__ import annotations

import re
from typing import Any

from extractors.excel.book import WorkbookState
from extractors.excel.objects import comments
from extractors.excel.sheet import (
    Cell,
    SheetData,
    parse_range,
)
from extractors.excel.workbook import SheetInfo
from fidelity.core.document import Artifact
from fidelity.core.locator import Locator, sheet_label


def _words(camel: str) -> str:
    return re.sub(r"(?<=[a-z])(?=[A-Z])", " ", camel).lower()


class NoteArtifacts(WorkbookState):
    """Comments, hyperlinks, data validation and conditional formats of a sheet as artifacts."""

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
                Locator(sheet=sheet.name, cells=item["ref"]),
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
                Locator(sheet=sheet.name, cells=link["ref"]),
                text,
                facts,
            )
            out.append(artifact.placeholder or "")
        for rule in data.validations:
            validated = self.validation(sheet, rule)
            if validated:
                out.append(validated.placeholder or "")
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
            Locator(sheet=sheet.name, cells=sqref.split()[0]),
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
            Locator(sheet=sheet.name, cells=str(rule["sqref"]).split()[0]),
            text,
            facts,
        )
