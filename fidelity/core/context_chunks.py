"""Context texts cut into content-defined line chunks, each named by its digest and compressed.

The contexts a file's checks show are views of one document, most with one artifact
removed (ablation), so they share nearly all their lines. A text is cut after each line
whose CRC-32 ends in `BOUNDARY_BITS` zero bits (or after `MAX_CHUNK_LINES` lines), so a
few lines removed change only the chunk around them and the other chunks come out
identical: stored once each, the texts of a file cost about one text plus what differs.
Chunks are compressed with zlib: the standard library's deflate does what is needed (a
chunk is always read whole), so no compression package is added to the build.
"""

from __future__ import annotations

import hashlib
import zlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

DIGEST_BYTES = 16
BOUNDARY_BITS = 4  # a chunk ends after one line in 16 on average
MAX_CHUNK_LINES = 64
COMPRESSION_LEVEL = 6


def split(text: str) -> list[bytes]:
    """`text` as UTF-8 chunks of whole lines, cut where the content says (joined: the text)."""
    mask = (1 << BOUNDARY_BITS) - 1
    found: list[bytes] = []
    lines: list[bytes] = []
    for line in text.encode("utf-8").splitlines(keepends=True):
        lines.append(line)
        if zlib.crc32(line) & mask == 0 or len(lines) >= MAX_CHUNK_LINES:
            found.append(b"".join(lines))
            lines = []
    if lines:
        found.append(b"".join(lines))
    return found


def digest(chunk: bytes) -> bytes:
    return hashlib.blake2b(chunk, digest_size=DIGEST_BYTES).digest()


@dataclass(frozen=True)
class PackedText:
    """A text as the digests of its chunks in order, and each distinct chunk by its digest."""

    index: bytes
    chunks: Mapping[bytes, bytes]

    def compressed(self, missing: Iterable[bytes]) -> list[tuple[bytes, bytes]]:
        """(digest, compressed chunk) of the chunks named in `missing`."""
        return [(key, zlib.compress(self.chunks[key], COMPRESSION_LEVEL)) for key in missing]


def pack(text: str) -> PackedText:
    named = [(digest(chunk), chunk) for chunk in split(text)]
    return PackedText(b"".join(key for key, _ in named), dict(named))


def digests(index: bytes) -> list[bytes]:
    return [index[at : at + DIGEST_BYTES] for at in range(0, len(index), DIGEST_BYTES)]


def unpack(index: bytes, read: Callable[[bytes], bytes | None]) -> str | None:
    """The text an index names, reading each compressed chunk through `read` (None: a chunk
    is missing, so the text is not stored)."""
    parts: dict[bytes, bytes] = {}
    for key in digests(index):
        if key not in parts:
            stored = read(key)
            if stored is None:
                return None
            parts[key] = zlib.decompress(stored)
    return b"".join(parts[key] for key in digests(index)).decode("utf-8")
