"""Slide summaries: its structure (positions, grouping), animation sequence and languages."""

from __future__ import annotations

from lxml import etree

from extractors.ooxml.namespaces import a, inches, one_line, p
from extractors.powerpoint.lang import language_name
from extractors.powerpoint.shapes import Shape
from extractors.powerpoint.slide_context import ROLE_LABELS, SlideContext
from extractors.powerpoint.timing import animations
from fidelity.core.document import Artifact

FRAME_LABELS = {
    "table": "table",
    "chart": "chart",
    "smartart": "SmartArt diagram",
    "ole": "embedded object",
}


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


def structure_artifact(
    ctx: SlideContext, shapes: list[Shape], flat: list[Shape]
) -> Artifact | None:
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
        ends = [_connected_id(props, end) for end in ("stCxn", "endCxn")]
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
        "layout_type": slide.layout_type,
        "shapes": records,
        "connections": connections,
        "top_level": [s.name for s in shapes],
    }
    return ctx.add("slide-structure", ("structure",), "\n".join(lines), None, facts=facts)


def _connected_id(props: etree._Element | None, end: str) -> str:
    """The id of the shape a connector's end (stCxn or endCxn) is glued to ('' for none)."""
    glued = props.find(a(end)) if props is not None else None
    return glued.get("id", "") if glued is not None else ""


def animations_artifact(ctx: SlideContext) -> Artifact | None:
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


def languages_artifact(ctx: SlideContext) -> Artifact | None:
    """Text tagged with a language other than the deck's main language: neighbouring runs
    of one shape and language joined, text of another language between them keeps them
    apart (a quote must not join two runs the slide shows apart)."""
    stretches: list[tuple[str, str, list[str]]] = []
    for lang, text, name in ctx.languages:
        if stretches and stretches[-1][0] == lang and stretches[-1][1] == name:
            stretches[-1][2].append(text)
        else:
            stretches.append((lang, name, [text]))
    merged = [
        (lang, name, texts)
        for lang, name, texts in stretches
        if lang and lang != ctx.main_lang and lang.lower() != "x-none"
    ]
    if not merged:
        return None
    lines = []
    records = []
    for lang, name, texts in merged:
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
