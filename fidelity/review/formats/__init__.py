"""Review file formats: each module writes tasks for annotators and reads their answers back.

Every module has `export(tasks, folder, out, round, previous) -> list[Path]` (`out` is
the run folder the task images live in, `previous` the review labels an adjudicator
sees) and `read(path) -> (labels, hand-written items)`, raising ReviewFileError (every
problem with its line or row and field) for a file it cannot take whole.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from fidelity.review.formats import argilla, jsonl, labelstudio, xlsx
from fidelity.review.items import HandItem
from fidelity.review.labels import Checker, Label, load_json

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
        items = load_json(path, Checker(path))
        first = items[0] if items and isinstance(items[0], dict) else {}
        if "data" in first:
            return "labelstudio"
        if "fields" in first:
            return "argilla"
    raise ValueError(f"{path}: not a Label Studio, Argilla, xlsx or jsonl review file")


def read(path: Path) -> tuple[str, list[Label], list[HandItem]]:
    """(format, every label, hand-written items) of one file; raises on any problem."""
    name = detect(path)
    labels, items = FORMATS[name].read(path)
    return name, labels, items
