"""Check an untrusted zip package against limits before any work: entries, names, sizes, ratio.

`check_entries` looks only at the central directory (entry count, entry names,
declared sizes and compression ratios). `check_members` then inflates every member
from its raw bytes in bounded chunks, counting what it really produces, so a member
whose header lies about its size costs no more than the cap, and checks each CRC; in an
OOXML package (`refuse_dtd`) an XML member declaring a DTD or entities is refused there, so
the refusal covers every XML part, read later or not (ODF's embedded MathML legitimately
carries a DOCTYPE, and LibreOffice reads ODF).
Hand-written because zipfile trusts the declared size (`read()` asks zlib for up to
2 GB in one call) and `testzip()` inflates every member in full, however large.
"""

from __future__ import annotations

import struct
import zipfile
import zlib
from pathlib import Path

MAX_ENTRIES = 10_000
MAX_PART_BYTES = 256 * 1024 * 1024  # a part read whole into memory (worksheets are streamed)
MAX_PACKAGE_BYTES = 1024 * 1024 * 1024
MAX_RATIO = 200  # inflated / compressed, enforced once a member passes RATIO_FLOOR bytes
RATIO_FLOOR = 8 * 1024 * 1024
CHUNK = 64 * 1024
LOCAL_HEADER = struct.Struct("<4s2B4HL2L2H")
LOCAL_SIGNATURE = b"PK\x03\x04"
XML_SUFFIXES = (".xml", ".rels", ".vml")
DTD_MARKERS = tuple(
    marker.encode(encoding)
    for marker in ("<!DOCTYPE", "<!ENTITY")
    for encoding in ("utf-8", "utf-16-le", "utf-16-be")
)
MARKER_OVERLAP = max(len(marker) for marker in DTD_MARKERS) - 1


class UnsafePackage(ValueError):
    """A package refused before or while it is read; `code` is the reason code."""

    def __init__(self, message: str, code: str = "unsafe") -> None:
        super().__init__(message)
        self.code = code


def unsafe_name(name: str) -> bool:
    """An entry name that would leave the folder it is unpacked into."""
    cleaned = name.replace("\\", "/")
    return cleaned.startswith("/") or ".." in cleaned.split("/") or ":" in cleaned.split("/")[0]


def check_entries(archive: zipfile.ZipFile) -> None:
    """Refuse, from the central directory alone, a package over the entry or size limits."""
    entries = archive.infolist()
    if len(entries) > MAX_ENTRIES:
        raise UnsafePackage(f"{len(entries)} zip entries, over the limit of {MAX_ENTRIES}")
    total = 0
    for info in entries:
        if unsafe_name(info.filename):
            raise UnsafePackage(f"entry name {info.filename!r} points outside the package")
        if info.file_size > RATIO_FLOOR and info.file_size > MAX_RATIO * max(1, info.compress_size):
            raise UnsafePackage(
                f"{info.filename} declares a compression ratio over {MAX_RATIO}:1 (zip bomb)"
            )
        total += info.file_size
    if total > MAX_PACKAGE_BYTES:
        raise UnsafePackage(f"package declares {total} unpacked bytes, over {MAX_PACKAGE_BYTES}")


def check_members(path: Path, archive: zipfile.ZipFile, refuse_dtd: bool = False) -> None:
    """Inflate every member in bounded chunks: real sizes, ratio and CRC against the limits
    (and, with `refuse_dtd`, no DTD in any XML member)."""
    budget = MAX_PACKAGE_BYTES
    with path.open("rb") as handle:
        for info in archive.infolist():
            budget -= _check_member(handle, info, budget, refuse_dtd)


def _check_member(handle, info: zipfile.ZipInfo, budget: int, refuse_dtd: bool) -> int:
    """Bytes the member really inflates to; raises UnsafePackage when it breaks a rule."""
    name = info.filename
    if info.flag_bits & 0x1:
        raise UnsafePackage(f"{name} is encrypted inside the zip", "encrypted")
    if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        raise UnsafePackage(f"{name} uses zip compression method {info.compress_type}", "corrupt")
    handle.seek(info.header_offset)
    header = handle.read(LOCAL_HEADER.size)
    if len(header) < LOCAL_HEADER.size or header[:4] != LOCAL_SIGNATURE:
        raise UnsafePackage(f"{name}: bad local file header", "corrupt")
    fields = LOCAL_HEADER.unpack(header)
    local_name = handle.read(fields[10])
    if local_name != info.orig_filename.encode("utf-8" if info.flag_bits & 0x800 else "cp437"):
        raise UnsafePackage(f"{name}: file name in directory and header differ", "corrupt")
    handle.seek(fields[11], 1)
    cap = min(budget, info.file_size)
    inflater = zlib.decompressobj(-15) if info.compress_type == zipfile.ZIP_DEFLATED else None
    left, produced, consumed, crc = info.compress_size, 0, 0, 0
    xml, tail = refuse_dtd and name.lower().endswith(XML_SUFFIXES), b""
    while left > 0 or (inflater is not None and inflater.unconsumed_tail):
        pending = inflater.unconsumed_tail if inflater and inflater.unconsumed_tail else b""
        if not pending:
            pending = handle.read(min(CHUNK, left))
            if not pending:
                raise UnsafePackage(f"{name}: the package ends inside this member", "corrupt")
            left -= len(pending)
            consumed += len(pending)
        try:
            output = inflater.decompress(pending, CHUNK) if inflater else pending
        except zlib.error as error:
            raise UnsafePackage(f"{name}: damaged compressed data ({error})", "corrupt") from None
        produced += len(output)
        crc = zlib.crc32(output, crc)
        if xml:
            tail = _refuse_dtd(name, tail + output)
        if produced > cap:
            if produced > info.file_size:  # damaged data, or a header that lies
                raise UnsafePackage(
                    f"{name} inflates beyond the {info.file_size} bytes its header declares",
                    "corrupt",
                )
            raise UnsafePackage(f"{name} inflates beyond {cap} bytes, over the limit")
        if produced > RATIO_FLOOR and produced > MAX_RATIO * consumed:
            raise UnsafePackage(f"{name} inflates over {MAX_RATIO}:1 (zip bomb)")
        if inflater is not None and inflater.eof:
            break
    if inflater is not None and not inflater.eof:
        raise UnsafePackage(f"{name}: compressed data ends early", "corrupt")
    if produced != info.file_size:
        raise UnsafePackage(
            f"{name}: inflates to {produced} bytes, its header says {info.file_size}", "corrupt"
        )
    if crc != info.CRC:
        raise UnsafePackage(f"CRC mismatch in {name}", "corrupt")
    return produced


def _refuse_dtd(name: str, text: bytes) -> bytes:
    """Raise when `text` (an XML member's bytes so far, from where the last look ended) holds a
    DTD or entity declaration; the end to carry into the next look otherwise."""
    if any(marker in text for marker in DTD_MARKERS):
        raise UnsafePackage(f"{name} declares a DTD or entities")
    return text[-MARKER_OVERLAP:]
