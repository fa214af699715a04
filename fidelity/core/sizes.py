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
