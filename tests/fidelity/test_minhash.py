"""The shared MinHash signatures equal datasketch's own, made one MinHash at a time."""

from __future__ import annotations

from datasketch import MinHash

from fidelity.core.document import Document
from fidelity.core.minhash import PERMUTATIONS, SEED, signature
from ingest.neardup import shingles


def datasketch_signature(items: set[str]) -> MinHash:
    """What datasketch makes when each MinHash draws its own permutations from the seed."""
    minhash = MinHash(num_perm=PERMUTATIONS, seed=SEED)
    for item in sorted(items):
        minhash.update(item.encode())
    return minhash


def test_signatures_of_a_real_deck_equal_datasketchs(typical: Document) -> None:
    sets = [shingles(artifact.text, 2) for artifact in typical.artifacts if artifact.text]
    sets += [set(), {""}, {"é ü", "Ω"}]
    assert len(sets) > 10
    for items in sets:
        assert signature(items) == datasketch_signature(items)  # scheme, seed and hash values
    first, second = signature(sets[0] | sets[1]), datasketch_signature(sets[0])
    assert first.jaccard(second) == datasketch_signature(sets[0] | sets[1]).jaccard(second)


def test_a_signature_updated_later_does_not_change_the_others() -> None:
    before = signature({"a b"})
    grown = signature({"a b"})
    grown.update(b"c d")
    assert signature({"a b"}) == before
    assert grown != before
