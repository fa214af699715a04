"""Content hashes used for file identity and stable artifact ids."""

from __future__ import annotations

import hashlib
from pathlib import Path


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def short_hash(*parts: str, length: int = 10) -> str:
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:length]


class IdMaker:
    """Stable ids from content: the same key gives the same id, repeats get -2, -3…"""

    def __init__(self) -> None:
        self.seen: dict[str, int] = {}

    def __call__(self, prefix: str, *key: str) -> str:
        base = f"{prefix}-{short_hash(*key, length=8)}" if key else prefix
        count = self.seen.get(base, 0) + 1
        self.seen[base] = count
        return base if count == 1 else f"{base}-{count}"
