"""Word formatting facts: fonts resolved through the style chain, highlight, strikeout,
and layout (sections, columns, orientation, alignment, indentation, spacing)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from operator import attrgetter
from typing import TypedDict

from lxml import etree

from extractors.word.fields import FieldState
from extractors.word.index import BodyIndex
from extractors.word.xml import A, attr, text_of, w, walk
from fidelity.core.document import Artifact
from fidelity.core.hashing import IdMaker
from fidelity.core.locator import Locator
from fidelity.core.xmlsafe import Package

MAX_SPANS = 25
MAX_PARAGRAPH_LAYOUT = 20
TWIPS_PER_INCH = 1440
OFF = {"0", "false", "off", "none"}
ALIGN_WORDS = {"center": "centred", "right": "right-aligned", "end": "right-aligned"}
ALIGN_WORDS |= {"both": "justified", "distribute": "distributed"}
PAPER = {(12240, 15840): "Letter", (11906, 16838): "A4", (12240, 20160): "Legal"}


RFONTS, SZ, U, COLOR, HIGHLIGHT = (w(n) for n in ("rFonts", "sz", "u", "color", "highlight"))


@dataclass(frozen=True)
class RunFormat:
    font: str | None = None
    size: float | None = None
    bold: bool = False
    italic: bool = False
    underline: str | None = None
    color: str | None = None
    strike: str | None = None
    highlight: str | None = None

    def describe(self) -> str:
        parts = [self.font or "default font"]
        if self.size:
            parts.append(f"{self.size:g} pt")
        parts += [name for name, on in (("bold", self.bold), ("italic", self.italic)) if on]
        if self.underline:
            parts.append(
                "underlined" if self.underline == "single" else f"{self.underline} underline"
            )
        if self.color:
            parts.append(f"colour #{self.color}")
        return ", ".join(parts)


class RunChanges(TypedDict, total=False):
    """What one rPr sets of a RunFormat."""

    font: str | None
    size: float
    bold: bool
    italic: bool
    underline: str | None
    color: str | None
    strike: str | None
    highlight: str | None


@dataclass
class Styles:
    """styles.xml and the theme, enough to resolve a run's effective formatting."""

    defaults: RunFormat = field(default_factory=RunFormat)
    paragraph_default: str | None = None
    styles: dict[str, etree._Element] = field(default_factory=dict)
    theme_fonts: dict[str, str] = field(default_factory=dict)
    theme_colors: dict[str, str] = field(default_factory=dict)
    cache: dict[tuple[str, str], RunFormat] = field(default_factory=dict)

    @classmethod
    def load(cls, package: Package) -> Styles:
        styles = cls()
        theme = package.xml("word/theme/theme1.xml")
        if theme is not None:
            for which in ("major", "minor"):
                latin = theme.find(f".//{{{A}}}{which}Font/{{{A}}}latin")
                if latin is not None:
                    styles.theme_fonts[which] = latin.get("typeface", "")
            scheme = theme.find(f".//{{{A}}}clrScheme")
            for colour in scheme if scheme is not None else []:
                value = colour.find(f"{{{A}}}srgbClr")
                system = colour.find(f"{{{A}}}sysClr")
                name = etree.QName(colour).localname
                if value is not None:
                    styles.theme_colors[name] = value.get("val", "")
                elif system is not None:
                    styles.theme_colors[name] = system.get("lastClr", "")
        root = package.xml("word/styles.xml")
        if root is None:
            return styles
        default_rpr = root.find(f"{w('docDefaults')}/{w('rPrDefault')}/{w('rPr')}")
        styles.defaults = styles.apply(RunFormat(), default_rpr)
        for style in root.iter(w("style")):
            style_id = attr(style, "styleId") or ""
            styles.styles[style_id] = style
            if attr(style, "type") == "paragraph" and attr(style, "default") in ("1", "true"):
                styles.paragraph_default = style_id
        return styles

    def numbered(self, style_id: str | None) -> bool:
        """True when the paragraph style (or a style it is based on) makes a list item."""
        seen: set[str] = set()
        while style_id and style_id not in seen:
            seen.add(style_id)
            style = self.styles.get(style_id)
            if style is None:
                return False
            if style.find(f"{w('pPr')}/{w('numPr')}") is not None:
                return True
            style_id = attr(style.find(w("basedOn")), "val")
        return False

    def name(self, style_id: str | None) -> str:
        style = self.styles.get(style_id or "")
        name = style.find(w("name")) if style is not None else None
        return attr(name, "val") or (style_id or "")

    def apply(self, base: RunFormat, rpr: etree._Element | None) -> RunFormat:
        """Overlay one rPr on a format."""
        if rpr is None:
            return base
        changes: RunChanges = {}
        found: dict[object, etree._Element] = {}  # by tag (a comment's tag is a function)
        for child in rpr:  # one scan of the rPr instead of a find per property
            found.setdefault(child.tag, child)
        fonts = found.get(RFONTS)
        if fonts is not None:
            theme = attr(fonts, "asciiTheme")
            if theme:
                changes["font"] = self.theme_fonts.get("major" if "major" in theme else "minor")
            elif attr(fonts, "ascii") or attr(fonts, "hAnsi"):
                changes["font"] = attr(fonts, "ascii") or attr(fonts, "hAnsi")
        half_points = attr(found.get(SZ), "val") or ""
        if half_points.isdigit():
            changes["size"] = int(half_points) / 2
        bold = found.get(w("b"))
        if bold is not None:
            changes["bold"] = attr(bold, "val") not in OFF
        italic = found.get(w("i"))
        if italic is not None:
            changes["italic"] = attr(italic, "val") not in OFF
        underline = found.get(U)
        if underline is not None:
            line = attr(underline, "val") or "single"
            changes["underline"] = None if line in OFF else line
        colour = found.get(COLOR)
        if colour is not None:
            theme = attr(colour, "themeColor")
            rgb = self.theme_colors.get(theme, "") if theme else attr(colour, "val")
            changes["color"] = None if not rgb or rgb == "auto" else rgb.upper()
        for name in ("strike", "dstrike"):
            element = found.get(w(name))
            if element is not None:
                on = attr(element, "val") not in OFF
                changes["strike"] = ("double" if name == "dstrike" else "single") if on else None
        highlight = found.get(HIGHLIGHT)
        if highlight is not None:
            marker = attr(highlight, "val")
            changes["highlight"] = None if not marker or marker in OFF else marker
        return replace(base, **changes) if changes else base

    def style_format(self, style_id: str | None, kind: str = "p") -> RunFormat:
        key = (kind, style_id or "")
        if key in self.cache:
            return self.cache[key]
        chain: list[etree._Element] = []
        seen: set[str] = set()
        current = style_id
        while current and current in self.styles and current not in seen:
            seen.add(current)
            chain.append(self.styles[current])
            current = attr(self.styles[current].find(w("basedOn")), "val")
        result = self.defaults if kind == "p" else RunFormat()
        for style in reversed(chain):
            result = self.apply(result, style.find(w("rPr")))
        self.cache[key] = result
        return result

    def run_format(self, paragraph_style: str | None, run: etree._Element) -> RunFormat:
        base = self.style_format(paragraph_style or self.paragraph_default)
        rpr = run.find(w("rPr"))
        character_style = attr(rpr.find(w("rStyle")), "val") if rpr is not None else None
        if character_style:
            for style in self._chain(character_style):
                base = self.apply(base, style.find(w("rPr")))
        return self.apply(base, rpr)

    def _chain(self, style_id: str) -> list[etree._Element]:
        chain: list[etree._Element] = []
        current: str | None = style_id
        while current and current in self.styles and len(chain) < 16:
            chain.append(self.styles[current])
            current = attr(self.styles[current].find(w("basedOn")), "val")
        return list(reversed(chain))


@dataclass
class Paragraph:
    """A body paragraph read once: its style, plain text and runs with resolved formats."""

    element: etree._Element
    style_name: str
    base: RunFormat
    text: str
    runs: list[tuple[str, RunFormat]]
    in_table: bool
    generated: str = ""  # the field Word generated the paragraph's text from (BIBLIOGRAPHY, TOC)
    linked: list[bool] = field(default_factory=list)  # per run: link text


def read_paragraphs(index: BodyIndex, styles: Styles) -> list[Paragraph]:
    """Body paragraphs (text boxes, deleted and moved-away text left out), with run formats."""
    skip = frozenset({w("txbxContent"), w("del"), w("moveFrom")})  # moved-away text is gone
    out = []
    fields = FieldState()
    for node in index.of(w("p"), outside_textboxes=True):
        style = attr(node.find(f"{w('pPr')}/{w('pStyle')}"), "val")
        runs, linked, generated = [], [], set()
        for run in walk(node, skip):
            if run.tag == w("r"):
                fields.feed(run)
                text = text_of(run)
                if text:
                    runs.append((text, styles.run_format(style, run)))
                    linked.append(fields.linked(run))
                    generated.add(fields.generated(run))
        out.append(
            Paragraph(
                element=node,
                style_name=styles.name(style or styles.paragraph_default),
                base=styles.style_format(style or styles.paragraph_default),
                text=" ".join("".join(text for text, _ in runs).split()),
                runs=runs,
                in_table=any(a.tag == w("tc") for a in node.iterancestors()),
                generated=next(iter(generated)) if len(generated) == 1 else "",
                linked=linked,
            )
        )
    return out


def _is_heading(style_name: str) -> bool:
    lowered = style_name.lower()
    return lowered.startswith("heading") or lowered in ("title", "subtitle")


def _spans(
    paragraph: Paragraph, key: Callable[[RunFormat], object]
) -> list[tuple[str, RunFormat, bool]]:
    """Adjacent runs sharing the same `key(format)` (and being link text or not) merged into
    (text, format, link text) spans.

    A span that starts or ends inside a word ("eduction scenario" after a larger "R") is
    left out: quoted, it names words the document does not have.
    """
    spans: list[tuple[str, RunFormat, bool]] = []
    linked = paragraph.linked or [False] * len(paragraph.runs)
    for (text, fmt), link in zip(paragraph.runs, linked, strict=True):
        if spans and key(spans[-1][1]) == key(fmt) and spans[-1][2] == link:
            spans[-1] = (spans[-1][0] + text, spans[-1][1], link)
        else:
            spans.append((text, fmt, link))
    out = []
    for number, (text, fmt, link) in enumerate(spans):
        before = spans[number - 1][0][-1:] if number else ""
        after = spans[number + 1][0][:1] if number + 1 < len(spans) else ""
        cut = _joined(before, text[:1]) or _joined(text[-1:], after)
        if text.strip() and not cut:
            out.append((" ".join(text.split()), fmt, link))
    return out


def _joined(left: str, right: str) -> bool:
    """True when two characters either side of a run boundary belong to one word."""
    return left.isalnum() and right.isalnum()


def font_artifacts(paragraphs: list[Paragraph], styles: Styles, ids: IdMaker) -> list[Artifact]:
    artifacts: list[Artifact] = []
    body = styles.style_format(styles.paragraph_default)
    artifacts.append(
        Artifact(
            id="font-body",
            category="Font",
            kind="font-body",
            modality="element",
            where=Locator(
                element=f"paragraph style {styles.name(styles.paragraph_default) or 'Normal'}"
            ),
            text=f"Body text font (style {styles.name(styles.paragraph_default) or 'Normal'}): "
            f"{body.describe()}",
            facts={
                "subject": "body text",
                "style": styles.name(styles.paragraph_default),
                **_facts(body),
            },
            group="Formatting",
        )
    )
    span_count = 0
    seen: set[tuple[str, RunFormat]] = set()
    for paragraph in paragraphs:
        style_name, text = paragraph.style_name, paragraph.text
        if not text:
            continue
        if _is_heading(style_name):
            fmt = next(fmt for run_text, fmt in paragraph.runs if run_text.strip())
            artifacts.append(
                Artifact(
                    id=ids("font", style_name, text),
                    category="Font",
                    kind="font-heading",
                    modality="element",
                    where=Locator(element="heading", quoted=text),
                    text=f"Font of the heading “{text}” (style {style_name}): {fmt.describe()}",
                    facts={"subject": text, "style": style_name, **_facts(fmt)},
                    group="Formatting",
                )
            )
            continue
        base = paragraph.base
        for span, fmt, link in _spans(paragraph, RunFormat.describe):
            span = short(span)
            if span_count >= MAX_SPANS or len(span) < 3 or (span, fmt) in seen:
                continue
            differs = [key for key, value in _facts(fmt).items() if _facts(base)[key] != value]
            if not differs:
                continue
            seen.add((span, fmt))
            span_count += 1
            artifacts.append(
                Artifact(
                    id=ids("font", span),
                    category="Font",
                    kind="font-span",
                    modality="element",
                    where=Locator(element="text", quoted=span),
                    text=f"Font of the text “{span}”: {fmt.describe()}",
                    facts={
                        "subject": span,
                        "style": style_name,
                        "differs": differs,
                        "paragraph": short(text),
                        "link": link,
                        "generated": paragraph.generated,
                        **_facts(fmt),
                    },
                    group="Formatting",
                )
            )
    return artifacts


def short(text: str, limit: int = 60) -> str:
    """A paragraph named by its opening words, so formatting facts do not restate the body."""
    if len(text) <= limit:
        return text
    return text[:limit].rsplit(" ", 1)[0] + "…"


def _facts(fmt: RunFormat) -> dict[str, object]:
    return {
        "font": fmt.font,
        "size_pt": fmt.size,
        "bold": fmt.bold,
        "italic": fmt.italic,
        "underline": fmt.underline,
        "color": fmt.color,
    }


def mark_artifacts(paragraphs: list[Paragraph], ids: IdMaker) -> list[Artifact]:
    """Highlighted and struck-through spans."""
    artifacts: list[Artifact] = []
    counts = {"highlight": 0, "strike": 0}
    for paragraph in paragraphs:
        paragraph_text = short(paragraph.text)
        for key in ("highlight", "strike"):
            for span, fmt, _ in _spans(paragraph, attrgetter(key)):
                value = getattr(fmt, key)
                if not value or counts[key] >= MAX_SPANS or len(span) < 3:
                    continue
                counts[key] += 1
                if key == "highlight":
                    text = f"Highlighted in {value}: “{span}”"
                    category, kind = "Highlight", "highlight"
                else:
                    line = "double-line" if value == "double" else "single-line"
                    text = f"Struck through ({line} strikethrough): “{span}”"
                    category, kind = "Strikeout", "strikeout"
                artifacts.append(
                    Artifact(
                        id=ids(kind, span, value),
                        category=category,
                        kind=kind,
                        modality="element",
                        where=Locator(element="text", quoted=span),
                        text=text,
                        facts={"subject": span, "value": value, "paragraph": paragraph_text},
                        group="Formatting",
                    )
                )
    return artifacts


def layout_artifacts(
    index: BodyIndex, paragraphs: list[Paragraph], ids: IdMaker, styles: Styles | None = None
) -> list[Artifact]:
    artifacts = _section_layouts(index)
    count = 0
    for paragraph in paragraphs:
        if count >= MAX_PARAGRAPH_LAYOUT:
            break
        ppr = paragraph.element.find(w("pPr"))
        if ppr is None:
            continue
        text = short(paragraph.text)
        if len(text.split()) < 2 or paragraph.in_table:
            continue
        style_id = attr(ppr.find(w("pStyle")), "val")
        listed = ppr.find(w("numPr")) is not None or bool(styles and styles.numbered(style_id))
        statements = _paragraph_layout(ppr, listed)
        if not statements:
            continue
        count += 1
        artifacts.append(
            Artifact(
                id=ids("layout-para", text),
                category="Layout",
                kind="layout-paragraph",
                modality="element",
                where=Locator(element="paragraph", quoted=text),
                text=f"Paragraph “{text}” is " + "; ".join(statements.values()),
                facts={"subject": text, "generated": paragraph.generated, **statements},
                group="Formatting",
            )
        )
    return artifacts


def _paragraph_layout(ppr: etree._Element, listed: bool = False) -> dict[str, str]:
    """Alignment, indents and line spacing the paragraph sets itself; a list item's indents
    only when it sets the hanging indent too (else the list level adds one the answer lacks)."""
    out: dict[str, str] = {}
    jc = attr(ppr.find(w("jc")), "val")
    if jc in ALIGN_WORDS:
        out["alignment"] = ALIGN_WORDS[jc]
    ind = ppr.find(w("ind"))
    if ind is not None:
        for key, label in (("left", "left"), ("start", "left"), ("firstLine", "first-line")):
            value = attr(ind, key)
            if value and value.lstrip("-").isdigit() and int(value) >= 180:
                out[f"indent_{label}"] = f"indented {int(value) / TWIPS_PER_INCH:.2f} in ({label})"
        hanging = attr(ind, "hanging")
        if hanging and hanging.isdigit() and int(hanging) >= 180:
            out["indent_hanging"] = (
                f"set with a {int(hanging) / TWIPS_PER_INCH:.2f} in hanging indent"
            )
        if listed and "indent_hanging" not in out:
            for key in ("indent_left", "indent_first-line"):  # the list level adds its own
                out.pop(key, None)  # hanging indent: the answer would miss one of the two
    spacing = ppr.find(w("spacing"))
    if spacing is not None:
        line, rule = attr(spacing, "line"), attr(spacing, "lineRule") or "auto"
        if line and line.isdigit() and rule == "auto" and int(line) not in (240, 0):
            out["line_spacing"] = f"set with {int(line) / 240:g} line spacing"
    return out


def _section_layouts(index: BodyIndex) -> list[Artifact]:
    sections = index.of(w("sectPr"))
    artifacts = []
    for number, section in enumerate(sections, start=1):
        facts: dict[str, object] = {"section": number}
        size = section.find(w("pgSz"))
        statements = []
        if size is not None:
            width, height = attr(size, "w"), attr(size, "h")
            if width and height and width.isdigit() and height.isdigit():
                wide, high = int(width), int(height)
                orientation = attr(size, "orient") or ("landscape" if wide > high else "portrait")
                paper = PAPER.get((min(wide, high), max(wide, high)), "custom size")
                facts.update(orientation=orientation, paper=paper)
                statements.append(
                    f"{orientation} orientation, {paper} paper "
                    f"({wide / TWIPS_PER_INCH:.2f} × {high / TWIPS_PER_INCH:.2f} in)"
                )
        cols = section.find(w("cols"))
        count = (
            int(attr(cols, "num") or 1)
            if cols is not None and (attr(cols, "num") or "1").isdigit()
            else 1
        )
        facts["columns"] = count
        statements.append(f"{count} text column{'s' if count != 1 else ''}")
        margins = section.find(w("pgMar"))
        if margins is not None:
            parts = []
            for side in ("top", "bottom", "left", "right"):
                value = attr(margins, side)
                if value and value.lstrip("-").isdigit():
                    facts[f"margin_{side}_in"] = round(int(value) / TWIPS_PER_INCH, 2)
                    parts.append(f"{side} {int(value) / TWIPS_PER_INCH:.2f} in")
            if parts:
                statements.append("margins " + ", ".join(parts))
        start = attr(section.find(w("type")), "val")
        if start:
            facts["start"] = start
            statements.append(f"starts with a {start} break")
        artifacts.append(
            Artifact(
                id=f"layout-section-{number}",
                category="Layout",
                kind="layout-section",
                modality="element",
                where=Locator(element=f"section {number} of {len(sections)}"),
                text=f"Section {number} page layout: " + "; ".join(statements),
                facts=facts,
                group="Formatting",
            )
        )
    return artifacts
