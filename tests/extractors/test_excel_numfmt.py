"""Excel number formats: the displayed text of a value, as Excel shows it."""

from __future__ import annotations

import pytest

from extractors.ooxml.numfmt import format_value, is_date_format

CASES = [
    (0.25, "0%", "25%"),
    (0.2534, "0.00%", "25.34%"),
    (1234567.891, "#,##0", "1,234,568"),
    (1234.5, '"$"#,##0.00', "$1,234.50"),
    (-1234.5, '"$"#,##0.00_);[Red]\\("$"#,##0.00\\)', "($1,234.50)"),
    (1234, "[$€-407]#,##0.00", "€1,234.00"),
    (1500000, '#,##0,,"M"', "2M"),
    (12345.678, "0.00E+00", "1.23E+04"),
    (1.25, "# ??/??", "1 1/4"),
    (45000, "yyyy/mm/dd;@", "2023/03/15"),
    (45000, "[$-409]mmmm\\ d\\,\\ yyyy;@", "March 15, 2023"),
    (45000.5, "m/d/yyyy h:mm", "3/15/2023 12:00"),
    (0.75, "h:mm AM/PM", "6:00 PM"),
    (1.5, "[h]:mm:ss", "36:00:00"),
    (41791, "mmm\\-yy", "Jun-14"),
    (0.1 + 0.2, "General", "0.3"),
    (7.0, "General", "7"),
    (1234567890123, "General", "1.23457E+12"),
    (-5, "0", "-5"),
    (3, '"Super!  "00', "Super!  03"),
    (5.5, "[=0]?;#,##0.00", "5.50"),
    (True, "General", "TRUE"),
    ("abc", '0;0;0;"x"@', "xabc"),
]


@pytest.mark.parametrize(("value", "code", "shown"), CASES)
def test_format_value(value: object, code: str, shown: str) -> None:
    assert format_value(value, code) == shown


def test_1904_date_system_shifts_serials() -> None:
    assert format_value(0, "yyyy-mm-dd", date1904=True) == "1904-01-01"
    assert format_value(1, "yyyy-mm-dd") == "1900-01-01"


def test_date_detection_ignores_quoted_letters_and_digit_formats() -> None:
    assert is_date_format("dd/mm/yyyy")
    assert is_date_format("mm:ss.0")
    assert not is_date_format('0.00" days"')
    assert not is_date_format("General")
