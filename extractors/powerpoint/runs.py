"""Shape text: paragraphs and runs, with hyperlink, highlight and equation spans as artifacts."""

from __future__ import annotations

from extractors.ooxml.namespaces import a, local, one_line
from extractors.powerpoint.shapes import Shape
from extractors.powerpoint.slide_context import SlideContext, label, shape_paragraphs
from extractors.powerpoint.style import geometry_of, style_artifact, text_kind
from extractors.powerpoint.text import Paragraph, Span, plain
from fidelity.core.document import Artifact


def autoshape_lines(ctx: SlideContext, shape: Shape) -> list[str]:
    style = style_artifact(ctx, shape)
    link = shape_link(ctx, shape)
    head = label(shape)
    for extra in (style, link):
        if extra is not None:
            head += f" {ctx.show(extra) if extra is style else extra.placeholder}"
    items_ = shape_paragraphs(ctx, shape) if shape.kind == "sp" else []
    if not items_:
        # No text: the shape's own element artifact carries its name, so nothing is left over.
        first = style or link
        if first is None:
            return []
        first.text = f"{label(shape)} {first.text}"
        return [head.removeprefix(label(shape)).strip()]
    kind = text_kind(shape, geometry_of(shape), style)
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
    if span.text.strip():  # untagged text too: it keeps tagged runs either side apart
        ctx.languages.append((span.lang or "", one_line(span.text), shape.name))
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


def shape_link(ctx: SlideContext, shape: Shape) -> Artifact | None:
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
