"""Embedded objects on a slide: pictures and media, ink, charts and SmartArt."""

from __future__ import annotations

from extractors.ooxml.chart import chart_text, parse_chart
from extractors.ooxml.namespaces import a, inches, p
from extractors.powerpoint.colors import Color
from extractors.powerpoint.ink import parse_ink
from extractors.powerpoint.runs import shape_link
from extractors.powerpoint.shapes import Shape, relationship_id
from extractors.powerpoint.slide_context import SlideContext, label
from extractors.powerpoint.smartart import items, parse_smartart, relations
from fidelity.core.xmlsafe import Package


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


def picture_lines(ctx: SlideContext, shape: Shape) -> list[str]:
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
    link = shape_link(ctx, shape)
    line = ctx.show(artifact)
    return [f"{line} {link.placeholder}" if link is not None else line]


def ink_lines(ctx: SlideContext, shape: Shape) -> list[str]:
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


def chart_lines(ctx: SlideContext, shape: Shape) -> list[str]:
    part = _related_part(ctx, shape)
    if part is None or not ctx.package.has(part):
        return []
    facts = parse_chart(ctx.package, part)
    facts["shape_name"] = shape.name
    text = f"{label(shape)} chart:\n{chart_text(facts)}"
    artifact = ctx.add("chart", (shape.shape_id,), text, shape, facts=facts)
    return [ctx.show(artifact)]


def smartart_lines(ctx: SlideContext, shape: Shape) -> list[str]:
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
