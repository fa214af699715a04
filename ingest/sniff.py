"""Identify a file's real format from its bytes, never from its extension.

OOXML by the main part's content type (strict OOXML by its namespaces), OLE2
compound files by their streams (encrypted OOXML packages and encrypted .doc
included), ODF by its `mimetype` member, RTF by its signature.
"""

from __future__ import annotations

import struct
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import olefile

from fidelity.xmlsafe import UnsafePackage, parse_xml

OOXML_MAIN_TYPES: dict[str, tuple[str, str]] = {
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml": ("word", "docx"),
    "application/vnd.openxmlformats-officedocument.wordprocessingml.template.main+xml": ("word", "dotx"),
    "application/vnd.ms-word.document.macroEnabled.main+xml": ("word", "docm"),
    "application/vnd.ms-word.template.macroEnabledTemplate.main+xml": ("word", "dotm"),
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml": ("excel", "xlsx"),
    "application/vnd.openxmlformats-officedocument.spreadsheetml.template.main+xml": ("excel", "xltx"),
    "application/vnd.ms-excel.sheet.macroEnabled.main+xml": ("excel", "xlsm"),
    "application/vnd.ms-excel.template.macroEnabled.main+xml": ("excel", "xltm"),
    "application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml": (
        "powerpoint",
        "pptx",
    ),
    "application/vnd.openxmlformats-officedocument.presentationml.template.main+xml": (
        "powerpoint",
        "potx",
    ),
    "application/vnd.openxmlformats-officedocument.presentationml.slideshow.main+xml": (
        "powerpoint",
        "ppsx",
    ),
    "application/vnd.ms-powerpoint.presentation.macroEnabled.main+xml": ("powerpoint", "pptm"),
    "application/vnd.ms-powerpoint.template.macroEnabled.main+xml": ("powerpoint", "potm"),
    "application/vnd.ms-powerpoint.slideshow.macroEnabled.main+xml": ("powerpoint", "ppsm"),
}

ODF_TYPES = {
    "application/vnd.oasis.opendocument.text": ("word", "odt"),
    "application/vnd.oasis.opendocument.text-template": ("word", "ott"),
    "application/vnd.oasis.opendocument.spreadsheet": ("excel", "ods"),
    "application/vnd.oasis.opendocument.spreadsheet-template": ("excel", "ots"),
    "application/vnd.oasis.opendocument.presentation": ("powerpoint", "odp"),
    "application/vnd.oasis.opendocument.presentation-template": ("powerpoint", "otp"),
}

OLE_STREAMS = {"WordDocument": ("word", "doc"), "Workbook": ("excel", "xls"), "Book": ("excel", "xls")}
OLE_STREAMS["PowerPoint Document"] = ("powerpoint", "ppt")

TEMPLATE_FORMATS = {"dotx", "dotm", "xltx", "xltm", "potx", "potm", "ott", "ots", "otp"}
NATIVE_FORMATS = {"docx", "xlsx", "pptx"}
# Extensions each real format may legitimately carry.
EXTENSIONS = {"xlsx": {"xlsx"}, "doc": {"doc", "dot"}, "xls": {"xls", "xlt"}, "ppt": {"ppt", "pps", "pot"}}

STRICT_NS = b"http://purl.oclc.org/ooxml/"


@dataclass
class Sniffed:
    """What a file really is, and why it cannot be read when it cannot."""

    container: str
    app: str | None = None
    format: str | None = None
    strict: bool = False
    problem: str | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def readable(self) -> bool:
        return self.problem is None and self.app is not None

    @property
    def template(self) -> bool:
        return self.format in TEMPLATE_FORMATS


def sniff(path: Path) -> Sniffed:
    try:
        with path.open("rb") as handle:
            head = handle.read(8)
    except OSError as error:
        return Sniffed("unknown", problem=f"unreadable: {error.strerror or error}")
    if not head:
        return Sniffed("empty", problem="empty file (0 bytes)")
    if head.startswith(b"PK"):
        result = _sniff_zip(path)
    elif head == b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1":
        result = _sniff_ole(path)
    elif head.startswith(b"{\\rtf"):
        result = Sniffed("rtf", app="word", format="rtf")
    else:
        result = Sniffed("unknown", problem="not an Office file (no zip, OLE2 or RTF signature)")
    extension = path.suffix.lower().lstrip(".")
    if result.format and extension not in EXTENSIONS.get(result.format, {result.format}):
        result.notes.append(f"extension .{extension} but content is {result.format}")
    return result


def _sniff_zip(path: Path) -> Sniffed:
    try:
        archive = zipfile.ZipFile(path)
    except zipfile.BadZipFile as error:
        return Sniffed("zip", problem=f"corrupt or truncated zip package: {error}")
    with archive:
        names = set(archive.namelist())
        bad_member = _first_crc_error(archive)
        if "[Content_Types].xml" in names:
            result = _sniff_ooxml(archive)
        elif "mimetype" in names:
            mimetype = archive.read("mimetype").decode("ascii", "replace").strip()
            app, fmt = ODF_TYPES.get(mimetype, (None, None))
            result = Sniffed("odf", app=app, format=fmt)
            if app is None:
                result.problem = f"unsupported ODF type {mimetype!r}"
        else:
            return Sniffed("zip", problem="zip archive that is not an Office package")
    if bad_member and result.problem is None:
        result.problem = f"corrupt package: CRC mismatch in {bad_member}"
    return result


def _first_crc_error(archive: zipfile.ZipFile) -> str | None:
    try:
        return archive.testzip()
    except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError) as error:
        return f"unreadable member ({error})"


def _sniff_ooxml(archive: zipfile.ZipFile) -> Sniffed:
    try:
        types = parse_xml(archive.read("[Content_Types].xml"))
    except (UnsafePackage, ValueError, zipfile.BadZipFile, OSError) as error:
        return Sniffed("ooxml", problem=f"unreadable [Content_Types].xml: {error}")
    for override in types:
        content_type = override.get("ContentType", "")
        if content_type in OOXML_MAIN_TYPES:
            app, fmt = OOXML_MAIN_TYPES[content_type]
            part = override.get("PartName", "").lstrip("/")
            strict = False
            if part in archive.namelist():
                with archive.open(part) as handle:
                    strict = STRICT_NS in handle.read(4096)
            return Sniffed("ooxml", app=app, format=fmt, strict=strict)
    return Sniffed("ooxml", problem="OOXML package with no Word, Excel or PowerPoint main part")


def _sniff_ole(path: Path) -> Sniffed:
    try:
        ole = olefile.OleFileIO(str(path))
    except (OSError, ValueError) as error:
        return Sniffed("ole", problem=f"corrupt OLE2 compound file: {error}")
    with ole:
        streams = {"/".join(entry) for entry in ole.listdir()}
        if "EncryptedPackage" in streams and "EncryptionInfo" in streams:
            return Sniffed("ole", problem="password-protected (encrypted OOXML package)")
        for stream, (app, fmt) in OLE_STREAMS.items():
            if stream in streams:
                result = Sniffed("ole", app=app, format=fmt)
                if fmt == "doc" and _word_binary_encrypted(ole):
                    result.problem = "password-protected (encrypted Word 97-2003 document)"
                return result
    return Sniffed("ole", problem="OLE2 compound file that is not a Word, Excel or PowerPoint file")


def _word_binary_encrypted(ole: olefile.OleFileIO) -> bool:
    """The FIB's fEncrypted bit (bit 8 of the flags word at offset 0x0A)."""
    header = ole.openstream("WordDocument").read(12)
    if len(header) < 12:
        return False
    (flags,) = struct.unpack_from("<H", header, 0x0A)
    return bool(flags & 0x0100)
