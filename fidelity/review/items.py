"""Hand-written items: a curator's own question for an under-covered cell, read from a review file.

An item names the file (its name or path as built), the evidence by its locator (as the
tasks show it) or artifact id, the question, its answer statements, and the answer
value as the file states it (`value`, what the leakage filter looks for; optional
`anchor` words). It goes through the file's filters before it counts (curated.py).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from fidelity.review.labels import Checker

ITEM_FIELDS = ("file", "locator", "question", "answer", "value", "anchor", "question_type")
REQUIRED = ("file", "locator", "question", "answer")


@dataclass
class HandItem:
    file: str
    locator: str
    question: str
    answer: list[str]
    value: str = ""
    anchor: list[str] = field(default_factory=list)
    question_type: str = "hand-written"
    curator: str = ""
    source: str = ""
    where: str = ""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def parse_item(check: Checker, data: Any, where: str, curator: str) -> HandItem | None:
    """A HandItem from a mapping of ITEM_FIELDS; problems go to `check`."""
    if not isinstance(data, dict):
        check.fail(where, "new_item", "expected an object with " + ", ".join(ITEM_FIELDS))
        return None
    for name in sorted(set(data) - set(ITEM_FIELDS)):
        check.fail(where, name, f"unknown field (expected: {', '.join(ITEM_FIELDS)})")
    texts = {name: check.text(data.get(name), where, name) for name in ITEM_FIELDS[:3]}
    answer = check.statements(data.get("answer"), where, "answer")
    missing = [name for name in REQUIRED if not (answer if name == "answer" else texts[name])]
    for name in missing:
        check.fail(where, name, "required for a hand-written item")
    anchor = data.get("anchor") or []
    if isinstance(anchor, str):
        anchor = [anchor]
    if missing:
        return None
    return HandItem(
        file=texts["file"],
        locator=texts["locator"],
        question=texts["question"],
        answer=answer,
        value=check.text(data.get("value"), where, "value"),
        anchor=[check.text(word, where, "anchor") for word in anchor],
        question_type=check.text(data.get("question_type"), where, "question_type")
        or "hand-written",
        curator=curator,
        source=str(check.path),
        where=where,
    )
