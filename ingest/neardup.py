"""Near-duplicate documents with datasketch MinHash LSH over word shingles.

Items are visited best first; an item whose shingle set is close enough to an
already kept item (found through LSH, confirmed with the exact Jaccard of the
shingle sets) is a duplicate of that item, otherwise it is kept and indexed.
The same signatures give the "near" pairs of the Word quality ranking.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from datasketch import MinHashLSH

from fidelity.core.minhash import PERMUTATIONS, signature

LSH_SLACK = 0.2
WORD = re.compile(r"\w+")


def shingles(text: str, size: int) -> set[str]:
    words = WORD.findall(text.lower())
    if len(words) <= size:
        return {" ".join(words)} if words else set()
    return {" ".join(words[i : i + size]) for i in range(len(words) - size + 1)}


def jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 0.0


@dataclass
class Duplicate:
    key: str
    of: str
    similarity: float


def near_duplicates(
    texts: list[tuple[str, str]], threshold: float, shingle_size: int
) -> list[Duplicate]:
    """Duplicates among (key, text) items given best first; the first of a cluster survives."""
    # The index is tuned for recall (a lower threshold, misses weighted up): every
    # candidate it returns is confirmed with the exact Jaccard anyway.
    index = MinHashLSH(
        threshold=max(0.1, threshold - LSH_SLACK), num_perm=PERMUTATIONS, weights=(0.2, 0.8)
    )
    kept: dict[str, set[str]] = {}
    found = []
    for key, text in texts:
        items = shingles(text, shingle_size)
        if not items:
            continue
        minhash = signature(items)
        best = max(
            ((jaccard(items, kept[other]), other) for other in index.query(minhash)),
            default=(0.0, ""),
        )
        if best[0] >= threshold:
            found.append(Duplicate(key, best[1], best[0]))
            continue
        index.insert(key, minhash)
        kept[key] = items
    return found
