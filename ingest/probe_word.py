"""Probe a Word package: Markdown-ish text, taxonomy category counts, structure signals."""

from __future__ import annotations

from typing import Any

from lxml import etree

from fidelity.core.xmlsafe import Package
from ingest.probe import Probe, load, local, main_part, parts

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
M = "http://schemas.openxmlformats.org/officeDocument/2006/math"
V = "urn:schemas-microsoft-com:vml"
PIC = "http://schemas.openxmlformats.org/drawingml/2006/picture"
CHART = "http://schemas.openxmlformats.org/drawingml/2006/chart"
WP15 = "http://schemas.microsoft.com/office/word/2012/wordprocessingDrawing"
VIDEO_EXTENSIONS = (".mp4", ".wmv", ".avi", ".mov", ".m4v", ".mpg", ".mpeg", ".webm")
FORMATTING = {"b", "i", "u", "color", "sz", "rFonts", "caps", "smallCaps", "vertAlign"}
OFF = {"0", "false", "off", "none"}


def w(name: str) -> str:
    return f"{{{W}}}{name}"


def _on(element: etree._Element) -> bool:
    return element.get(w("val"), "true").lower() not in OFF


def _text(element: etree._Element) -> str:
    return "".join(node.text or "" for node in element.iter(w("t")))


def _heading_styles(package: Package) -> dict[str, int]:
    """styleId -> heading level for Title and Heading N styles (or styles with an outline level)."""
    styles = load(package, "word/styles.xml")
    levels: dict[str, int] = {}
    if styles is None:
        return levels
    for style in styles.iter(w("style")):
        name_el = style.find(w("name"))
        name = (name_el.get(w("val"), "") if name_el is not None else "").lower()
        outline = style.find(f"{w('pPr')}/{w('outlineLvl')}")
        style_id = style.get(w("styleId"), "")
        if name == "title":
            levels[style_id] = 1
        elif name.startswith("heading") and name[7:].strip().isdigit():
            levels[style_id] = int(name[7:].strip())
        elif outline is not None and outline.get(w("val"), "9").isdigit():
            level = int(outline.get(w("val"), "9")) + 1
            if level <= 9:
                levels[style_id] = level
    return levels


def _heading_level(paragraph: etree._Element, headings: dict[str, int]) -> int:
    style = paragraph.find(f"{w('pPr')}/{w('pStyle')}")
    if style is not None and style.get(w("val"), "") in headings:
        return headings[style.get(w("val"), "")]
    outline = paragraph.find(f"{w('pPr')}/{w('outlineLvl')}")
    if outline is not None and outline.get(w("val"), "9").isdigit():
        level = int(outline.get(w("val"), "9")) + 1
        return level if level <= 9 else 0
    return 0


def _blocks(container: etree._Element) -> list[etree._Element]:
    """Paragraphs and tables of a body in order, looking through content controls."""
    out = []
    for child in container:
        name = local(child)
        if name in {"p", "tbl"}:
            out.append(child)
        elif name in {"sdt", "customXml", "sdtContent", "smartTag"}:
            out.extend(_blocks(child))
    return out


def _write_body(body: etree._Element, probe: Probe, headings: dict[str, int]) -> dict[str, int]:
    stats = {"paragraphs": 0, "empty_paragraphs": 0, "headings": 0, "lists": 0}
    levels: set[int] = set()
    for block in _blocks(body):
        if local(block) == "tbl":
            for row in block.iter(w("tr")):
                cells = [_text(cell).strip() for cell in row.iter(w("tc"))]
                probe.add_line("| " + " | ".join(cells) + " |")
            continue
        stats["paragraphs"] += 1
        text = _text(block).strip()
        if not text:
            stats["empty_paragraphs"] += 1
            continue
        level = _heading_level(block, headings)
        if level:
            stats["headings"] += 1
            levels.add(level)
        if block.find(f"{w('pPr')}/{w('numPr')}") is not None:
            stats["lists"] += 1
            text = "- " + text
        probe.add_line(("#" * level + " " if level else "") + text)
    stats["heading_levels"] = len(levels)
    return stats


def _placeholder_controls(document: etree._Element) -> int:
    """Characters of content controls still showing their placeholder prompt."""
    chars = 0
    for sdt in document.iter(w("sdt")):
        if sdt.find(f"{w('sdtPr')}/{w('showingPlcHdr')}") is not None:
            content = sdt.find(w("sdtContent"))
            chars += len(_text(content).strip()) if content is not None else 0
    return chars


def _count_runs(document: etree._Element) -> dict[str, int]:
    counts = {"Font": 0, "Highlight": 0, "Strikeout": 0}
    for props in document.iter(w("rPr")):
        names = {local(child) for child in props}
        if names & FORMATTING:
            counts["Font"] += 1
        highlight = props.find(w("highlight"))
        if highlight is not None and highlight.get(w("val"), "none") != "none":
            counts["Highlight"] += 1
        strikes = [props.find(w("strike")), props.find(w("dstrike"))]
        if any(strike is not None and _on(strike) for strike in strikes):
            counts["Strikeout"] += 1
    return counts


def _hyperlinks(document: etree._Element) -> int:
    count = sum(1 for _ in document.iter(w("hyperlink")))
    for instruction in document.iter(w("instrText")):
        count += "HYPERLINK" in (instruction.text or "")
    for simple in document.iter(w("fldSimple")):
        count += "HYPERLINK" in simple.get(w("instr"), "")
    return count


def _has_toc(document: etree._Element) -> bool:
    if any((node.text or "").strip().startswith("TOC") for node in document.iter(w("instrText"))):
        return True
    return any(
        "Table of Contents" in gallery.get(w("val"), "")
        for gallery in document.iter(w("docPartGallery"))
    )


def _nonempty_parts(package: Package, pattern: str) -> int:
    count = 0
    for name in parts(package, pattern):
        root = load(package, name)
        if root is not None and _text(root).strip():
            count += 1
    return count


def fill(package: Package, probe: Probe, values: dict[str, str]) -> None:
    document = load(package, main_part(package, "word/document.xml"))
    if document is None:
        raise ValueError("Word package without its main document part")
    body = document.find(w("body"))
    stats = _write_body(body if body is not None else document, probe, _heading_styles(package))
    probe.placeholder_chars += _placeholder_controls(document)
    counts: dict[str, int] = {
        "Text": stats["paragraphs"] - stats["empty_paragraphs"],
        "Table": sum(1 for _ in document.iter(w("tbl"))),
        "Layout": sum(1 for _ in document.iter(w("sectPr")))
        + sum(1 for cols in document.iter(w("cols")) if int(cols.get(w("num"), "1") or 1) > 1)
        + sum(
            1
            for jc in document.iterfind(f".//{w('p')}/{w('pPr')}/{w('jc')}")
            if jc.get(w("val")) in {"center", "right", "both", "end"}
        ),
        "Hyperlink": _hyperlinks(document),
        "Footnote": sum(1 for _ in document.iter(w("footnoteReference")))
        + sum(1 for _ in document.iter(w("endnoteReference"))),
        "Header": _nonempty_parts(package, r"word/header\d*\.xml"),
        "Footer": _nonempty_parts(package, r"word/footer\d*\.xml"),
        "Equation": sum(1 for _ in document.iter(f"{{{M}}}oMath")),
        "Textbox": sum(1 for _ in document.iter(w("txbxContent"))),
        "Video": sum(1 for _ in document.iter(f"{{{WP15}}}webVideoPr"))
        + sum(1 for name in package.names if name.lower().endswith(VIDEO_EXTENSIONS)),
        "Image": sum(1 for _ in document.iter(f"{{{PIC}}}pic"))
        + sum(1 for _ in document.iter(f"{{{V}}}imagedata")),
        "Chart": sum(1 for _ in document.iter(f"{{{CHART}}}chart")),
        **_count_runs(document),
    }
    comments = load(package, "word/comments.xml") if package.has("word/comments.xml") else None
    counts["Comment"] = sum(1 for _ in comments.iter(w("comment"))) if comments is not None else 0
    probe.categories.update(counts)
    features: dict[str, Any] = {
        "paragraphs": stats["paragraphs"],
        "empty_paragraphs": stats["empty_paragraphs"],
        "headings": stats["headings"],
        "heading_levels": stats["heading_levels"],
        "lists": stats["lists"],
        "toc": _has_toc(document),
        "tracked_changes": sum(1 for _ in document.iter(w("ins")))
        + sum(1 for _ in document.iter(w("del"))),
        "pages_app": _int(values.get("app.Pages")),
        "words_app": _int(values.get("app.Words")),
    }
    probe.features.update(features)


def _int(value: str | None) -> int | None:
    return int(value) if value and value.strip().isdigit() else None
