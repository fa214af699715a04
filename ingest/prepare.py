"""Turn a sniffed file into something an extractor reads, or say why it cannot be."""

from __future__ import annotations

from pathlib import Path

from ingest.sniff import Sniffed

# Formats the extractors read directly (macro and template flavours share the OOXML parts).
DIRECT = {"docx", "docm", "dotx", "dotm", "xlsx", "xlsm", "xltx", "xltm", "pptx", "pptm", "potx", "potm", "ppsx", "ppsm"}


class NotReadable(Exception):
    """The file cannot be turned into OOXML; the message is the recorded reason."""


def prepare(path: Path, sniffed: Sniffed, work_dir: Path) -> tuple[Path, str | None]:
    """(path of an OOXML file to extract, format it was converted from or None)."""
    if sniffed.problem:
        raise NotReadable(sniffed.problem)
    if sniffed.format in DIRECT and not sniffed.strict:
        return path, None
    raise NotReadable(f"{sniffed.format}{' (strict OOXML)' if sniffed.strict else ''} needs conversion through LibreOffice, which is not set up in this run")
