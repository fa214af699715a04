"""Safe XML and zip access for untrusted Office packages.

Parsing never expands entities, never reaches the network and refuses DTDs;
zip members are size-capped so a hostile package cannot exhaust memory.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

from lxml import etree

MAX_PART_BYTES = 256 * 1024 * 1024
MAX_PACKAGE_BYTES = 1024 * 1024 * 1024

_PARSER = etree.XMLParser(
    resolve_entities=False,
    no_network=True,
    load_dtd=False,
    dtd_validation=False,
    huge_tree=False,
    remove_blank_text=False,
)


class UnsafePackage(ValueError):
    """A package that is too large when unpacked, or whose XML declares a DTD."""


def parse_xml(data: bytes) -> etree._Element:
    """Parse untrusted XML bytes; a DOCTYPE (entity tricks) is refused outright."""
    if b"<!DOCTYPE" in data[:4096] or b"<!ENTITY" in data[:65536]:
        raise UnsafePackage("XML part declares a DTD or entities")
    return etree.fromstring(data, parser=_PARSER)


class Package:
    """Read-only view over the parts of an OOXML zip package."""

    def __init__(self, path: Path) -> None:
        self.zip = zipfile.ZipFile(path)
        total = sum(info.file_size for info in self.zip.infolist())
        if total > MAX_PACKAGE_BYTES:
            raise UnsafePackage(f"package unpacks to {total} bytes, over the limit")
        self.names = set(self.zip.namelist())

    def __enter__(self) -> Package:
        return self

    def __exit__(self, *exc: object) -> None:
        self.zip.close()

    def has(self, name: str) -> bool:
        return name in self.names

    def read(self, name: str) -> bytes:
        info = self.zip.getinfo(name)
        if info.file_size > MAX_PART_BYTES:
            raise UnsafePackage(f"{name} is {info.file_size} bytes, over the part limit")
        return self.zip.read(name)

    def xml(self, name: str) -> etree._Element | None:
        return parse_xml(self.read(name)) if name in self.names else None

    def rels(self, part: str) -> dict[str, tuple[str, str, str]]:
        """Relationship id -> (type, target, target mode) for a part."""
        folder, _, base = part.rpartition("/")
        rels_name = f"{folder}/_rels/{base}.rels" if folder else f"_rels/{base}.rels"
        root = self.xml(rels_name)
        if root is None:
            return {}
        out = {}
        for rel in root:
            out[rel.get("Id")] = (
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
