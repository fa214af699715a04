"""MinHash signatures of shingle sets (datasketch), the permutations drawn once per process.

datasketch draws a MinHash's 128 random permutations from its seed every time one is made, which
costs more than hashing a question's shingles; every signature here shares the one draw.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import Any

from datasketch import MinHash

PERMUTATIONS = 128
SEED = 1


@cache
def _drawn() -> tuple[Any, str]:
    """The permutations and hashing scheme datasketch draws for PERMUTATIONS and SEED."""
    template = MinHash(num_perm=PERMUTATIONS, seed=SEED)
    return template.permutations, template.scheme


def signature(items: Iterable[str]) -> MinHash:
    """The MinHash of a set of strings (the same as datasketch's, seed 1, 128 permutations)."""
    permutations, scheme = _drawn()
    minhash = MinHash(PERMUTATIONS, SEED, permutations=permutations, scheme=scheme)
    minhash.update_batch([item.encode() for item in items])  # a minimum: any order gives it
    return minhash
