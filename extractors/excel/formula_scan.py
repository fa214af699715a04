"""Scan a formula for what precedent analysis reads: function names and range operands.

Hand-written because openpyxl's Tokenizer, which defines the answer, costs too much
here (a Python step per character and a Token object per token, on every formula
cell of every sheet). This scanner follows the Tokenizer's rules one for one (the
same operand boundaries, the same quoted, bracketed and error parts, the same
failures) but jumps over runs of ordinary characters and keeps only two lists;
tests/extractors/test_excel_formula_scan.py holds it to the Tokenizer's output.
"""

from __future__ import annotations

import re

_ENDERS = frozenset(",;}) +-*/^&=><%")  # characters that end the operand being read
_ORDINARY = re.compile(r"[^,;})( +\-*/^&=><%\"'\[#\n{]+")  # nothing special about these
_SCIENTIFIC = re.compile(r"^[1-9](\.[0-9]+)?[Ee]$")  # '1.5E' of '1.5E+3' goes on with its sign
_WHITESPACE = re.compile(r"[ \n]+")
_QUOTED = {
    '"': re.compile(r'"(?:[^"]*"")*[^"]*"(?!")'),
    "'": re.compile(r"'(?:[^']*'')*[^']*'(?!')"),
}
_BRACKETS = re.compile(r"[\[\]]")
_ERROR_CODES = ("#NULL!", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#N/A", "#GETTING_DATA")


class FormulaSyntaxError(ValueError):
    """The formula does not tokenize (openpyxl's Tokenizer fails on it too)."""


# First characters no number float() reads can start with ('inf' and 'nan' start with i, n).
_NOT_NUMBER = frozenset("$ABCDEFGHJKLMOPQRSTUVWXYZabcdefghjklmopqrstuvwxyz")


def _is_range(operand: str) -> bool:
    """The Tokenizer's RANGE subtype: not text, error, logical or number."""
    if operand.startswith(('"', "#")) or operand in ("TRUE", "FALSE"):
        return False
    if operand[:1] in _NOT_NUMBER:  # a reference or name: no float() and its exception
        return True
    try:
        float(operand)
    except ValueError:
        return True
    return False


def _bracketed_end(formula: str, start: int) -> int:
    """The index after the ']' that closes the '[' at `start` (nested brackets count)."""
    depth = 0
    for match in _BRACKETS.finditer(formula, start):
        depth += 1 if match.group() == "[" else -1
        if depth == 0:
            return match.end()
    raise FormulaSyntaxError(f"unmatched '[' in {formula}")


# What only the full scan handles: quotes, brackets, error codes, arrays (braces), line
# breaks and a possible exponent sign ("1.5E+3"). A formula without any of them is runs of
# ordinary characters between enders and parentheses, each run one operand or function name.
_NEEDS_FULL_SCAN = re.compile(r"[\"'\[#{}\n]|[Ee][+-]")
_SIMPLE_TOKEN = re.compile(r"([^,;})( +\-*/^&=><%]+)(\()?|([()])")


def scan(formula: str) -> tuple[list[str], list[str]]:
    """(function openings such as 'SUM(', range operands) of a formula without its '=',
    in order; raises FormulaSyntaxError where openpyxl's Tokenizer raises."""
    if _NEEDS_FULL_SCAN.search(formula) is None:
        return _scan_simple(formula)
    return _scan_full(formula)


def _scan_simple(formula: str) -> tuple[list[str], list[str]]:
    """`scan` of a formula the full scan would read run by run (see _NEEDS_FULL_SCAN):
    one regular-expression pass instead of a step per run and separator."""
    functions: list[str] = []
    ranges: list[str] = []
    depth = 0
    for run, opening, parenthesis in _SIMPLE_TOKEN.findall(formula):
        if run:
            if opening:
                functions.append(run + "(")
                depth += 1
            elif _is_range(run):
                ranges.append(run)
        elif parenthesis == "(":
            depth += 1
        elif depth:
            depth -= 1
        else:
            raise FormulaSyntaxError(f"mismatched ')' in ={formula}")
    return functions, ranges


def _scan_full(formula: str) -> tuple[list[str], list[str]]:
    """`scan` of any formula, following the Tokenizer's rules."""
    functions: list[str] = []
    ranges: list[str] = []
    pieces: list[str] = []  # the operand being read
    last = (
        ""  # its last piece as the Tokenizer stores it (one character, or a quoted/bracketed part)
    )
    openers: list[str] = []  # '(' of a function or parenthesis, '{' of an array
    index, end = 0, len(formula)

    def expect_empty(allowed: str | None) -> None:
        if pieces and (allowed is None or last != allowed):
            raise FormulaSyntaxError(f"unexpected character at {index + 1} in ={formula}")

    while index < end:
        char = formula[index]
        if char in "+-" and pieces and _SCIENTIFIC.match("".join(pieces)):
            pieces.append(char)
            last = char
            index += 1
            continue
        if char in _ENDERS and pieces:
            operand = "".join(pieces)
            if _is_range(operand):
                ranges.append(operand)
            pieces.clear()
        if char == '"' or char == "'":
            expect_empty(":")
            match = _QUOTED[char].match(formula, index)
            if match is None:
                raise FormulaSyntaxError(f"unterminated quote in ={formula}")
            if char == "'":
                pieces.append(match.group())
                last = match.group()
            index = match.end()
        elif char == "[":
            after = _bracketed_end(formula, index)
            pieces.append(formula[index:after])
            last = pieces[-1]
            index = after
        elif char == "#":
            expect_empty("!")
            code = next((c for c in _ERROR_CODES if formula.startswith(c, index)), None)
            if code is None:
                raise FormulaSyntaxError(f"invalid error code at {index + 1} in ={formula}")
            operand = "".join(pieces) + code
            if _is_range(operand):
                ranges.append(operand)
            pieces.clear()
            index += len(code)
        elif char == " " or char == "\n":
            index = _WHITESPACE.match(formula, index).end()  # type: ignore[union-attr]
        elif char == "{":
            expect_empty(None)
            openers.append("{")
            index += 1
        elif char == "(":
            if pieces:
                functions.append("".join(pieces) + "(")
                pieces.clear()
            openers.append("(")
            index += 1
        elif char == ")" or char == "}":
            if not openers or openers.pop() != ("(" if char == ")" else "{"):
                raise FormulaSyntaxError(f"mismatched {char!r} in ={formula}")
            index += 1
        elif char in _ENDERS:
            index += 1
        else:
            run = _ORDINARY.match(formula, index).group()  # type: ignore[union-attr]
            pieces.append(run)
            last = run[-1]
            index += len(run)
    if pieces:
        operand = "".join(pieces)
        if _is_range(operand):
            ranges.append(operand)
    return functions, ranges
