"""WordprocessingML reading helpers: namespaces, document-order walks, paragraph text."""

from __future__ import annotations

from collections.abc import Iterator

from lxml import etree

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
MC = "http://schemas.openxmlformats.org/markup-compatibility/2006"
W14 = "http://schemas.microsoft.com/office/word/2010/wordml"
W15 = "http://schemas.microsoft.com/office/word/2012/wordml"
WP = "http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing"
WP15 = "http://schemas.microsoft.com/office/word/2012/wordprocessingDrawing"
A = "http://schemas.openxmlformats.org/drawingml/2006/main"
C = "http://schemas.openxmlformats.org/drawingml/2006/chart"

FALLBACK = f"{{{MC}}}Fallback"
FIELD_NAMES = {"PAGE", "NUMPAGES", "SECTIONPAGES", "DATE", "TIME", "FILENAME", "AUTHOR", "TITLE"}


def w(name: str) -> str:
    return f"{{{W}}}{name}"


def attr(element: etree._Element | None, name: str, namespace: str = W) -> str | None:
    if element is None:
        return None
    return element.get(f"{{{namespace}}}{name}")


def walk(element: etree._Element, skip: frozenset[str] = frozenset()) -> Iterator[etree._Element]:
    """Descendants in document order, leaving out mc:Fallback copies and `skip` subtrees.

    lxml's iterwalk does the walk in C; a left-out subtree is skipped whole.
    """
    walker = etree.iterwalk(element, events=("start",))
    for _, node in walker:
        tag = node.tag
        if not isinstance(tag, str):
            continue
        if (tag == FALLBACK or tag in skip) and node is not element:
            walker.skip_subtree()
            continue
        yield node


def text_of(element: etree._Element, skip: frozenset[str] = frozenset()) -> str:
    """Visible text of a run container; fields like PAGE appear as {PAGE}."""
    out: list[str] = []
    field_depth = 0
    hidden_result = False
    simple: list[etree._Element] = []  # fldSimple fields shown by name: their cached result
    for node in walk(element, skip):
        tag = node.tag
        if tag == w("t"):
            if not hidden_result and not _inside(node, simple):
                out.append(node.text or "")
        elif tag == w("tab"):
            out.append("\t")
        elif tag == w("noBreakHyphen"):
            out.append("\u2011")  # "Figure 3‑11", as the page shows it (and pandoc reads it)
        elif tag in (w("br"), w("cr")):
            out.append("\n")
        elif tag == w("fldChar"):
            kind = attr(node, "fldCharType")
            if kind == "begin":
                field_depth += 1
            elif kind == "end":
                field_depth = max(0, field_depth - 1)
                hidden_result = False
        elif tag == w("instrText"):
            name = (node.text or "").strip().split(" ")[0].upper()
            if name in FIELD_NAMES:
                out.append("{" + name + "}")
                hidden_result = True
        elif tag == w("fldSimple"):
            name = (attr(node, "instr") or "").strip().split(" ")[0].upper()
            if name in FIELD_NAMES:
                out.append("{" + name + "}")
                simple.append(node)
        elif tag == w("p") and out and not out[-1].endswith("\n"):
            out.append("\n")
    return "".join(out)


def _inside(node: etree._Element, fields: list[etree._Element]) -> bool:
    """True when the node sits in one of the fields (a date field's cached date, which a
    reader never sees: Word shows the date of the day)."""
    return bool(fields) and any(ancestor in fields for ancestor in node.iterancestors())


def paragraphs_text(element: etree._Element, skip: frozenset[str] = frozenset()) -> list[str]:
    """Text of each paragraph directly under a container (nested text boxes excluded)."""
    nested = skip | {w("txbxContent")}
    return [
        " ".join(text_of(p, nested).split())
        for p in element.iter(w("p"))
        if not any(a.tag in (w("txbxContent"), FALLBACK) for a in p.iterancestors())
        or element.tag == w("txbxContent")
    ]
