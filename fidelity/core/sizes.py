"""Document size units and the paper's Small/Medium/Long buckets, per application."""

from __future__ import annotations

from fidelity.core.apps import APPLICATIONS


def bucket(app: str, count: int | None) -> str | None:
    if count is None:
        return None
    small, medium = APPLICATIONS[app].size_buckets
    return "Small" if count <= small else "Medium" if count <= medium else "Long"


def size_metadata(app: str, count: int | None, source: str, **extra: object) -> dict[str, object]:
    """{"unit", "count", "source", "bucket", ...} for one file."""
    return {
        "unit": APPLICATIONS[app].size_unit,
        "count": count,
        "source": source,
        "bucket": bucket(app, count),
        **extra,
    }


def bucket_bounds(app: str) -> dict[str, str]:
    """Each bucket's range in words: {"Small": "1–10 pages", "Medium": "11–30 pages", ...}."""
    small, medium = APPLICATIONS[app].size_buckets
    unit = APPLICATIONS[app].size_unit
    return {
        "Small": f"up to {small} {unit}",
        "Medium": f"{small + 1}–{medium} {unit}",
        "Long": f"over {medium} {unit}",
    }
