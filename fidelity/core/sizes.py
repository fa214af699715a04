"""Document size units and the paper's Small/Medium/Long buckets, per application."""

from __future__ import annotations

UNITS = {"word": "pages", "excel": "sheets", "powerpoint": "slides"}
# Upper bounds of Small and Medium per application (Long is above the second).
BUCKETS = {"word": (10, 30), "powerpoint": (10, 30), "excel": (3, 8)}


def bucket(app: str, count: int | None) -> str | None:
    if count is None:
        return None
    small, medium = BUCKETS[app]
    return "Small" if count <= small else "Medium" if count <= medium else "Long"


def size_metadata(app: str, count: int | None, source: str, **extra: object) -> dict[str, object]:
    """{"unit", "count", "source", "bucket", ...} for one file."""
    return {
        "unit": UNITS[app],
        "count": count,
        "source": source,
        "bucket": bucket(app, count),
        **extra,
    }
