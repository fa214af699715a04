"""A shape's type and colours (geometry, fill, line, theme style references) as artifacts."""

from __future__ import annotations

from extractors.ooxml.namespaces import a, p, preset_name
from extractors.powerpoint.colors import Color
from extractors.powerpoint.shapes import Shape
from extractors.powerpoint.slide_context import SlideContext
from fidelity.core.document import Artifact


def geometry_of(shape: Shape) -> str | None:
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
) -> tuple[Color | bool | str | None, Color | bool | str | None, bool]:
    """The shape's fill, its line, and whether the fill comes from its style reference (the
    look a newly inserted shape gets) rather than its own properties."""
    props = shape.element.find(p("spPr"))
    palette = ctx.slide.palette
    fill: Color | bool | str | None = palette.fill(props)
    if fill is None and props is not None and props.find(a("blipFill")) is not None:
        fill = "picture"
    if fill is None and props is not None and props.find(a("pattFill")) is not None:
        fill = "pattern"
    styled = fill is None
    if styled:
        fill = _style_color(ctx, shape, "fillRef")
    line_props = props.find(a("ln")) if props is not None else None
    line = palette.fill(line_props)
    if line is None:
        line = _style_color(ctx, shape, "lnRef")
    return fill, line, styled and fill is not None


def _describe(value: Color | bool | str | None) -> str | None:
    if isinstance(value, Color):
        return value.describe()
    if value is False:
        return "none"
    return value if isinstance(value, str) else None


def style_artifact(ctx: SlideContext, shape: Shape) -> Artifact | None:
    """The Shapes/Type & Color artifact of a non-placeholder shape or connector."""
    if shape.placeholder:
        return None
    geometry = geometry_of(shape)
    fill, line, styled = _fill_and_line(ctx, shape)
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
        "fill_from_style": styled,
        "line": line.hex if isinstance(line, Color) else _describe(line),
        "line_name": line.name if isinstance(line, Color) else None,
    }
    return ctx.add("shape-style", (shape.shape_id,), f"({'; '.join(parts)})", shape, facts=facts)


def text_kind(shape: Shape, geometry: str | None, style: Artifact | None) -> str:
    if shape.placeholder or shape.text_box:
        return "slide-text"
    if geometry not in (None, "rect"):
        return "shape-text"
    filled = style is not None and style.facts.get("fill") not in (None, "none")
    return "shape-text" if filled else "slide-text"
