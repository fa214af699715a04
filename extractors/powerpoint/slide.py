"""One slide's artifacts and body lines: the shape walker that hands each shape to its reader."""

from __future__ import annotations

from extractors.media import MediaWriter
from extractors.ooxml.namespaces import a, one_line, p
from extractors.powerpoint.build import Builder
from extractors.powerpoint.deck import Deck, Slide
from extractors.powerpoint.embedded import chart_lines, ink_lines, picture_lines, smartart_lines
from extractors.powerpoint.runs import autoshape_lines
from extractors.powerpoint.shapes import FOOTER_ROLES, Shape, shape_tree
from extractors.powerpoint.slide_context import (
    FooterRef,
    SlideContext,
    SlideOutput,
    shape_paragraphs,
)
from extractors.powerpoint.summaries import (
    animations_artifact,
    languages_artifact,
    structure_artifact,
)
from extractors.powerpoint.tables import table_lines
from extractors.powerpoint.text import plain


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
            plain(shape_paragraphs(ctx, s)).replace("\n", " ")
            for s in flat
            if s.role in ("title", "ctrTitle") and s.kind == "sp"
        ),
        "",
    )
    lines: list[str] = []
    for shape in flat:
        lines.extend(_shape_lines(ctx, shape))
    structure = structure_artifact(ctx, shapes, flat)
    if structure is not None:
        lines.append(ctx.show(structure))
    for artifact in (animations_artifact(ctx), languages_artifact(ctx)):
        if artifact is not None:
            lines.append(artifact.placeholder or "")
    return SlideOutput(lines=lines, title=one_line(title), visible=ctx.visible)


def _shape_lines(ctx: SlideContext, shape: Shape) -> list[str]:
    if shape.role in FOOTER_ROLES:
        return _footer(ctx, shape)
    if shape.kind in ("sp", "cxnSp"):
        return autoshape_lines(ctx, shape)
    if shape.kind == "pic":
        return picture_lines(ctx, shape)
    if shape.kind == "contentPart":
        return ink_lines(ctx, shape)
    if shape.kind == "graphicFrame" and shape.frame == "table":
        return table_lines(ctx, shape)
    if shape.kind == "graphicFrame" and shape.frame == "chart":
        return chart_lines(ctx, shape)
    if shape.kind == "graphicFrame" and shape.frame == "smartart":
        return smartart_lines(ctx, shape)
    return []


def _footer(ctx: SlideContext, shape: Shape) -> list[str]:
    body = shape.element.find(p("txBody"))
    text = one_line(plain(shape_paragraphs(ctx, shape)))
    if not text:
        return []
    is_field = body is not None and body.find(f".//{a('fld')}") is not None
    artifact = ctx.footer_ref(ctx.slide, shape.role or "", text, is_field)
    return [ctx.show(artifact)] if artifact is not None else []
