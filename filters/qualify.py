"""Qualify questions whose exact text recurs in a file with different answers.

"What does the defined name 'Query' refer to?" asked of three sheet-scoped names is one
question with three answers. When the elements' sheets, slides or sections tell them
apart, each question gets its own ("On sheet 'Assets', what does …"), in words a reader
sees; when they do not, the questions are left as they are and de-duplication rejects
them as ambiguous (filters.dedup). Qualified questions no longer collide, so running
this again (a replay) changes nothing.
"""

from __future__ import annotations

import re

from fidelity.model import Artifact, Candidate, Document
from fidelity.text import normalize

_SHEET = re.compile(r"^(?:'((?:[^']|'')+)'|([^'!]+))!")
LOWERED = frozenset("what which who whom how where when in on under is are does do".split())
_SECTION = re.compile(r"in section '([^']+)'")


def where(artifact: Artifact) -> str:
    """Where an element sits, as a reader names it: a slide, a sheet or a section heading."""
    facts = artifact.facts
    if isinstance(facts.get("slide"), int):
        return f"On slide {facts['slide']}"
    sheet = facts.get("scope") or facts.get("sheet")
    if not sheet and (found := _SHEET.match(artifact.locator)):
        sheet = (found.group(1) or "").replace("''", "'") or found.group(2)
    if sheet:
        return f"On sheet '{sheet}'"
    if found := _SECTION.search(artifact.locator):
        return f"Under the heading “{found.group(1)}”"
    if isinstance(facts.get("section"), int):
        return f"In section {facts['section']}"
    return ""


def qualify(document: Document, candidates: list[Candidate]) -> list[Candidate]:
    """The candidates, with each question that recurs with another answer qualified."""
    groups: dict[str, list[int]] = {}
    for index, candidate in enumerate(candidates):
        groups.setdefault(normalize(candidate.question), []).append(index)
    out = list(candidates)
    for indices in groups.values():
        answers = {normalize(" ".join(candidates[i].answer)) for i in indices}
        if len(answers) < 2:
            continue
        places = [_place(document, candidates[i]) for i in indices]
        if "" in places or len(set(places)) < len(places):
            continue
        for index, place in zip(indices, places, strict=True):
            out[index] = _with_place(candidates[index], place)
    return out


def _place(document: Document, candidate: Candidate) -> str:
    try:
        place = where(document.artifact(candidate.artifact_id))
    except KeyError:
        return ""
    return "" if normalize(place) in normalize(candidate.question) else place


def _with_place(candidate: Candidate, place: str) -> Candidate:
    question = candidate.question.strip()
    first, _, rest = question.partition(" ")
    if first.lower() in LOWERED:
        question = f"{first.lower()} {rest}"
    question = f"{place}, {question}"
    return candidate.model_copy(
        update={
            "question": question,
            "id": Candidate.make_id(candidate.file_sha, candidate.artifact_id, question),
        }
    )
