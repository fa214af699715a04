"""Damaged and hostile Office files for the robustness tests, built deterministically.

`mutants(source, rng, count)` derives damaged copies of a real package (byte flips
inside compressed streams, truncated or removed parts, garbage attribute values,
relationships to missing, external or circular targets, a truncated file);
`hostile(folder, rng)` writes packages made to hurt a reader (a zip bomb, a lying
size header, 100,000 entries, an entity bomb after a long comment, external
entities, `../` entry names, an OLE file named .docx, random bytes);
`dtd_in_unread_part(source, ...)` a copy of a real package with a DTD in a part no reader
opens (an unused slide layout); `long_report(paragraphs)` a plain but long Word file.
"""

from __future__ import annotations

import io
import random
import struct
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path

from lxml import etree

CONTENT_TYPES = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
    'relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>'
    '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-'
    'officedocument.wordprocessingml.document.main+xml"/></Types>'
)
ROOT_RELS = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
    'relationships/officeDocument" Target="word/document.xml"/></Relationships>'
)
W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
DOCUMENT = (
    f'<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="{W}"><w:body>'
    "<w:p><w:r><w:t>{text}</w:t></w:r></w:p></w:body></w:document>"
)
EXTERNAL = "http://example.invalid/payload"


# zips written by hand (zipfile cannot write a member whose header lies) -------------
def raw_zip(members: list[tuple[str, bytes, int, int, int]]) -> bytes:
    """A zip from (name, stored data, crc, declared size, method) exactly as given."""
    out, directory = io.BytesIO(), io.BytesIO()
    for name, data, crc, size, method in members:
        encoded = name.encode()
        offset = out.tell()
        header = (0x04034B50, 20, 0, method, 0, 0, crc, len(data), size, len(encoded), 0)
        out.write(struct.pack("<IHHHHHIIIHH", *header) + encoded + data)
        central = (0x02014B50, 20, 20, 0, method, 0, 0, crc, len(data), size, len(encoded))
        directory.write(struct.pack("<IHHHHHHIIIH", *central))
        directory.write(struct.pack("<HHHHII", 0, 0, 0, 0, 0, offset) + encoded)
    start, table = out.tell(), directory.getvalue()
    count = len(members)
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, count, count, len(table), start, 0)
    return out.getvalue() + table + end


def deflated(data: bytes) -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    return packer.compress(data) + packer.flush()


BLOCK = 16 * 1024 * 1024


def zeros_stream(blocks: int) -> bytes:
    """A raw deflate stream of `blocks` × 16 MB of zero bytes, built from one compressed block
    (a full flush makes blocks independent), so the zeros are never held."""
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    unit = packer.compress(bytes(BLOCK)) + packer.flush(zlib.Z_FULL_FLUSH)
    return unit * blocks + b"\x03\x00"


def zeros_crc(blocks: int) -> int:
    crc, block = 0, bytes(BLOCK)
    for _ in range(blocks):
        crc = zlib.crc32(block, crc)
    return crc


def word_member(name: str, text: str) -> tuple[str, bytes, int, int, int]:
    data = text.encode()
    return (name, deflated(data), zlib.crc32(data), len(data), zipfile.ZIP_DEFLATED)


def docx_with(document: tuple[str, bytes, int, int, int] | None = None) -> list:
    body = document or word_member("word/document.xml", DOCUMENT.format(text="Hello"))
    return [
        word_member("[Content_Types].xml", CONTENT_TYPES),
        word_member("_rels/.rels", ROOT_RELS),
        body,
    ]


def hostile(folder: Path, rng: random.Random, ole_source: Path) -> dict[str, str]:
    """Write the hostile packages into `folder`; file name -> a word its reason must hold."""
    expected = {}
    size = 12 * BLOCK  # under the part limit, but 1000:1
    member = ("word/document.xml", zeros_stream(12), zeros_crc(12), size, zipfile.ZIP_DEFLATED)
    (folder / "zip-bomb.docx").write_bytes(raw_zip(docx_with(member)))
    expected["zip-bomb.docx"] = "zip bomb"

    lying = zeros_stream(256)  # 4 GB of zeros declared as 1,000 bytes (with their CRC)
    member = ("word/document.xml", lying, zlib.crc32(bytes(1000)), 1000, zipfile.ZIP_DEFLATED)
    (folder / "lying-size.docx").write_bytes(raw_zip(docx_with(member)))
    expected["lying-size.docx"] = "beyond the 1000 bytes"

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("[Content_Types].xml", CONTENT_TYPES)
        archive.writestr("_rels/.rels", ROOT_RELS)
        archive.writestr("word/document.xml", DOCUMENT.format(text="Many"))
        for number in range(100_000):
            archive.writestr(f"word/media/e{number}.bin", b"")
    (folder / "many-entries.docx").write_bytes(buffer.getvalue())
    expected["many-entries.docx"] = "zip entries"

    laughs = "".join(
        f'<!ENTITY l{n} "{"".join(f"&l{n - 1};" for _ in range(10))}">' for n in range(1, 12)
    )
    types = (
        '<?xml version="1.0"?><!--'
        + "x" * 70_000
        + '--><!DOCTYPE Types [<!ENTITY l0 "lol">'
        + laughs
        + "]>"
        + CONTENT_TYPES.split("?>", 1)[1].replace("</Types>", "&l11;</Types>")
    )
    members = docx_with()
    members[0] = word_member("[Content_Types].xml", types)
    (folder / "entity-bomb.docx").write_bytes(raw_zip(members))
    expected["entity-bomb.docx"] = "DTD"

    xxe = (
        '<?xml version="1.0"?><!DOCTYPE w:document [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
        + DOCUMENT.format(text="&x;").split("?>", 1)[1]
    )
    (folder / "external-entity.docx").write_bytes(
        raw_zip(docx_with(word_member("word/document.xml", xxe)))
    )
    expected["external-entity.docx"] = "DTD"

    members = [*docx_with(), word_member("../../escaped.txt", "out"), word_member("/abs", "x")]
    (folder / "dotdot-names.docx").write_bytes(raw_zip(members))
    expected["dotdot-names.docx"] = "outside the package"

    (folder / "ole-named.docx").write_bytes(ole_source.read_bytes())
    expected["ole-named.docx"] = "doc"
    (folder / "random.docx").write_bytes(rng.randbytes(4096))
    expected["random.docx"] = "not an Office file"
    (folder / "random-zip.xlsx").write_bytes(b"PK\x03\x04" + rng.randbytes(4096))
    expected["random-zip.xlsx"] = "zip"
    return expected


def long_report(paragraphs: int) -> bytes:
    """A valid Word file of `paragraphs` short paragraphs (about 100 bytes of XML each)."""
    body = "".join(
        f"<w:p><w:r><w:t>Paragraph {number} of a long report about quarterly sales in region "
        f"{number % 97}.</w:t></w:r></w:p>"
        for number in range(paragraphs)
    )
    document = DOCUMENT.replace("<w:p><w:r><w:t>{text}</w:t></w:r></w:p>", body)
    return raw_zip(docx_with(word_member("word/document.xml", document)))


def dtd_in_unread_part(source: Path, part: str, encoding: str = "utf-8") -> bytes:
    """`source` with `part` rewritten (in `encoding`) to declare a DTD with an entity."""
    members = _members(source.read_bytes())
    body = members[part].decode("utf-8").split("?>", 1)[1]
    root = body.lstrip().split(None, 1)[0].lstrip("<")
    members[part] = (
        f'<?xml version="1.0" encoding="{encoding.upper()}"?>'
        f'<!DOCTYPE {root} [<!ENTITY x "expanded">]>{body}'
    ).encode(encoding)
    return _zip(members)


# mutants of a real package ----------------------------------------------------------
def _members(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {info.filename: archive.read(info) for info in archive.infolist()}


def _zip(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def _xml_parts(members: dict[str, bytes]) -> list[str]:
    return sorted(name for name in members if name.endswith((".xml", ".rels")))


def flip_compressed_bytes(data: bytes, rng: random.Random) -> bytes:
    """Flip a few bytes inside one member's compressed stream (a damaged download)."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        infos = [info for info in archive.infolist() if info.compress_size > 16]
    info = rng.choice(infos)
    header_extra = struct.unpack_from("<H", data, info.header_offset + 28)[0]
    start = info.header_offset + 30 + len(info.orig_filename.encode()) + header_extra
    damaged = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        damaged[start + rng.randrange(info.compress_size)] ^= 1 << rng.randrange(8)
    return bytes(damaged)


def truncate_part(data: bytes, rng: random.Random) -> bytes:
    members = _members(data)
    name = rng.choice(_xml_parts(members))
    members[name] = members[name][: rng.randrange(len(members[name]) or 1)]
    return _zip(members)


def remove_part(data: bytes, rng: random.Random) -> bytes:
    members = _members(data)
    del members[rng.choice(sorted(members))]
    return _zip(members)


GARBAGE = ["", "-1", "99999999999999999999", "NaN", "1e308", "x" * 3000, "\u202e\u0000?", "../"]


def garbage_attributes(data: bytes, rng: random.Random) -> bytes:
    """Set several attribute values of one XML part to garbage."""
    members = _members(data)
    name = rng.choice(_xml_parts(members))
    try:
        root = etree.fromstring(members[name])
    except etree.XMLSyntaxError:
        return data
    elements = [element for element in root.iter() if element.attrib]
    for element in rng.sample(elements, min(len(elements), rng.randint(1, 12))):
        attribute = rng.choice(sorted(element.attrib))
        element.set(attribute, rng.choice(GARBAGE).replace("\u0000", ""))
    members[name] = etree.tostring(root, xml_declaration=True, encoding="UTF-8")
    return _zip(members)


def _retarget(data: bytes, rng: random.Random, change: Callable[[str, etree._Element], None]):
    members = _members(data)
    rels = sorted(name for name in members if name.endswith(".rels"))
    name = rng.choice(rels)
    root = etree.fromstring(members[name])
    if not len(root):
        return data
    for relationship in rng.sample(list(root), min(len(root), rng.randint(1, 3))):
        change(name, relationship)
    members[name] = etree.tostring(root, xml_declaration=True, encoding="UTF-8")
    return _zip(members)


def missing_target(data: bytes, rng: random.Random) -> bytes:
    return _retarget(data, rng, lambda _, rel: rel.set("Target", "missing/nowhere.xml"))


def external_target(data: bytes, rng: random.Random) -> bytes:
    def change(_: str, relationship: etree._Element) -> None:
        relationship.set("TargetMode", "External")
        relationship.set("Target", rng.choice([EXTERNAL, "file:///etc/passwd", "\\\\host\\s"]))

    return _retarget(data, rng, change)


def circular_target(data: bytes, rng: random.Random) -> bytes:
    """Relationships pointing back at their own source part (or its .rels file)."""

    def change(rels_name: str, relationship: etree._Element) -> None:
        folder, _, base = rels_name.rpartition("/")
        source = base[: -len(".rels")]
        relationship.set("Target", rng.choice([source, f"_rels/{base}", "../" + source, "/"]))

    return _retarget(data, rng, change)


def truncate_file(data: bytes, rng: random.Random) -> bytes:
    return data[: rng.randrange(64, len(data))]


MUTATIONS: dict[str, Callable[[bytes, random.Random], bytes]] = {
    "flip": flip_compressed_bytes,
    "cut-part": truncate_part,
    "no-part": remove_part,
    "garbage-attr": garbage_attributes,
    "rel-missing": missing_target,
    "rel-external": external_target,
    "rel-circular": circular_target,
    "cut-file": truncate_file,
}


def mutants(source: Path, rng: random.Random, count: int) -> list[tuple[str, bytes]]:
    """`count` damaged copies of `source`: (name, bytes), each mutation kind in turn."""
    data = source.read_bytes()
    kinds = list(MUTATIONS)
    out = []
    for number in range(count):
        kind = kinds[number % len(kinds)]
        name = f"{source.stem}.{kind}.{number}{source.suffix}"
        out.append((name, MUTATIONS[kind](data, rng)))
    return out
