"""Facts the file states twice, so that asking one of them is answered by the other.

Document properties that repeat each other (Modified equal to Created, "last modified by"
equal to the author), a property the file's own text shows (the title on the cover, the
author's name on the title slide), text that only prints the properties (a cover box of
title and subject) and comment authors of a file with one author: the rules ask these
before drafting.
"""

from __future__ import annotations

import re
from functools import lru_cache

from fidelity.core.document import Artifact, Document
from fidelity.core.text import STOPWORDS, normalize, tokens
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


# Properties a reader sees printed when the text shows their value (dates and counts are not
# told apart from the text's own).
SHOWN_PROPERTIES = frozenset(
    {"title", "subject", "creator", "lastModifiedBy", "description", "keywords", "category"}
    | {"Manager", "Company"}
)


def _distinctive(text: str) -> set[str]:
    return {word for word in tokens(text) if word not in STOPWORDS and len(word) > 1}


def _visible_lines(document: Document) -> tuple[frozenset[str], ...]:
    """The distinctive words of each line the file shows (body, boxes, slides, cells)."""
    return _lines_of(
        tuple(
            artifact.text
            for artifact in document.artifacts
            if artifact.modality in ("text", "table") and artifact.kind != "metadata"
        )
    )


@lru_cache(maxsize=1)
def _lines_of(texts: tuple[str, ...]) -> tuple[frozenset[str], ...]:
    """Worked out once per document: every property of the file asks for them."""
    return tuple(
        frozenset(_distinctive(line))
        for text in texts
        for line in text.splitlines()
        if line.strip()
    )


def shown_in_text(document: Document, artifact: Artifact) -> bool:
    """A title, subject, author... whose words one line of the file's text holds all of."""
    facts = artifact.facts
    if facts.get("key") not in SHOWN_PROPERTIES:
        return False
    words = _distinctive(str(facts.get("value") or ""))
    return bool(words) and any(words <= line for line in _visible_lines(document))


def printed_properties(document: Document, text: str) -> bool:
    """Text whose every word the file's properties hold (a cover box printing the title and
    the subject): asked, the properties answer it."""
    values = " ".join(
        str(a.facts.get("value") or "") for a in document.artifacts if a.kind == "metadata"
    )
    words = _distinctive(text)
    return bool(words) and words <= _distinctive(values)


MACHINE_VALUE = re.compile(r"^\s*(<[A-Za-z?!]|\{\s*\"|\[\s*\{)")


def grounded_metadata(rule: Rule) -> Rule:
    """The property rule, without the properties another one repeats and without values a
    tool wrote for itself (XML or JSON in a custom property)."""

    def metadata(document: Document, artifact: Artifact) -> list:
        if repeated_property(document, artifact) or shown_in_text(document, artifact):
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
