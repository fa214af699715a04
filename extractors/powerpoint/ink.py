"""Ink content parts (InkML): stroke count, pen colour and width, and recognised handwriting."""

from __future__ import annotations

from typing import Any

from lxml import etree

from extractors.ooxml.namespaces import INKML

EMMA = "http://www.w3.org/2003/04/emma"
MSINK = "http://schemas.microsoft.com/ink/2010/main"


def parse_ink(root: etree._Element) -> dict[str, Any]:
    """Facts of an InkML part: strokes, pen colours and widths, recognised words."""
    colors: list[str] = []
    widths: list[str] = []
    for brush in root.iter(f"{{{INKML}}}brush"):
        for prop in brush.iter(f"{{{INKML}}}brushProperty"):
            value = prop.get("value", "")
            if prop.get("name") == "color" and value.startswith("#") and len(value) == 7:
                colors.append(value[1:].upper())
            elif prop.get("name") == "width" and value:
                widths.append(f"{float(value):.2f} {prop.get('units', 'cm')}")
    return {
        "strokes": sum(1 for _ in root.iter(f"{{{INKML}}}trace")),
        "colors": list(dict.fromkeys(colors)) or ["000000"],
        "widths": list(dict.fromkeys(widths)),
        "recognized": _recognized(root),
    }


def _recognized(root: etree._Element) -> str:
    """The best recognition of each handwritten word, in order."""
    words: list[str] = []
    fallback: list[str] = []
    for emma in root.iter(f"{{{EMMA}}}emma"):
        context = next(emma.iter(f"{{{MSINK}}}context"), None)
        choice = emma.find(f"{{{EMMA}}}one-of")
        if choice is None:
            continue
        literal = next(choice.iter(f"{{{EMMA}}}literal"), None)
        text = " ".join((literal.text or "").split()) if literal is not None else ""
        if not text:
            continue
        if context is not None and context.get("type") == "inkWord":
            words.append(text)
        else:
            fallback.append(text)
    return " ".join(words or fallback)
