"""Safe XML and zip access for untrusted Office packages.

Parsing never expands entities, never reaches the network and refuses DTDs; every
parse error (libxml2's own guards included) becomes an `UnsafePackage` with a
reason code, except running out of memory (libxml2's ERR_NO_MEMORY, under a worker's
memory limit), which is a MemoryError: a fact about the run, not about the file. Zip
entries are checked against the limits of fidelity/core/zipcheck.py when a package is
opened, and members are read in bounded chunks.
"""

from __future__ import annotations

import zipfile
import zlib
from pathlib import Path

from lxml import etree

from fidelity.core.zipcheck import CHUNK, MAX_PART_BYTES, UnsafePackage, check_entries

__all__ = ["MAX_PART_BYTES", "Package", "UnsafePackage", "out_of_memory", "parse_xml"]
# What reading a damaged member raises (zipfile, zlib, a truncated file, an odd method).
ZIP_ERRORS = (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError, OSError)

_PARSER = etree.XMLParser(
    resolve_entities=False,
    no_network=True,
    load_dtd=False,
    dtd_validation=False,
    huge_tree=False,
    remove_blank_text=False,
)


def out_of_memory(error: BaseException) -> MemoryError | None:
    """The MemoryError `error` is or stands for (libxml2 failing to allocate), else None."""
    if isinstance(error, MemoryError):
        return error
    if isinstance(error, etree.XMLSyntaxError) and (
        error.code == etree.ErrorTypes.ERR_NO_MEMORY
        or any(entry.type == etree.ErrorTypes.ERR_NO_MEMORY for entry in error.error_log)
    ):
        return MemoryError(f"libxml2 could not allocate memory ({error})")
    return None


def parse_xml(data: bytes, name: str = "XML part") -> etree._Element:
    """Parse untrusted XML bytes; a DOCTYPE (entity tricks) is refused wherever it sits."""
    if b"<!DOCTYPE" in data or b"<!ENTITY" in data:
        raise UnsafePackage(f"{name} declares a DTD or entities")
    try:
        root = etree.fromstring(data, parser=_PARSER)
    except etree.XMLSyntaxError as error:
        if memory := out_of_memory(error):
            raise memory from None
        code = "unsafe" if "amplification" in str(error) else "corrupt"
        raise UnsafePackage(f"{name}: malformed XML ({error})", code) from None
    except ValueError as error:  # e.g. an encoding lxml cannot decode
        raise UnsafePackage(f"{name}: unreadable XML ({error})", "corrupt") from None
    if root.getroottree().docinfo.doctype:  # a DTD in an encoding the byte test missed
        raise UnsafePackage(f"{name} declares a DTD or entities")
    return root


class Package:
    """Read-only view over the parts of an OOXML zip package."""

    def __init__(self, path: Path) -> None:
        try:
            self.zip = zipfile.ZipFile(path)
        except (zipfile.BadZipFile, OSError, ValueError) as error:
            raise UnsafePackage(f"corrupt zip package: {error}", "corrupt") from None
        try:
            check_entries(self.zip)
        except UnsafePackage:
            self.zip.close()
            raise
        self.names = set(self.zip.namelist())
        self.relationships: dict[str, dict[str, tuple[str, str, str]]] = {}

    def __enter__(self) -> Package:
        return self

    def __exit__(self, *exc: object) -> None:
        self.zip.close()

    def has(self, name: str) -> bool:
        return name in self.names

    def read(self, name: str) -> bytes:
        """A member's bytes, read in bounded chunks (never more than its declared size)."""
        try:
            info = self.zip.getinfo(name)
        except KeyError:
            raise UnsafePackage(f"{name} is missing from the package", "corrupt") from None
        if info.file_size > MAX_PART_BYTES:
            raise UnsafePackage(f"{name} is {info.file_size} bytes, over the part limit")
        chunks = []
        try:
            with self.zip.open(info) as handle:
                while chunk := handle.read(CHUNK):
                    chunks.append(chunk)
        except ZIP_ERRORS as error:
            raise UnsafePackage(f"{name}: unreadable ({error})", "corrupt") from None
        return b"".join(chunks)

    def xml(self, name: str) -> etree._Element | None:
        return parse_xml(self.read(name), name) if name in self.names else None

    def rels(self, part: str) -> dict[str, tuple[str, str, str]]:
        """Relationship id -> (type, target, target mode) for a part (parsed once per part)."""
        if part not in self.relationships:
            self.relationships[part] = self._read_rels(part)
        return dict(self.relationships[part])

    def _read_rels(self, part: str) -> dict[str, tuple[str, str, str]]:
        folder, _, base = part.rpartition("/")
        rels_name = f"{folder}/_rels/{base}.rels" if folder else f"_rels/{base}.rels"
        root = self.xml(rels_name)
        if root is None:
            return {}
        out: dict[str, tuple[str, str, str]] = {}
        for rel in root:
            out[rel.get("Id", "")] = (
                rel.get("Type", "").rsplit("/", 1)[-1],
                rel.get("Target", ""),
                rel.get("TargetMode", "Internal"),
            )
        return out

    @staticmethod
    def resolve(part: str, target: str) -> str:
        """Resolve a relationship target relative to its source part."""
        if target.startswith("/"):
            return target.lstrip("/")
        parts = part.split("/")[:-1]
        for piece in target.split("/"):
            if piece == "..":
                if parts:
                    parts.pop()
            elif piece and piece != ".":
                parts.append(piece)
        return "/".join(parts)
