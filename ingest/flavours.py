"""Normalise macro-enabled, template and slideshow OOXML flavours to the plain formats.

A .docm/.dotx/.xlsm/.xltx/.pptm/.potx/... holds the same parts as a .docx/.xlsx/.pptx;
only the main part's content type differs, and python-docx / python-pptx refuse
anything but the plain one. Rewriting that one content type (nothing else: macros
stay inert bytes, never run) gives a package every extractor reads, losslessly,
without LibreOffice.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

from lxml import etree

from fidelity.core.apps import APPLICATIONS
from fidelity.core.xmlsafe import Package, parse_xml
from ingest.sniff import OOXML_MAIN_TYPES

PLAIN_TYPES = {
    (app, fmt): content_type
    for content_type, (app, fmt) in OOXML_MAIN_TYPES.items()
    if fmt in {"docx", "xlsx", "pptx"}
}
CONTENT_TYPES = "[Content_Types].xml"


def normalise_flavour(path: Path, app: str) -> bytes:
    """The package at `path` with its main part typed as a plain docx/xlsx/pptx."""
    plain = PLAIN_TYPES[(app, APPLICATIONS[app].plain_format)]
    with Package(path) as package:
        types = parse_xml(package.read(CONTENT_TYPES))
        for override in types:
            if override.get("ContentType", "") in OOXML_MAIN_TYPES:
                override.set("ContentType", plain)
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as out:
            for info in package.zip.infolist():
                if info.filename == CONTENT_TYPES:
                    data = etree.tostring(
                        types, xml_declaration=True, encoding="UTF-8", standalone=True
                    )
                else:
                    data = package.read(info.filename)
                out.writestr(info, data, compress_type=zipfile.ZIP_DEFLATED)
    return buffer.getvalue()
