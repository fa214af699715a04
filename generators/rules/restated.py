"""Facts the file states twice, so that asking one of them is answered by the other.

Document properties that repeat each other (Modified equal to Created, "last modified by"
equal to the author) and comment authors of a file with one author: the Word and Excel
rules ask these before drafting.
"""

from __future__ import annotations

import re

from fidelity.core.document import Artifact, Document
from fidelity.core.text import normalize
from generators.rules.common import Rule

# A property that repeats another: asked, the other one answers it.
REPEATS = {"modified": "created", "lastModifiedBy": "creator"}
MINUTE = re.compile(r"^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2})")


def _property(document: Document, key: str) -> str:
    for artifact in document.artifacts:
        facts = artifact.facts
        if artifact.kind == "metadata" and facts.get("source") == "core" and facts["key"] == key:
            return str(facts["value"])
    return ""


def _same(one: str, other: str) -> bool:
    """Equal values; two times equal to the minute (a file saved as it was made)."""
    first, second = MINUTE.match(one), MINUTE.match(other)
    if first and second:
        return first.group(1) == second.group(1)
    return normalize(one) == normalize(other)


def repeated_property(document: Document, artifact: Artifact) -> bool:
    """True for Modified equal to Created, or "last modified by" equal to the author."""
    facts = artifact.facts
    other = REPEATS.get(str(facts.get("key")))
    if facts.get("source") != "core" or other is None:
        return False
    value = _property(document, other)
    return bool(value) and _same(str(facts["value"]), value)


MACHINE_VALUE = re.compile(r"^\s*(<[A-Za-z?!]|\{\s*\"|\[\s*\{)")


def grounded_metadata(rule: Rule) -> Rule:
    """The property rule, without the properties another one repeats and without values a
    tool wrote for itself (XML or JSON in a custom property)."""

    def metadata(document: Document, artifact: Artifact) -> list:
        if repeated_property(document, artifact):
            return []
        if MACHINE_VALUE.match(str(artifact.facts.get("value") or "")):
            return []
        return rule(document, artifact)

    return metadata


def one_comment_author(document: Document) -> bool:
    """True when every comment of the file has the same author (or none): "who wrote the
    comment on …" is then answered by any other comment, or by the file's author."""
    authors = {
        normalize(str(a.facts.get("author") or ""))
        for a in document.artifacts
        if a.kind in ("comment", "comment-reply")
    }
    return len(authors - {""}) < 2
