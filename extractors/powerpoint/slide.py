"""One slide's artifacts and body lines: text per shape (hyperlink, highlight and equation
spans nested as their own artifacts), shape type and colours, tables and their cell fills,
pictures, charts, SmartArt, ink, and the slide's structure and animation sequence."""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from lxml import etree

from extractors.media import MediaWriter
from extractors.ooxml.chart import chart_text, parse_chart
from extractors.ooxml.namespaces import a, inches, local, one_line, p, preset_name
from extractors.powerpoint.build import Builder
from extractors.powerpoint.colors import Color
from extractors.powerpoint.deck import Deck, Slide
from extractors.powerpoint.ink import parse_ink
from extractors.powerpoint.lang import language_name
from extractors.powerpoint.shapes import FOOTER_ROLES, Shape, relationship_id, shape_tree
from extractors.powerpoint.smartart import items, parse_smartart, relations
from extractors.powerpoint.text import Paragraph, Span, paragraphs, plain
from extractors.powerpoint.timing import animations
from fidelity.model import Artifact
from fidelity.xmlsafe import Package

ROLE_LABELS = {
    "title": "title",
    "ctrTitle": "title",
    "subTitle": "subtitle",
    "body": "body",
    "obj": "content",
    "pic": "picture placeholder",
    "tbl": "table placeholder",
    "chart": "chart placeholder",
    "dgm": "SmartArt placeholder",
    "media": "media placeholder",
    "clipArt": "clip art placeholder",
    "dt": "date",
    "ftr": "footer",
    "sldNum": "slide number",
    "hdr": "header",
}
FRAME_LABELS = {
    "table": "table",
    "chart": "chart",
    "smartart": "SmartArt diagram",
    "ole": "embedded object",
}
FooterRef = Callable[[Slide, str, str, bool], Artifact | None]


@dataclass
class SlideOutput:
    """Body lines of one slide and what the rendered slide image would restate."""

    lines: list[str]
    title: str
    visible: list[str] = field(default_factory=list)


@dataclass
class SlideContext:
    deck: Deck
    slide: Slide
    builder: Builder
    media: MediaWriter
    main_lang: str | None
    footer_ref: FooterRef
    visible: list[str] = field(default_factory=list)
    languages: list[tuple[str, str, str]] = field(default_factory=list)
    structure: list[str] = field(default_factory=list)
    names: dict[str, str] = field(default_factory=dict)

    @property
    def package(self) -> Package:
        return self.deck.package

    def locator(self, shape: Shape | None = None) -> str:
        where = f"slide {self.slide.number}"
        return f"{where} / shape {shape.shape_id} {shape.label}" if shape else where

    def add(
        self, kind: str, key: tuple[str, ...], text: str, shape: Shape | None, **fields
    ) -> Artifact:
        artifact = self.builder.add(
            kind, (self.slide.slide_id, *key), self.locator(shape), text, **fields
        )
        artifact.facts.setdefault("slide", self.slide.number)
        return artifact

    def show(self, artifact: Artifact) -> str:
        """Mark an artifact as visible on the rendered slide; return its placeholder."""
        self.visible.append(artifact.id)
        return artifact.placeholder or ""


def label(shape: Shape) -> str:
    if shape.role in ROLE_LABELS:
        return f"[{shape.name}, {ROLE_LABELS[shape.role]}]"
    return shape.label


def build_slide(
    deck: Deck,
    slide: Slide,
    builder: Builder,
    media: MediaWriter,
    main_lang: str | None,
    footer_ref: FooterRef,
) -> SlideOutput:
    ctx = SlideContext(deck, slide, builder, media, main_lang, footer_ref)
    tree = slide.root.find(f"{p('cSld')}/{p('spTree')}")
    shapes = shape_tree(tree, slide.inherited_boxes) if tree is not None else []
    flat = [s for top in shapes for s in top.flatten()]
    ctx.names = {s.shape_id: s.name for s in flat}
    title = next(
        (
            plain(_paragraphs(ctx, s)).replace("\n", " ")
            for s in flat
            if s.role in ("title", "ctrTitle") and s.kind == "sp"
        ),
        "",
    )
    lines: list[str] = []
    for shape in flat:
        lines.extend(_shape_lines(ctx, shape))
    structure = _structure(ctx, shapes, flat)
    if structure is not None:
        lines.append(ctx.show(structure))
    for artifact in (_animations(ctx), _languages(ctx)):
        if artifact is not None:
            lines.append(artifact.placeholder or "")
    return SlideOutput(lines=lines, title=one_line(title), visible=ctx.visible)


def _paragraphs(ctx: SlideContext, shape: Shape) -> list[Paragraph]:
    body = shape.element.find(p("txBody"))
    return paragraphs(
        body,
        ctx.slide.palette,
        lambda element: ctx.deck.link(ctx.slide, element),
        bulleted=shape.role in ("body", "obj"),
    )


def _shape_lines(ctx: SlideContext, shape: Shape) -> list[str]:
    if shape.role in FOOTER_ROLES:
        return _footer(ctx, shape)
    if shape.kind in ("sp", "cxnSp"):
        return _autoshape(ctx, shape)
    if shape.kind == "pic":
        return _picture(ctx, shape)
    if shape.kind == "contentPart":
        return _ink(ctx, shape)
    if shape.kind == "graphicFrame" and shape.frame == "table":
        return _table(ctx, shape)
    if shape.kind == "graphicFrame" and shape.frame == "chart":
        return _chart(ctx, shape)
    if shape.kind == "graphicFrame" and shape.frame == "smartart":
        return _smartart(ctx, shape)
    return []


def _footer(ctx: SlideContext, shape: Shape) -> list[str]:
    body = shape.element.find(p("txBody"))
    text = one_line(plain(_paragraphs(ctx, shape)))
    if not text:
        return []
    is_field = body is not None and body.find(f".//{a('fld')}") is not None
    artifact = ctx.footer_ref(ctx.slide, shape.role or "", text, is_field)
    return [ctx.show(artifact)] if artifact is not None else []


# ---------------------------------------------------------------- text and shapes


def _geometry(shape: Shape) -> str | None:
    props = shape.element.find(p("spPr"))
    if props is None:
        return None
    preset = props.find(a("prstGeom"))
    if preset is not None:
        return preset.get("prst", "rect")
    return "custom" if props.find(a("custGeom")) is not None else None


def _style_color(ctx: SlideContext, shape: Shape, ref: str) -> Color | None | bool:
    """A fill or line colour given by the shape's style reference (p:style)."""
    element = shape.element.find(f"{p('style')}/{a(ref)}")
    if element is None:
        return None
    if element.get("idx", "0") == "0":
        return False
    return ctx.slide.palette.resolve(next(iter(element), None))


def _fill_and_line(
    ctx: SlideContext, shape: Shape
) -> tuple[Color | bool | str | None, Color | bool | None]:
    props = shape.element.find(p("spPr"))
    palette = ctx.slide.palette
    fill: Color | bool | str | None = palette.fill(props)
    if fill is None and props is not None and props.find(a("blipFill")) is not None:
        fill = "picture"
    if fill is None and props is not None and props.find(a("pattFill")) is not None:
        fill = "pattern"
    if fill is None:
        fill = _style_color(ctx, shape, "fillRef")
    line_props = props.find(a("ln")) if props is not None else None
    line = palette.fill(line_props)
    if line is None:
        line = _style_color(ctx, shape, "lnRef")
    return fill, line


def _describe(value: Color | bool | str | None) -> str | None:
    if isinstance(value, Color):
        return value.describe()
    if value is False:
        return "none"
    return value if isinstance(value, str) else None


def _style(ctx: SlideContext, shape: Shape) -> Artifact | None:
    """The Shapes/Type & Color artifact of a non-placeholder shape or connector."""
    if shape.placeholder:
        return None
    geometry = _geometry(shape)
    fill, line = _fill_and_line(ctx, shape)
    visible_fill = isinstance(fill, Color) or isinstance(fill, str)
    if shape.text_box and not visible_fill and not isinstance(line, Color):
        return None
    if geometry is None and fill is None and line is None:
        return None
    geometry_name = "custom freeform" if geometry == "custom" else preset_name(geometry or "rect")
    noun = "connector" if shape.kind == "cxnSp" else "shape"
    parts = [f"{noun} geometry: {geometry_name}"]
    if shape.kind != "cxnSp" and _describe(fill):
        parts.append(f"fill colour: {_describe(fill)}")
    if _describe(line):
        parts.append(f"{'line' if shape.kind == 'cxnSp' else 'outline'} colour: {_describe(line)}")
    facts = {
        "shape_name": shape.name,
        "geometry": geometry,
        "geometry_name": geometry_name,
        "fill": fill.hex if isinstance(fill, Color) else _describe(fill),
        "fill_name": fill.name if isinstance(fill, Color) else None,
        "fill_theme": fill.theme if isinstance(fill, Color) else None,
        "line": line.hex if isinstance(line, Color) else _describe(line),
        "line_name": line.name if isinstance(line, Color) else None,
    }
    return ctx.add("shape-style", (shape.shape_id,), f"({'; '.join(parts)})", shape, facts=facts)


def _text_kind(shape: Shape, geometry: str | None, style: Artifact | None) -> str:
    if shape.placeholder or shape.text_box:
        return "slide-text"
    if geometry not in (None, "rect"):
        return "shape-text"
    filled = style is not None and style.facts.get("fill") not in (None, "none")
    return "shape-text" if filled else "slide-text"


def _autoshape(ctx: SlideContext, shape: Shape) -> list[str]:
    style = _style(ctx, shape)
    link = _shape_link(ctx, shape)
    head = label(shape)
    for extra in (style, link):
        if extra is not None:
            head += f" {ctx.show(extra) if extra is style else extra.placeholder}"
    items_ = _paragraphs(ctx, shape) if shape.kind == "sp" else []
    if not items_:
        # No text: the shape's own element artifact carries its name, so nothing is left over.
        first = style or link
        if first is None:
            return []
        first.text = f"{label(shape)} {first.text}"
        return [head.removeprefix(label(shape)).strip()]
    kind = _text_kind(shape, _geometry(shape), style)
    rendered = [_render_paragraph(ctx, shape, index, item) for index, item in enumerate(items_)]
    text = f"{head} {rendered[0]}" if len(rendered) == 1 else "\n".join([head, *rendered])
    facts = {
        "shape_name": shape.name,
        "role": shape.role,
        "plain": plain(items_),
        "paragraphs": [{"level": i.level, "bullet": i.bullet, "text": i.text} for i in items_],
        "geometry": style.facts.get("geometry_name") if style is not None else None,
    }
    artifact = ctx.add(kind, (shape.shape_id,), text, shape, facts=facts)
    if style is not None:
        style.facts["text"] = facts["plain"]
        style.facts["text_artifact"] = artifact.id
    return [ctx.show(artifact)]


def _render_paragraph(ctx: SlideContext, shape: Shape, index: int, paragraph: Paragraph) -> str:
    """A paragraph line; runs sharing a hyperlink become one hyperlink artifact."""
    groups: list[list[tuple[int, Span]]] = []
    for number, span in enumerate(paragraph.spans):
        if groups and span.link is not None and groups[-1][0][1].link == span.link:
            groups[-1].append((number, span))
        else:
            groups.append([(number, span)])
    pieces = []
    for group in groups:
        inner = "".join(
            _render_span(ctx, shape, (shape.shape_id, str(index), str(number)), span)
            for number, span in group
        )
        link = group[0][1].link
        original = "".join(span.text for _, span in group)
        if link is None or not original.strip():
            pieces.append(inner)
            continue
        target = link.target if link.kind == "url" else f"→ {link.target}"
        artifact = ctx.add(
            "hyperlink",
            (shape.shape_id, str(index), str(group[0][0])),
            f"[{inner.strip()}]({target})",
            shape,
            fallback=one_line(original),
            facts={
                "text": one_line(original),
                "target": link.target,
                "link_kind": link.kind,
                "target_slide": link.slide,
                "shape_name": shape.name,
            },
        )
        pieces.append(_keep_spaces(original, artifact.placeholder or ""))
    bullet = f"{paragraph.bullet} " if paragraph.bullet else ""
    return "  " * paragraph.level + bullet + "".join(pieces).strip()


def _render_span(ctx: SlideContext, shape: Shape, key: tuple[str, ...], span: Span) -> str:
    """A run's text, or the placeholder of its equation or highlight artifact."""
    if span.equation is not None:
        equation = ctx.add(
            "equation",
            key,
            f"[equation: {span.equation}]",
            shape,
            facts={"equation": span.equation, "shape_name": shape.name},
        )
        return ctx.show(equation)
    if span.lang and span.text.strip():
        ctx.languages.append((span.lang, one_line(span.text), shape.name))
    if span.highlight is None or not span.text.strip():
        return span.text
    highlight = ctx.add(
        "text-highlight",
        key,
        f"«{span.text.strip()}» (highlighted in {span.highlight.describe()})",
        shape,
        fallback=span.text.strip(),
        facts={
            "text": one_line(span.text),
            "color": span.highlight.hex,
            "color_name": span.highlight.name,
            "shape_name": shape.name,
        },
    )
    return _keep_spaces(span.text, ctx.show(highlight))


def _keep_spaces(original: str, replacement: str) -> str:
    lead = original[: len(original) - len(original.lstrip())]
    trail = original[len(original.rstrip()) :]
    return f"{lead}{replacement}{trail}"


def _shape_link(ctx: SlideContext, shape: Shape) -> Artifact | None:
    """A click action on the whole shape (a hyperlink not tied to a text run)."""
    for nv in shape.element:
        if not isinstance(nv.tag, str) or not local(nv).startswith("nv"):
            continue
        cnv = next((c for c in nv if isinstance(c.tag, str) and local(c) == "cNvPr"), None)
        click = cnv.find(a("hlinkClick")) if cnv is not None else None
        target = ctx.deck.link(ctx.slide, click) if click is not None else None
        if target is None:
            return None
        shown = target.target if target.kind == "url" else f"→ {target.target}"
        return ctx.add(
            "hyperlink",
            (shape.shape_id, "click"),
            f"(clicking the shape opens {shown})",
            shape,
            facts={
                "text": "",
                "target": target.target,
                "link_kind": target.kind,
                "target_slide": target.slide,
                "shape_name": shape.name,
            },
        )
    return None


# ---------------------------------------------------------------- embedded objects


def _related_part(ctx: SlideContext, shape: Shape) -> str | None:
    rel_id = relationship_id(shape.element)
    rel = ctx.slide.rels.get(rel_id or "")
    if rel is None or rel[2] == "External":
        return None
    return Package.resolve(ctx.slide.part, rel[1])


def _size(shape: Shape) -> str:
    if shape.box is None:
        return ""
    return f"{inches(shape.box[2])} × {inches(shape.box[3])}"


def _picture(ctx: SlideContext, shape: Shape) -> list[str]:
    part = _related_part(ctx, shape)
    media = ctx.media.copy_part(ctx.package, part, part.replace("/", "_")) if part else None
    nvpr = shape.element.find(f"{p('nvPicPr')}/{p('nvPr')}")
    media_kind = "picture"
    if nvpr is not None and nvpr.find(a("videoFile")) is not None:
        media_kind = "video"
    elif nvpr is not None and nvpr.find(a("audioFile")) is not None:
        media_kind = "audio"
    file_name = part.rsplit("/", 1)[-1] if part else "linked or missing file"
    described = f"alt text “{shape.alt_text}”" if shape.alt_text else "no alt text"
    size = _size(shape)
    text = f"{label(shape)} {media_kind}: {described} ({file_name}{', ' + size if size else ''})"
    artifact = ctx.add(
        "image",
        (shape.shape_id,),
        text,
        shape,
        media=media,
        facts={
            "shape_name": shape.name,
            "alt_text": shape.alt_text,
            "file": file_name,
            "media_kind": media_kind,
        },
    )
    link = _shape_link(ctx, shape)
    line = ctx.show(artifact)
    return [f"{line} {link.placeholder}" if link is not None else line]


def _ink(ctx: SlideContext, shape: Shape) -> list[str]:
    part = _related_part(ctx, shape)
    root = ctx.package.xml(part) if part else None
    if root is None:
        return []
    facts = parse_ink(root)
    colors = [Color(hex_) for hex_ in facts["colors"]]
    text = (
        f"{label(shape)} ink annotation on slide {ctx.slide.number}: {facts['strokes']} stroke(s), "
        f"pen colour {', '.join(c.describe() for c in colors)}"
    )
    if shape.box is not None:
        text += f", at left {inches(shape.box[0])}, top {inches(shape.box[1])}"
    if facts["recognized"]:
        text += f"; handwriting recognised as “{facts['recognized']}”"
    facts.update(shape_name=shape.name, color_names=[c.name for c in colors], part=part)
    artifact = ctx.add("ink", (shape.shape_id,), text, shape, facts=facts)
    return [ctx.show(artifact)]


def _chart(ctx: SlideContext, shape: Shape) -> list[str]:
    part = _related_part(ctx, shape)
    if part is None or not ctx.package.has(part):
        return []
    facts = parse_chart(ctx.package, part)
    facts["shape_name"] = shape.name
    text = f"{label(shape)} chart:\n{chart_text(facts)}"
    artifact = ctx.add("chart", (shape.shape_id,), text, shape, facts=facts)
    return [ctx.show(artifact)]


def _smartart(ctx: SlideContext, shape: Shape) -> list[str]:
    part = _related_part(ctx, shape)
    data = ctx.package.xml(part) if part else None
    if data is None:
        return []
    facts = parse_smartart(data)
    facts["shape_name"] = shape.name
    nodes = items(facts["tree"])
    lines = [
        f"{label(shape)} SmartArt diagram, layout: {facts['layout_name']} ({facts['category']})",
        *[f"SmartArt item: {text}" for _, text in nodes],
    ]
    diagram = ctx.add("smartart", (shape.shape_id,), "\n".join(lines), shape, facts=facts)
    out = [ctx.show(diagram)]
    links = relations(facts)
    if links:
        structure = ctx.add(
            "smartart-structure",
            (shape.shape_id,),
            "\n".join(link["line"] for link in links),
            shape,
            facts={
                "relations": links,
                "structure": facts["structure"],
                "layout_name": facts["layout_name"],
                "shape_name": shape.name,
                "restated_by": [diagram.id],
            },
        )
        out.append(ctx.show(structure))
    return out


def _cell_text(ctx: SlideContext, cell: etree._Element) -> str:
    body = cell.find(a("txBody"))
    found = paragraphs(body, ctx.slide.palette, lambda element: ctx.deck.link(ctx.slide, element))
    return one_line(" ".join(item.text for item in found))


def _table(ctx: SlideContext, shape: Shape) -> list[str]:
    table = shape.element.find(f".//{a('tbl')}")
    if table is None:
        return []
    props = table.find(a("tblPr"))
    header_row = props is not None and props.get("firstRow") in ("1", "true")
    grid: list[list[str]] = []
    spread: list[list[str]] = []  # merged cells repeat their text over the span
    fills: list[list[Color | None]] = []
    html_rows = []
    for row in table.findall(a("tr")):
        values: list[str] = []
        spread_row: list[str] = []
        colors: list[Color | None] = []
        cells_html = []
        for cell in row.findall(a("tc")):
            merged = cell.get("hMerge") in ("1", "true") or cell.get("vMerge") in ("1", "true")
            text = "" if merged else _cell_text(ctx, cell)
            if cell.get("hMerge") in ("1", "true") and spread_row:
                spread_row.append(spread_row[-1])
            elif (
                cell.get("vMerge") in ("1", "true") and spread and len(spread_row) < len(spread[-1])
            ):
                spread_row.append(spread[-1][len(spread_row)])
            else:
                spread_row.append(text)
            fill = ctx.slide.palette.fill(cell.find(a("tcPr")))
            color = fill if isinstance(fill, Color) else None
            values.append(text)
            colors.append(color)
            if merged:
                continue
            attributes = "".join(
                f' {name}="{cell.get(attr)}"'
                for attr, name in (("gridSpan", "colspan"), ("rowSpan", "rowspan"))
                if cell.get(attr) not in (None, "1")
            )
            if color is not None:
                attributes += f' style="background-color:#{color.hex}"'
            tag = "th" if header_row and not grid else "td"
            cells_html.append(f"<{tag}{attributes}>{html.escape(text)}</{tag}>")
        grid.append(values)
        spread.append(spread_row)
        fills.append(colors)
        html_rows.append("<tr>" + "".join(cells_html) + "</tr>")
    if not any(any(row) for row in grid):
        return []
    columns = max(len(row) for row in grid)
    text_rows = ["| " + " | ".join(cell.replace("|", "/") for cell in row) + " |" for row in grid]
    text = f"{label(shape)} table ({len(grid)} rows × {columns} columns):\n" + "\n".join(text_rows)
    facts = {"rows": grid, "grid": spread, "header_row": header_row, "shape_name": shape.name}
    artifact = ctx.add(
        "table",
        (shape.shape_id,),
        text,
        shape,
        html="<table>" + "".join(html_rows) + "</table>",
        facts=facts,
    )
    out = [ctx.show(artifact)]
    colors = _cell_colors(ctx, shape, grid, fills, artifact)
    if colors is not None:
        out.append(ctx.show(colors))
    return out


def _cell_colors(
    ctx: SlideContext,
    shape: Shape,
    grid: list[list[str]],
    fills: list[list[Color | None]],
    table: Artifact,
) -> Artifact | None:
    """The cell fills of a table: the usual fill once, then every cell that differs."""
    found = [(r, c, color) for r, row in enumerate(fills) for c, color in enumerate(row) if color]
    if not found:
        return None
    common, _ = Counter(color.hex for _, _, color in found).most_common(1)[0]
    usual = next(color for _, _, color in found if color.hex == common)
    lines = [f"Cell fill colours of table {label(shape)}: most cells are {usual.describe()}"]
    cells = []
    for row, column, color in found:
        if color.hex == common and len(found) > 1:
            continue
        row_label = grid[row][0] if grid[row] and grid[row][0] and column else f"row {row + 1}"
        header = grid[0][column] if row and column < len(grid[0]) and grid[0][column] else ""
        column_label = header or f"column {column + 1}"
        value = grid[row][column] if column < len(grid[row]) else ""
        lines.append(
            f"Cell fill colour in row “{row_label}”, column “{column_label}” "
            f"(R{row + 1}C{column + 1}, value “{value}”): {color.describe()}"
        )
        cells.append(
            {
                "row": row + 1,
                "column": column + 1,
                "row_label": row_label,
                "column_label": column_label,
                "value": value,
                "color": color.hex,
                "color_name": color.name,
            }
        )
    facts = {
        "common_color": common,
        "common_color_name": usual.name,
        "cells": cells,
        "table": table.id,
        "shape_name": shape.name,
    }
    return ctx.add("table-cell-colors", (shape.shape_id,), "\n".join(lines), shape, facts=facts)


# ---------------------------------------------------------------- slide-level structure


def _kind_label(ctx: SlideContext, shape: Shape) -> str:
    if shape.role:
        role = ROLE_LABELS.get(shape.role, shape.role)
        return role if role.endswith("placeholder") else f"{role} placeholder"
    if shape.kind == "grpSp":
        return f"group of {len(shape.members)} shapes"
    if shape.kind == "pic":
        return "picture"
    if shape.kind == "contentPart":
        return "ink"
    if shape.kind == "graphicFrame":
        return FRAME_LABELS.get(shape.frame or "", "graphic frame")
    if shape.kind == "cxnSp":
        return "connector"
    return "text box" if shape.text_box else "shape"


def _structure(ctx: SlideContext, shapes: list[Shape], flat: list[Shape]) -> Artifact | None:
    slide = ctx.slide
    width, height = ctx.deck.size
    lines = [
        f"Layout of slide {slide.number}: “{slide.layout_name or 'unnamed'}” "
        f"(slide size {inches(width)} × {inches(height)})"
    ]
    records = []
    for shape in flat:
        where = (
            f"left {inches(shape.box[0])}, top {inches(shape.box[1])}, "
            f"width {inches(shape.box[2])}, height {inches(shape.box[3])}"
            if shape.box is not None
            else "position inherited"
        )
        if shape.group is None:
            order = f"z-order {shape.z} of {shape.siblings}"
            if shape.siblings > 1 and shape.z == shape.siblings:
                order += " (frontmost)"
            elif shape.siblings > 1 and shape.z == 1:
                order += " (backmost)"
            placement = ""
        else:
            order = f"order {shape.z} of {shape.siblings} within the group"
            placement = f" in group {shape.group.label}"
        lines.append(
            f"Shape {shape.label} on slide {slide.number} ({_kind_label(ctx, shape)}){placement}: "
            f"{where}; {order}"
        )
        records.append(
            {
                "name": shape.name,
                "id": shape.shape_id,
                "kind": _kind_label(ctx, shape),
                "box": list(shape.box) if shape.box else None,
                "z": shape.z,
                "siblings": shape.siblings,
                "group": shape.group.name if shape.group else None,
                "members": [m.name for m in shape.members],
                "position": where,
            }
        )
    connections = []
    for shape in flat:
        if shape.kind != "cxnSp":
            continue
        props = shape.element.find(f"{p('nvCxnSpPr')}/{p('cNvCxnSpPr')}")
        ends = [
            props.find(a(end)).get("id", "")
            if props is not None and props.find(a(end)) is not None
            else ""
            for end in ("stCxn", "endCxn")
        ]
        if all(ends) and all(e in ctx.names for e in ends):
            start, end = (ctx.names[e] for e in ends)
            lines.append(
                f"Connector {shape.label} on slide {slide.number} links [{start}] to [{end}]"
            )
            connections.append({"connector": shape.name, "from": start, "to": end})
    if not flat:
        return None
    facts = {
        "layout": slide.layout_name,
        "shapes": records,
        "connections": connections,
        "top_level": [s.name for s in shapes],
    }
    return ctx.add("slide-structure", ("structure",), "\n".join(lines), None, facts=facts)


def _animations(ctx: SlideContext) -> Artifact | None:
    timing = ctx.slide.root.find(p("timing"))
    effects = animations(timing)
    if not effects:
        return None
    lines = []
    records = []
    for effect in effects:
        name = ctx.names.get(effect.shape_id, f"shape {effect.shape_id}")
        part = f" ({effect.paragraphs})" if effect.paragraphs else ""
        trigger = effect.trigger
        if effect.trigger_shape:
            trigger_name = ctx.names.get(effect.trigger_shape, f"shape {effect.trigger_shape}")
            trigger = f"triggered by clicking [{trigger_name}]"
        lines.append(
            f"Animation {effect.order} on slide {ctx.slide.number}: {effect.effect_class} effect "
            f"“{effect.effect}” on [{name}]{part}, {trigger}"
        )
        records.append({**effect.__dict__, "shape_name": name, "trigger_text": trigger})
    return ctx.add(
        "animations", ("animations",), "\n".join(lines), None, facts={"effects": records}
    )


def _languages(ctx: SlideContext) -> Artifact | None:
    """Text runs tagged with a language other than the deck's main language."""
    other = [(lang, text, name) for lang, text, name in ctx.languages if lang != ctx.main_lang]
    other = [(lang, text, name) for lang, text, name in other if lang.lower() != "x-none"]
    if not other:
        return None
    merged: dict[tuple[str, str], list[str]] = {}
    for lang, text, name in other:
        merged.setdefault((lang, name), []).append(text)
    lines = []
    records = []
    for (lang, name), texts in merged.items():
        joined = one_line(" ".join(texts))
        lines.append(f"Language tag {lang} ({language_name(lang)}) on text “{joined}” in [{name}]")
        records.append(
            {"lang": lang, "language": language_name(lang), "text": joined, "shape_name": name}
        )
    return ctx.add(
        "slide-languages",
        ("languages",),
        "\n".join(lines),
        None,
        facts={"runs": records, "main_lang": ctx.main_lang},
    )
