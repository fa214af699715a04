"""Qualify questions whose exact text recurs in a file with different answers.

"What does the defined name 'Query' refer to?" asked of three sheet-scoped names is one
question with three answers. When the elements' sheets, slides or sections tell them
apart, each question gets its own ("On sheet 'Assets', what does …"), in words a reader
sees; when they do not, the questions are left as they are and de-duplication rejects
them as ambiguous (filters.dedup). Qualified questions no longer collide, so running
this again (a replay) changes nothing.
"""

from __future__ import annotations

from fidelity.core.document import Candidate, Document
from fidelity.core.text import normalize
from filters.elements import place

LOWERED = frozenset("what which who whom how where when in on under is are does do".split())


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
        places = [_where(document, candidates[i]) for i in indices]
        if "" in places or len(set(places)) < len(places):
            continue
        for index, where in zip(indices, places, strict=True):
            out[index] = _with_place(candidates[index], where)
    return out


def _where(document: Document, candidate: Candidate) -> str:
    try:
        where = place(document.artifact(candidate.artifact_id))
    except KeyError:
        return ""
    return "" if normalize(where) in normalize(candidate.question) else where


def _with_place(candidate: Candidate, where: str) -> Candidate:
    question = candidate.question.strip()
    first, _, rest = question.partition(" ")
    if first.lower() in LOWERED:
        question = f"{first.lower()} {rest}"
    question = f"{where}, {question}"
    return candidate.model_copy(
        update={
            "question": question,
            "id": Candidate.make_id(candidate.file_sha, candidate.artifact_id, question),
        }
    )
