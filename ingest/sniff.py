"""Identify a file's real format from its bytes, never from its extension.

OOXML by the main part's content type (strict OOXML by its namespaces), OLE2
compound files by their streams (encrypted OOXML packages, encrypted .doc, .xls
and .ppt included), ODF by its `mimetype` member, RTF by its signature. A file
that cannot be read gets a `problem` (the recorded reason) and a `code`
(corrupt, encrypted, not_office, unsupported, unreadable, empty, unsafe: over the
zip limits of fidelity/core/zipcheck.py, a DTD, an entry name leaving the package). A zip
is checked against those limits, every member inflated in bounded chunks, first.
"""

from __future__ import annotations

import mmap
import struct
from dataclasses import dataclass, field
from pathlib import Path

import olefile

from fidelity.core.apps import APPLICATIONS, application_of_format
from fidelity.core.xmlsafe import Package, UnsafePackage, out_of_memory
from fidelity.core.zipcheck import check_members

OOXML_MAIN_TYPES: dict[str, tuple[str, str]] = {
    content_type: (name, fmt)
    for name, app in APPLICATIONS.items()
    for content_type, fmt in app.ooxml_types.items()
}
ODF_TYPES = {
    mimetype: (name, fmt)
    for name, app in APPLICATIONS.items()
    for mimetype, fmt in app.odf_types.items()
}
OLE_STREAMS = {
    stream: (name, fmt)
    for name, app in APPLICATIONS.items()
    for stream, fmt in app.ole_streams.items()
}

TEMPLATE_FORMATS = {"dotx", "dotm", "xltx", "xltm", "potx", "potm", "ott", "ots", "otp"}
NATIVE_FORMATS = {app.plain_format for app in APPLICATIONS.values()}
# Extensions each real format may legitimately carry.
EXTENSIONS = {
    "xlsx": {"xlsx"},
    "doc": {"doc", "dot"},
    "xls": {"xls", "xlt"},
    "ppt": {"ppt", "pps", "pot"},
}
OFFICE_EXTENSIONS = (
    {ext for _, ext in OOXML_MAIN_TYPES.values()}
    | {ext for _, ext in ODF_TYPES.values()}
    | {"doc", "dot", "xls", "xlt", "ppt", "pps", "pot", "rtf"}
)

STRICT_NS = b"http://purl.oclc.org/ooxml/"


@dataclass
class Sniffed:
    """What a file really is, and why it cannot be read when it cannot."""

    container: str
    app: str | None = None
    format: str | None = None
    strict: bool = False
    problem: str | None = None
    code: str | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def readable(self) -> bool:
        return self.problem is None and self.app is not None

    @property
    def template(self) -> bool:
        return self.format in TEMPLATE_FORMATS

    @property
    def extension_mismatch(self) -> str | None:
        """The note saying the extension disagrees with the content, if any."""
        return next((note for note in self.notes if note.startswith("extension .")), None)


def _bad(container: str, code: str, problem: str) -> Sniffed:
    return Sniffed(container, problem=problem, code=code)


def sniff(path: Path) -> Sniffed:
    try:
        with path.open("rb") as handle:
            head = handle.read(8)
    except OSError as error:
        return _bad("unknown", "unreadable", f"unreadable: {error.strerror or error}")
    if not head:
        return _bad("empty", "empty", "empty file (0 bytes)")
    try:
        result = _sniff_container(path, head)
    except Exception as error:  # a hostile file must not stop the run: any failure is a reason
        if memory := out_of_memory(error):  # a fact about the run, not the file
            raise memory from error
        result = _bad("unknown", "corrupt", f"unreadable: {type(error).__name__}: {error}")
    extension = path.suffix.lower().lstrip(".")
    if result.format and extension not in EXTENSIONS.get(result.format, {result.format}):
        result.notes.append(f"extension .{extension} but content is {result.format}")
    elif result.code == "not_office" and extension in OFFICE_EXTENSIONS:
        result.notes.append(f"extension .{extension} but content is not an Office file")
    return result


def _sniff_container(path: Path, head: bytes) -> Sniffed:
    if head.startswith(b"PK"):
        return _sniff_zip(path)
    if head == b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1":
        return _sniff_ole(path)
    if head.startswith(b"{\\rtf"):
        return Sniffed("rtf", app=application_of_format("rtf"), format="rtf")
    return _bad("unknown", "not_office", "not an Office file (no zip, OLE2 or RTF signature)")


def _sniff_zip(path: Path) -> Sniffed:
    try:
        package = Package(path)
    except UnsafePackage as error:
        if error.code == "corrupt":
            return _bad("zip", "corrupt", _diagnose_broken_zip(path, error))
        return _bad("zip", error.code, str(error))
    with package:
        try:
            check_members(path, package.zip, refuse_dtd=package.has("[Content_Types].xml"))
            bad_member = None
        except UnsafePackage as error:
            if error.code != "corrupt":
                return _bad("zip", error.code, str(error))
            bad_member = str(error)
        if package.has("[Content_Types].xml"):
            result = _sniff_ooxml(package)
        elif package.has("mimetype"):
            result = _sniff_odf(package)
        else:
            return _bad("zip", "not_office", "zip archive that is not an Office package")
    if bad_member and result.problem is None:
        result.problem, result.code = f"corrupt package: {bad_member}", "corrupt"
    return result


def _diagnose_broken_zip(path: Path, error: Exception) -> str:
    """Say how a zip that zipfile refuses is broken: where its directory went."""
    with path.open("rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
        if data.find(b"PK\x05\x06", max(0, len(data) - (1 << 16) - 22)) < 0:
            if data.find(b"PK\x01\x02") >= 0:
                return "truncated zip package: no end-of-central-directory record"
            if data.find(b"PK\x03\x04") >= 0:
                return (
                    "truncated zip package: no central directory (only local file headers are "
                    "present)"
                )
    return str(error)


def _sniff_odf(package: Package) -> Sniffed:
    try:
        mimetype = package.read("mimetype")[:200].decode("ascii", "replace").strip()
    except UnsafePackage as error:
        return _bad("odf", error.code, f"unreadable mimetype: {error}")
    app, fmt = ODF_TYPES.get(mimetype, (None, None))
    if app is None:
        return Sniffed("odf", problem=f"unsupported ODF type {mimetype!r}", code="unsupported")
    return Sniffed("odf", app=app, format=fmt)


def _sniff_ooxml(package: Package) -> Sniffed:
    try:
        types = package.xml("[Content_Types].xml")
    except UnsafePackage as error:
        return _bad("ooxml", error.code, f"unreadable [Content_Types].xml: {error}")
    if types is None:  # not reached: only a package that has the part is asked
        return _bad("ooxml", "corrupt", "no [Content_Types].xml")
    for override in types:
        content_type = override.get("ContentType", "")
        if content_type in OOXML_MAIN_TYPES:
            app, fmt = OOXML_MAIN_TYPES[content_type]
            part = override.get("PartName", "").lstrip("/")
            strict = False
            if package.has(part):
                try:
                    strict = STRICT_NS in package.read(part)[:4096]
                except UnsafePackage as error:
                    return _bad("ooxml", error.code, f"unreadable main part: {error}")
            return Sniffed("ooxml", app=app, format=fmt, strict=strict)
    return _bad("ooxml", "unsupported", "OOXML package with no Word, Excel or PowerPoint main part")


def _sniff_ole(path: Path) -> Sniffed:
    try:
        ole = olefile.OleFileIO(str(path))
    except (OSError, ValueError) as error:
        return _bad("ole", "corrupt", f"corrupt OLE2 compound file: {error}")
    with ole:
        streams = {"/".join(entry) for entry in ole.listdir()}
        if "EncryptedPackage" in streams and "EncryptionInfo" in streams:
            return _bad("ole", "encrypted", "password-protected (encrypted OOXML package)")
        for stream, (app, fmt) in OLE_STREAMS.items():
            if stream in streams:
                result = Sniffed("ole", app=app, format=fmt)
                try:
                    encrypted = ENCRYPTION_TESTS[fmt](ole, streams)
                except (OSError, struct.error) as error:
                    result.problem, result.code = f"corrupt {fmt} stream: {error}", "corrupt"
                    return result
                if encrypted:
                    result.problem = f"password-protected (encrypted {LEGACY_NAMES[fmt]})"
                    result.code = "encrypted"
                return result
    return _bad(
        "ole", "not_office", "OLE2 compound file that is not a Word, Excel or PowerPoint file"
    )


LEGACY_NAMES = {
    "doc": "Word 97-2003 document",
    "xls": "Excel 97-2003 workbook",
    "ppt": "PowerPoint 97-2003 presentation",
}


def _word_binary_encrypted(ole: olefile.OleFileIO, streams: set[str]) -> bool:
    """The FIB's fEncrypted bit (bit 8 of the flags word at offset 0x0A)."""
    header = ole.openstream("WordDocument").read(12)
    if len(header) < 12:
        return False
    (flags,) = struct.unpack_from("<H", header, 0x0A)
    return bool(flags & 0x0100)


def _excel_binary_encrypted(ole: olefile.OleFileIO, streams: set[str]) -> bool:
    """A FILEPASS record (0x002F) among the workbook globals, before the first sheet."""
    name = "Workbook" if "Workbook" in streams else "Book"
    data = ole.openstream(name).read(1 << 16)
    offset = 0
    while offset + 4 <= len(data):
        kind, length = struct.unpack_from("<HH", data, offset)
        if kind == 0x002F:
            return True
        if kind in (0x0085, 0x000A):  # BOUNDSHEET or EOF: past where FILEPASS sits
            return False
        offset += 4 + length
    return False


def _powerpoint_binary_encrypted(ole: olefile.OleFileIO, streams: set[str]) -> bool:
    """An EncryptedSummary stream, or the CurrentUserAtom's encrypted header token."""
    if "EncryptedSummary" in streams:
        return True
    if "Current User" not in streams:
        return False
    atom = ole.openstream("Current User").read(16)
    return len(atom) >= 16 and struct.unpack_from("<I", atom, 12)[0] == 0xF3D1C4DF


ENCRYPTION_TESTS = {
    "doc": _word_binary_encrypted,
    "xls": _excel_binary_encrypted,
    "ppt": _powerpoint_binary_encrypted,
}
