"""Excel number formats: the displayed text of a value, as Excel shows it."""

from __future__ import annotations

import random

import pytest

from extractors.ooxml.numfmt import _round, _rounded_repr, format_value, is_date_format

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


def test_rounding_on_repr_digits_matches_decimal_rounding() -> None:
    """General's fast path rounds the repr's digits as text; it must give what rounding
    the same digits as a Decimal (half up, away from zero) gives, carries and ties included."""
    rng = random.Random(7)
    values = [0.5, 1.5, -2.5, 0.95, 9.999999999, 99999.99995, -0.0049, 123.0, 1e-7, 2.675]
    values += [rng.uniform(-1e6, 1e6) for _ in range(5000)]
    values += [round(rng.uniform(-100, 100), rng.randint(0, 12)) for _ in range(5000)]
    compared = 0
    for value in values:
        for places in range(11):
            fast = _rounded_repr(value, places)
            if fast is not None:
                compared += 1
                assert fast == f"{_round(value, places):f}", (value, places)
    assert compared > 100_000
