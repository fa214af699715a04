"""Turn a sniffed file into the OOXML file an extractor reads, or say why it cannot be.

Plain .docx/.xlsx/.pptx are read in place. Macro, template and slideshow flavours
are normalised without LibreOffice (ingest/flavours.py). Legacy binaries
(.doc/.xls/.ppt), ODF, RTF and strict OOXML are converted through LibreOffice
(ingest/unoserver_pool.py). Results are cached in `work_dir` by the source's
sha256, so a second run (or the extraction after the ingest pass) converts nothing.
"""

from __future__ import annotations

import os
import tempfile
import zipfile
from pathlib import Path

from fidelity.core.apps import APPLICATIONS
from fidelity.core.hashing import file_sha256
from fidelity.core.services import Converter
from ingest.flavours import normalise_flavour
from ingest.sniff import NATIVE_FORMATS, OOXML_MAIN_TYPES, Sniffed, sniff
from ingest.uno_env import LibreOfficeUnavailable
from ingest.unoserver_pool import ConversionError, shared_converter

FLAVOURS = {fmt for _, fmt in OOXML_MAIN_TYPES.values()} - NATIVE_FORMATS


class NotReadable(Exception):
    """The file cannot be turned into OOXML; the message is the recorded reason."""


def origin(sniffed: Sniffed) -> str | None:
    """What `converted_from` says for this file: None when it is read as it is."""
    if sniffed.format in NATIVE_FORMATS and not sniffed.strict:
        return None
    return f"{sniffed.format}-strict" if sniffed.strict else sniffed.format


def needs_libreoffice(sniffed: Sniffed) -> bool:
    return sniffed.readable and (sniffed.strict or sniffed.format not in FLAVOURS | NATIVE_FORMATS)


def prepare(
    path: Path,
    sniffed: Sniffed,
    work_dir: Path,
    converter: Converter | None = None,
    sha256: str | None = None,
) -> tuple[Path, str | None]:
    """(path of an OOXML file to extract, format it was converted from or None)."""
    if sniffed.problem or sniffed.app is None:
        raise NotReadable(sniffed.problem or "not an Office file")
    converted_from = origin(sniffed)
    if converted_from is None:
        return path, None
    target = work_dir / f"{sha256 or file_sha256(path)}.{APPLICATIONS[sniffed.app].plain_format}"
    if target.is_file():
        return target, converted_from
    if needs_libreoffice(sniffed):
        try:
            data = (converter or shared_converter()).convert(path, to=target.suffix[1:])
        except (ConversionError, LibreOfficeUnavailable) as error:
            raise NotReadable(f"conversion of {converted_from} failed: {error}") from error
    else:
        try:
            data = normalise_flavour(path, sniffed.app)
        except (zipfile.BadZipFile, OSError, ValueError, KeyError) as error:
            raise NotReadable(f"could not normalise {converted_from}: {error}") from error
    _write_checked(target, data, sniffed.app, converted_from)
    return target, converted_from


def _write_checked(target: Path, data: bytes, app: str, converted_from: str) -> None:
    """Write atomically, then make sure the result is the plain OOXML format expected."""
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=target.parent, suffix=target.suffix)
    with os.fdopen(handle, "wb") as out:
        out.write(data)
    check = sniff(Path(temporary))
    if (
        check.problem
        or check.app != app
        or check.format != APPLICATIONS[app].plain_format
        or check.strict
    ):
        os.unlink(temporary)
        found = check.problem or f"{check.format}{' (strict)' if check.strict else ''}"
        raise NotReadable(f"conversion of {converted_from} gave no usable OOXML: {found}")
    os.replace(temporary, target)
