"""Text bodies (a:txBody) as paragraphs of spans: level, bullet, and per-span language,
highlight, hyperlink and equation, so each can become its own artifact."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from lxml import etree

from extractors.ooxml.namespaces import A14, a, children, int_attr, local
from extractors.powerpoint.colors import Color, Palette
from extractors.powerpoint.math import equation_text

LinkResolver = Callable[[etree._Element], "Link | None"]


@dataclass(frozen=True)
class Link:
    """Where a click goes: an external URL, a slide of the deck, or a show action."""

    target: str
    kind: str  # "url" | "slide" | "action"
    slide: int | None = None


@dataclass
class Span:
    text: str
    lang: str | None = None
    highlight: Color | None = None
    link: Link | None = None
    equation: str | None = None


@dataclass
class Paragraph:
    level: int = 0
    bullet: str | None = None
    spans: list[Span] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "".join(s.equation if s.equation is not None else s.text for s in self.spans)


def paragraphs(
    body: etree._Element | None,
    palette: Palette,
    resolve_link: LinkResolver,
    bulleted: bool = False,
) -> list[Paragraph]:
    """Paragraphs of a txBody; `bulleted`: the shape's paragraphs are bullets by default."""
    if body is None:
        return []
    out: list[Paragraph] = []
    numbers: dict[int, int] = {}
    for element in children(body):
        if local(element) != "p":
            continue
        props = element.find(a("pPr"))
        level = int_attr(props, "lvl")
        paragraph = Paragraph(level=level, spans=_spans(element, palette, resolve_link))
        if not paragraph.text.strip():
            continue
        kind = _bullet_kind(props, bulleted)
        if kind == "number":
            numbers = {lvl: n for lvl, n in numbers.items() if lvl <= level}
            numbers[level] = numbers.get(level, 0) + 1
            paragraph.bullet = f"{numbers[level]}."
        elif kind == "char":
            paragraph.bullet = "-"
        out.append(paragraph)
    return out


def _bullet_kind(props: etree._Element | None, bulleted: bool) -> str | None:
    if props is not None:
        for child in props:
            name = local(child)
            if name == "buNone":
                return None
            if name == "buAutoNum":
                return "number"
            if name in ("buChar", "buBlip"):
                return "char"
    return "char" if bulleted else None


def _spans(paragraph: etree._Element, palette: Palette, resolve_link: LinkResolver) -> list[Span]:
    spans: list[Span] = []
    for element in children(paragraph):
        kind = local(element)
        if kind in ("r", "fld"):
            props = element.find(a("rPr"))
            text = element.findtext(a("t")) or ""
            spans.append(_span(text, props, palette, resolve_link))
        elif kind == "br":
            spans.append(Span(" "))
        elif element.tag == f"{{{A14}}}m":
            maths = [c for c in element if isinstance(c.tag, str)]
            linear = "; ".join(equation_text(m) for m in maths)
            if linear:
                spans.append(Span("", equation=linear))
    return _merge(spans)


def _span(
    text: str, props: etree._Element | None, palette: Palette, resolve_link: LinkResolver
) -> Span:
    if props is None:
        return Span(text)
    highlight = props.find(a("highlight"))
    link = props.find(a("hlinkClick"))
    return Span(
        text,
        lang=props.get("lang"),
        highlight=palette.resolve(next(iter(highlight), None)) if highlight is not None else None,
        link=resolve_link(link) if link is not None else None,
    )


def _merge(spans: list[Span]) -> list[Span]:
    """Join neighbouring spans that share language, highlight and link."""
    merged: list[Span] = []
    for span in spans:
        last = merged[-1] if merged else None
        if (
            last is not None
            and last.equation is None
            and span.equation is None
            and (last.lang, last.highlight, last.link) == (span.lang, span.highlight, span.link)
        ):
            last.text += span.text
        elif span.text or span.equation:
            merged.append(span)
    return merged


def plain(paragraph_list: list[Paragraph]) -> str:
    return "\n".join(p.text for p in paragraph_list)
