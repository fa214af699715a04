"""The text a cell shows: its value under its style's number format, each decision made once.

A sheet repeats the same (style, value) pairs and formats most strings as they are,
so the formatted text is remembered per (style, value type, value): the type is part
of the key because True == 1 in Python but Excel shows TRUE and 1. A string whose
format has no text section is shown unchanged, decided once per style.
"""

from __future__ import annotations

from datetime import datetime

from extractors.excel.workbook import Workbook
from extractors.ooxml.numfmt import format_value, general, split_sections


def _shows_text_as_is(code: str) -> bool:
    """True when a format code leaves a string unchanged (no '@' section, no fourth section)."""
    sections = split_sections(code) if code else ()
    return len(sections) != 4 and not any("@" in section for section in sections)


class CellDisplay:
    """Formats cell values for one workbook (styles and date system), remembering results."""

    def __init__(self, workbook: Workbook) -> None:
        self.workbook = workbook
        self.shown: dict[tuple[int, type, object], str] = {}
        self.plain_text: dict[int, bool] = {}

    def __call__(self, value: object, style: int) -> str:
        """The displayed text of `value` in a cell of style index `style`."""
        if value.__class__ is str:
            plain = self.plain_text.get(style)
            if plain is None:
                code = self.workbook.styles.of(style).number_format
                plain = self.plain_text[style] = _shows_text_as_is(code)
            if plain:
                return value
        key = (style, value.__class__, value)
        text = self.shown.get(key)
        if text is None:
            text = self.shown[key] = self._format(value, style)
        return text

    def _format(self, value: object, style: int) -> str:
        code = self.workbook.styles.of(style).number_format
        if isinstance(value, datetime):
            return value.isoformat(sep=" ") if code == "General" else str(value.date())
        try:
            return format_value(value, code, self.workbook.date1904)
        except (ValueError, ArithmeticError, OverflowError):
            return general(value) if isinstance(value, int | float) else str(value)
