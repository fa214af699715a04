"""Element-aware question de-duplication with datasketch MinHash LSH.

Candidates are visited in stable order; the first of a near-duplicate cluster is
kept (the better-graded one, when grades exist), the rest rejected with a pointer
to the survivor and the estimated Jaccard similarity. A near-duplicate question counts
only when it also has the same answer and, within a file, is about the same element or
names it by the same quoted content and differs only in its numbers (`same_file_or_answer`):
questions on two columns of one table row, two hyperlinks or the 2nd and 3rd sheet names
are two questions; one group asked on two copied slides is one. Across files the same
answer is enough: "Who is the author?" asked of two files is two questions, the same fact
asked twice is one. The very same question text with different answers in one file
cannot be answered (filters.qualify names their sheet, slide or section when it can):
each is rejected.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

from datasketch import MinHash, MinHashLSH

from fidelity.core import minhash
from fidelity.core.document import Candidate, Decision
from fidelity.core.text import normalize, tokens
from filters.chain import DEDUP

NUMBER = re.compile(r"\d+")
QUOTED = re.compile(r"“[^”]+”|'[^']+'")
THRESHOLD = 0.8


def _minhash(question: str) -> MinHash:
    words = tokens(question)
    shingles = {" ".join(words[i : i + 2]) for i in range(max(1, len(words) - 1))}
    return minhash.signature(shingles)


@cache
def _bands() -> tuple[int, int]:
    """The LSH (bands, rows) for THRESHOLD: datasketch's optimisation, done once per process."""
    index = MinHashLSH(threshold=THRESHOLD, num_perm=minhash.PERMUTATIONS)
    return index.b, index.r


def same_file_or_answer(first: Candidate, second: Candidate) -> bool:
    """Whether a near-duplicate question repeats the other: same answer, and same element,
    or the same question but for its numbers (the same group asked on slides 17 and 18 of
    copied slides: a reader sees one question twice)."""
    if _answer(first) != _answer(second):
        return False
    if first.file_sha != second.file_sha or first.artifact_id == second.artifact_id:
        return True
    # Named by the same quoted content, a number apart: one element copied (slide 17 and 18).
    # Named by number alone ("the picture on slide 8"), two elements are two questions.
    quoted = QUOTED.search(first.question) is not None
    return quoted and _folded(first.question) == _folded(second.question)


def _folded(question: str) -> str:
    return NUMBER.sub("#", normalize(question))


def _answer(candidate: Candidate) -> str:
    return normalize(" ".join(candidate.answer))


def ambiguous(candidates: list[Candidate]) -> list[Decision]:
    """A 'fail' for each question whose exact text has another answer in the same file."""
    groups: dict[tuple[str, str], list[Candidate]] = {}
    for candidate in candidates:
        groups.setdefault((candidate.file_sha, normalize(candidate.question)), []).append(candidate)
    decisions = []
    for group in groups.values():
        answers = sorted({_answer(candidate) for candidate in group})
        if len(answers) < 2:
            continue
        for candidate in group:
            others = sorted(other.id for other in group if other is not candidate)
            decisions.append(
                Decision(
                    candidate_id=candidate.id,
                    check=DEDUP.name,
                    view="questions",
                    context_hash="",
                    answered=",".join(others),
                    match="same-question",
                    verdict="fail",
                    reason=f"ambiguous: the same question has {len(answers)} different answers "
                    f"in this file ({', '.join(others)})",
                )
            )
    return decisions


def deduplicate(
    candidates: list[Candidate],
    rank: Callable[[Candidate], float] | None = None,
    same: Callable[[Candidate, Candidate], bool] | None = None,
) -> list[Decision]:
    """A 'fail' decision for each candidate that repeats an earlier (or better) one.

    `same(candidate, kept)` decides whether a near-duplicate question repeats it (by
    default `same_file_or_answer`). Ambiguous questions (`ambiguous`) are rejected first.
    """
    decisions = ambiguous(candidates)
    rejected = {decision.candidate_id for decision in decisions}
    same = same or same_file_or_answer
    ordered = sorted(
        ((n, c) for n, c in enumerate(candidates) if c.id not in rejected),
        key=lambda item: (-(rank or _zero)(item[1]), item[0]),
    )
    index = MinHashLSH(num_perm=minhash.PERMUTATIONS, params=_bands())
    signatures: dict[str, MinHash] = {}
    kept: dict[str, Candidate] = {}
    for _, candidate in ordered:
        signature = _minhash(_folded(candidate.question))
        matches = [
            match for match in sorted(index.query(signature)) if same(candidate, kept[match])
        ]
        if matches:
            survivor = matches[0]
            similarity = signature.jaccard(signatures[survivor])
            decisions.append(
                Decision(
                    candidate_id=candidate.id,
                    check=DEDUP.name,
                    view="questions",
                    context_hash="",
                    answered=survivor,
                    match="minhash-lsh",
                    verdict="fail",
                    reason=f"near-duplicate of {survivor} (Jaccard ≈ {similarity:.2f})",
                )
            )
            continue
        index.insert(candidate.id, signature)
        signatures[candidate.id] = signature
        kept[candidate.id] = candidate
    return decisions


def _zero(_: Candidate) -> float:
    return 0.0
