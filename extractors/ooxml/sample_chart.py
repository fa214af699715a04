"""Office's sample chart data: what a freshly inserted chart holds before its author edits it.

Word and PowerPoint fill a new chart with "Series 1-3" over "Category 1-4" (in the
application's language) or, for a pie, "Sales" over "1st Qtr"-"4th Qtr"; such a chart
says nothing about its file. The chart parser marks it (`sample_data`) so that generators
and filters read one fact instead of each knowing the defaults.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

DEFAULT_SERIES = re.compile(
    r"^(Series|Column|Ряд|Столбец|Reihe|Datenreihe|Spalte|Série|Serie|Colonne|Columna|Colonna"
    r"|Seria|Kolumna|Sarja|系列|계열) ?\d+$",
    re.I,
)
DEFAULT_CATEGORY = re.compile(
    r"^(Category|Категория|Kategorie|Catégorie|Categoría|Categoria|Kategoria|Categorie|Luokka"
    r"|分类|類別|항목) ?\d+$|^[1-4](st|nd|rd|th) Qtr$",
    re.I,
)
SAMPLE_VALUES: frozenset[tuple[float, ...]] = frozenset(
    {
        (4.3, 2.5, 3.5, 4.5),
        (2.4, 4.4, 1.8, 2.8),
        (2.0, 2.0, 3.0, 5.0),
        (8.2, 3.2, 1.4, 1.2),  # the pie's "Sales"
    }
)


def _number(value: Any) -> float | None:
    try:
        return float(str(value).strip())
    except ValueError:
        return None


def holds_sample_data(series: Sequence[dict[str, Any]]) -> bool:
    """True when every series carries a default name over default categories, or one
    series still holds the sample values."""
    if not series:
        return False
    named = all(
        DEFAULT_SERIES.match(str(s.get("name") or ""))
        and all(DEFAULT_CATEGORY.match(str(c)) for c in s.get("categories", []) if c)
        for s in series
    )
    return named or any(_sample_values(s.get("values", [])) for s in series)


def _sample_values(values: Sequence[Any]) -> bool:
    """Three or four values that begin one of the sample rows (a point deleted from the end
    leaves the rest of the sample)."""
    numbers = tuple(_number(v) for v in values[:4])
    return len(numbers) >= 3 and any(row[: len(numbers)] == numbers for row in SAMPLE_VALUES)
