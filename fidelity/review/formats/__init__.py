"""Review file formats: each module writes tasks for annotators and reads their answers back.

Every module has `export(tasks, folder, out, round, previous) -> list[Path]` (`out` is
the run folder the task images live in, `previous` the review labels an adjudicator
sees) and `read(path) -> list[Label]`.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

from fidelity.review.formats import argilla, jsonl, labelstudio, xlsx
from fidelity.review.labels import Label

FORMATS: dict[str, ModuleType] = {
    "labelstudio": labelstudio,
    "argilla": argilla,
    "xlsx": xlsx,
    "jsonl": jsonl,
}


def detect(path: Path) -> str:
    """The format of an annotators' file, from its suffix and (for .json) its shape."""
    if path.suffix == ".xlsx":
        return "xlsx"
    if path.suffix == ".jsonl":
        return "jsonl"
    if path.suffix == ".json":
        data = json.loads(path.read_text())
        items = data if isinstance(data, list) else [data]
        first = items[0] if items and isinstance(items[0], dict) else {}
        if "data" in first:
            return "labelstudio"
        if "fields" in first:
            return "argilla"
    raise ValueError(f"{path}: not a Label Studio, Argilla, xlsx or jsonl review file")


def read(path: Path) -> tuple[str, list[Label]]:
    """(format, answered labels) of one annotators' file; each remembers its source file."""
    name = detect(path)
    labels = [label for label in FORMATS[name].read(path) if label.answered]
    for label in labels:
        label.source = str(path)
    return name, labels
