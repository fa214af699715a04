"""What a cell formula refers to: cell and range precedents, other sheets, names, functions."""

from __future__ import annotations

import re
from typing import Any

from extractors.excel.formula_scan import FormulaSyntaxError, scan

_CELLISH = re.compile(
    r"^(\$?[A-Z]{1,3}\$?\d+(:\$?[A-Z]{1,3}\$?\d+)?|\$?[A-Z]{1,3}:\$?[A-Z]{1,3}|\$?\d+:\$?\d+)$",
    re.IGNORECASE,
)
_EXTERNAL = re.compile(r"^\[(\d+)\]")
AGGREGATES = {"SUM", "SUBTOTAL", "AVERAGE", "COUNT", "COUNTA", "MAX", "MIN", "SUMIF", "SUMIFS"}


def _split_sheet(operand: str) -> tuple[str | None, str]:
    if "!" not in operand:
        return None, operand
    sheet, _, ref = operand.rpartition("!")
    sheet = _EXTERNAL.sub("", sheet)
    if sheet.startswith("'") and sheet.endswith("'"):
        sheet = sheet[1:-1].replace("''", "'")
    return sheet, ref


def by_lower_case(names: set[str]) -> dict[str, str]:
    """Defined names by their lower-case spelling (Excel matches names case-insensitively)."""
    return {n.lower(): n for n in names}


def analyse(formula: str, lowered: dict[str, str], tables: set[str]) -> dict[str, Any]:
    """Precedents of a formula (without its leading '='), split by kind; `lowered` holds
    the defined names by_lower_case."""
    try:
        openings, operands = scan(formula)
    except FormulaSyntaxError:  # an unparsable formula still keeps its text
        openings, operands = [], []
    precedents: list[str] = []
    sheets: list[str] = []
    used_names: list[str] = []
    used_tables: list[str] = []
    functions: list[str] = []
    external = False
    for opening in openings:
        name = opening.rstrip("(").upper().removeprefix("_XLFN.")
        if name and name not in functions:
            functions.append(name)
    for operand in operands:
        external = external or (operand[:1] == "[" and bool(_EXTERNAL.match(operand)))
        sheet, ref = _split_sheet(operand)
        cellish = _CELLISH.match(ref)
        if "[" in ref and not cellish:
            table = ref.split("[", 1)[0]
            if table and table not in used_tables:
                used_tables.append(table)
            precedents.append(operand)
            continue
        if cellish:
            precedents.append(operand)
            if sheet and sheet not in sheets:
                sheets.append(sheet)
        elif ref.lower() in lowered:
            name = lowered[ref.lower()]
            if name not in used_names:
                used_names.append(name)
            precedents.append(operand)
        elif ref.split("[", 1)[0] in tables:
            used_tables.append(ref.split("[", 1)[0])
            precedents.append(operand)
    return {
        "precedents": precedents,
        "sheets": sheets,
        "names": used_names,
        "tables": used_tables,
        "functions": functions,
        "external": external,
        "aggregate": any(f in AGGREGATES for f in functions),
    }
