"""PresentationML reading helpers: namespaces, markup-compatibility choice, units, names."""

from __future__ import annotations

from collections.abc import Iterator

from lxml import etree

from fidelity.core.office_names import PRESET_NAMES

P = "http://schemas.openxmlformats.org/presentationml/2006/main"
A = "http://schemas.openxmlformats.org/drawingml/2006/main"
R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
MC = "http://schemas.openxmlformats.org/markup-compatibility/2006"
P14 = "http://schemas.microsoft.com/office/powerpoint/2010/main"
A14 = "http://schemas.microsoft.com/office/drawing/2010/main"
DGM = "http://schemas.openxmlformats.org/drawingml/2006/diagram"
TABLE_URI = "http://schemas.openxmlformats.org/drawingml/2006/table"
M = "http://schemas.openxmlformats.org/officeDocument/2006/math"
INKML = "http://www.w3.org/2003/InkML"

# Extension namespaces whose mc:Choice content this reader understands.
UNDERSTOOD = {"p14", "p15", "p16", "a14", "a15", "a16", "m", "v"}

EMU_PER_INCH = 914400


def p(name: str) -> str:
    return f"{{{P}}}{name}"


def a(name: str) -> str:
    return f"{{{A}}}{name}"


def r(name: str) -> str:
    return f"{{{R}}}{name}"


def local(element: etree._Element) -> str:
    return etree.QName(element).localname if isinstance(element.tag, str) else ""


def choose(alternate: etree._Element) -> list[etree._Element]:
    """The children of the mc:Choice this reader understands, else of mc:Fallback."""
    for branch in alternate:
        if not isinstance(branch.tag, str):
            continue
        if local(branch) == "Choice":
            required = set((branch.get("Requires") or "").split())
            if required <= UNDERSTOOD:
                return [c for c in branch if isinstance(c.tag, str)]
        elif local(branch) == "Fallback":
            return [c for c in branch if isinstance(c.tag, str)]
    return []


def children(element: etree._Element) -> Iterator[etree._Element]:
    """Element children with mc:AlternateContent replaced by its chosen branch."""
    for child in element:
        if not isinstance(child.tag, str):
            continue
        if child.tag == f"{{{MC}}}AlternateContent":
            yield from choose(child)
        else:
            yield child


def inches(emu: float) -> str:
    return f"{emu / EMU_PER_INCH:.2f} in"


def int_attr(element: etree._Element | None, name: str, default: int = 0) -> int:
    if element is None:
        return default
    try:
        return int(element.get(name, default))
    except ValueError:
        return default


def one_line(text: str) -> str:
    return " ".join(text.split())


def preset_name(preset: str) -> str:
    if preset in PRESET_NAMES:
        return PRESET_NAMES[preset]
    words: list[str] = []
    for char in preset:
        if char.isupper() or (char.isdigit() and words and not words[-1][-1:].isdigit()):
            words.append(char.lower())
        elif words:
            words[-1] += char
        else:
            words.append(char)
    return " ".join(words)
