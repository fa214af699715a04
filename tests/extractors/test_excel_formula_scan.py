"""The formula scanner gives what openpyxl's Tokenizer gives: function openings, range operands
and the same failures, on every formula of the corpus, on hand-picked edge cases and on
random formulas made of the characters the Tokenizer treats specially."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from openpyxl.formula.tokenizer import Tokenizer

from extractors.base import open_package
from extractors.excel.formula_scan import FormulaSyntaxError, scan
from extractors.excel.sheet import read_sheet
from extractors.excel.workbook import open_workbook

EDGE_CASES = [
    "",
    "SUM(A1:A3)",
    "'My Sheet'!A1+1",
    "'it''s'!A1*2",
    "[1]Sheet1!A1",
    "Table1[[#This Row],[Col]]",
    "Table1[#Totals]+Sales[Amount]",
    "1.5E+3*2E-5",
    "A1E+5",
    "#REF!+Sheet1!#REF!",
    "x#N/A",
    "A1#",
    "A1 B1",
    "A1\nB1",
    "A1 \n B1",
    "{1,2;3,4}",
    "a{1}",
    "{1,2)",
    "SUM((A1:B2))",
    'IF(A1>=2,"x","y")',
    '"unterminated',
    "'unterminated",
    "SUM(A1",
    "SUM(A1))",
    ")",
    "A1}",
    "'a'b'!A1",
    "x'a'",
    "A1:'b'!C3",
    'A1:"t"',
    "#BAD",
    "TRUE+FALSE+nan+inf+1_000",
    "_xlfn.XLOOKUP(A1,B:B,C:C)",
    "A:A+1:1+$A$1",
    '-A1+(+A1)%&"x"',
    "A1<>B1<=C1",
    "[unclosed",
    "A[1]]",
    "A[[1]",
    "@A1",
    "SUM( A1 , B1 )",
    "[a](B1)",
    "'q'(1)",
    "x!#DIV/0!",
    "1E+",
    "9.9e-1",
    "1.E+2",
]
SPECIAL = list(",;{}()[] \n+-*/^&=><%\"'#!:$.E1A_") + ["#REF!", "SUM(", "'S'!", "#N/A"]


def tokenizer_view(formula: str) -> tuple[list[str], list[str]] | None:
    """(function openings, range operands) as openpyxl's Tokenizer finds them; None if it fails."""
    try:
        items = Tokenizer("=" + formula).items
    except Exception:
        return None
    openings = [i.value for i in items if i.type == "FUNC" and i.subtype == "OPEN"]
    ranges = [i.value for i in items if i.type == "OPERAND" and i.subtype == "RANGE"]
    return openings, ranges


def scanner_view(formula: str) -> tuple[list[str], list[str]] | None:
    try:
        return scan(formula)
    except FormulaSyntaxError:
        return None


@pytest.mark.parametrize("formula", EDGE_CASES)
def test_edge_cases_scan_as_the_tokenizer_reads_them(formula: str) -> None:
    assert scanner_view(formula) == tokenizer_view(formula)


def test_random_formulas_scan_as_the_tokenizer_reads_them() -> None:
    chooser = random.Random(14)
    failures = 0
    for _ in range(4000):
        formula = "".join(chooser.choice(SPECIAL) for _ in range(chooser.randint(1, 14)))
        expected = tokenizer_view(formula)
        failures += expected is None
        assert scanner_view(formula) == expected, formula
    assert 0 < failures < 4000  # both outcomes were exercised


def test_every_corpus_formula_scans_as_the_tokenizer_reads_it(corpus: Path) -> None:
    formulas = set()
    for path in sorted((corpus / "excel").iterdir()):
        with open_package(path, "workbook") as package:
            workbook = open_workbook(package)
            for sheet in workbook.sheets:
                if sheet.part and sheet.kind == "worksheet":
                    cells = read_sheet(workbook, sheet.part).cells.values()
                    formulas.update(c.formula for c in cells if c.formula)
    assert len(formulas) > 5000
    for formula in formulas:
        assert scanner_view(formula) == tokenizer_view(formula), formula
