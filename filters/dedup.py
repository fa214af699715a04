"""Run-wide question de-duplication with datasketch MinHash LSH.

Candidates are visited in stable order; the first of a near-duplicate cluster is
kept (the better-graded one, when grades exist), the rest rejected with a pointer
to the survivor and the estimated Jaccard similarity. Across files, a near-duplicate
question counts only when it also has the same answer (`same_file_or_answer`): "Who
is the author?" asked of two files is two questions, the same fact asked twice is one.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from datasketch import MinHash, MinHashLSH

from fidelity.model import Candidate, Decision
from fidelity.text import normalize, tokens

CHECK = "dedup"
THRESHOLD = 0.8
PERMUTATIONS = 128


def _minhash(question: str) -> MinHash:
    words = tokens(question)
    shingles = {" ".join(words[i : i + 2]) for i in range(max(1, len(words) - 1))}
    signature = MinHash(num_perm=PERMUTATIONS, seed=1)
    for shingle in sorted(shingles):
        signature.update(shingle.encode())
    return signature


@cache
def _bands() -> tuple[int, int]:
    """The LSH (bands, rows) for THRESHOLD: datasketch's optimisation, done once per process."""
    index = MinHashLSH(threshold=THRESHOLD, num_perm=PERMUTATIONS)
    return index.b, index.r


def same_file_or_answer(first: Candidate, second: Candidate) -> bool:
    if first.file_sha == second.file_sha:
        return True
    return normalize(" ".join(first.answer)) == normalize(" ".join(second.answer))


def deduplicate(
    candidates: list[Candidate],
    rank: Callable[[Candidate], float] | None = None,
    same: Callable[[Candidate, Candidate], bool] | None = None,
) -> list[Decision]:
    """A 'fail' decision for each candidate that repeats an earlier (or better) one.

    `same(candidate, kept)` further decides whether a near-duplicate question repeats it.
    """
    ordered = sorted(enumerate(candidates), key=lambda item: (-(rank or _zero)(item[1]), item[0]))
    index = MinHashLSH(num_perm=PERMUTATIONS, params=_bands())
    signatures: dict[str, MinHash] = {}
    kept: dict[str, Candidate] = {}
    decisions = []
    for _, candidate in ordered:
        signature = _minhash(candidate.question)
        matches = [
            match
            for match in sorted(index.query(signature))
            if same is None or same(candidate, kept[match])
        ]
        if matches:
            survivor = matches[0]
            similarity = signature.jaccard(signatures[survivor])
            decisions.append(
                Decision(
                    candidate_id=candidate.id,
                    check=CHECK,
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
