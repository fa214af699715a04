"""Name PowerPoint shapes as a reader of the slide sees them: by visible text, role or kind.

A shape's internal name ("Rectangle 4", "Content Placeholder 2") is not on the slide,
so questions name it by the text it shows, else by its role (the title) or its kind when
the slide holds only one shape of that kind (the picture, the table); a shape none of
these single out gets no name, and the question that needed one is not asked.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fidelity.core.document import Document
from generators.draft import quote

TEXT_KINDS = ("slide-text", "shape-text")
# How a reader calls a shape of each extracted kind (slide-structure `kind`).
NOUNS = {
    "title placeholder": "title",
    "subtitle placeholder": "subtitle",
    "body placeholder": "text placeholder",
    "text box": "text box",
    "shape": "shape",
    "picture": "picture",
    "clip art placeholder": "picture",
    "table": "table",
    "table placeholder": "table",
    "chart": "chart",
    "chart placeholder": "chart",
    "SmartArt diagram": "SmartArt diagram",
    "connector": "connector",
    "ink": "ink drawing",
    "embedded object": "embedded object",
}
UNIQUE_BY_ROLE = ("title", "subtitle")


@dataclass
class SlideShapes:
    """What a slide shows of each of its shapes, keyed by internal shape name."""

    kinds: dict[str, str] = field(default_factory=dict)
    texts: dict[str, str] = field(default_factory=dict)
    members: dict[str, list[str]] = field(default_factory=dict)
    geometries: dict[str, str] = field(default_factory=dict)
    repeated: set[str] = field(default_factory=set)

    def noun(self, name: str) -> str:
        kind = self.kinds.get(name, "shape")
        return "group" if kind.startswith("group of") else NOUNS.get(kind, "shape")

    def first_line(self, name: str) -> str:
        lines = [line.strip() for line in self.texts.get(name, "").splitlines() if line.strip()]
        return lines[0] if lines else ""


def slide_shapes(document: Document, slide: int) -> SlideShapes:
    """Kinds, visible texts and group members of every shape on one slide."""
    shapes = SlideShapes()
    seen: set[str] = set()
    texts_seen: dict[str, str] = {}
    for artifact in document.artifacts:
        facts = artifact.facts
        if int(facts.get("slide", 0) or 0) != slide:
            continue
        if artifact.kind == "slide-structure":
            for shape in facts.get("shapes", []):
                name = shape["name"]
                if name in seen:
                    shapes.repeated.add(name)
                seen.add(name)
                shapes.kinds[name] = shape["kind"]
                if shape.get("members"):
                    shapes.members[name] = list(shape["members"])
        elif artifact.kind in TEXT_KINDS and facts.get("plain", "").strip():
            name = facts.get("shape_name", "")
            if texts_seen.setdefault(name, artifact.id) != artifact.id:
                shapes.repeated.add(name)  # two boxes with one name: neither can be named
            shapes.texts.setdefault(name, facts["plain"])
        elif artifact.kind == "shape-style":
            name = facts.get("shape_name", "")
            if facts.get("geometry_name"):
                shapes.geometries[name] = facts["geometry_name"]
            if facts.get("text", "").strip():
                shapes.texts.setdefault(name, facts["text"])
    return shapes


def shape_phrase(
    shapes: SlideShapes, name: str, limit: int = 60, by_text: bool = True
) -> str | None:
    """'the text box reading “…”', 'the title', 'the picture'…, or None when not unique.

    With `by_text` False (a question about the shape's own text) the shape is named by
    its role, its kind or its geometry only.
    """
    if not name or name in shapes.repeated:
        return None
    noun = shapes.noun(name)
    if noun in UNIQUE_BY_ROLE and _alone(shapes, noun):
        return f"the {noun}"
    line = shapes.first_line(name)
    if not by_text:
        if _alone(shapes, noun):
            return f"the {noun}"
        geometry = shapes.geometries.get(name, "")
        same = [n for n, g in shapes.geometries.items() if g == geometry]
        if geometry and geometry != "rectangle" and len(same) == 1:
            return f"the {geometry}"
        return None
    if line and _text_unique(shapes, name, line):
        several = len([x for x in shapes.texts.get(name, "").splitlines() if x.strip()]) > 1
        verb = "beginning" if several or len(line) > limit else "reading"
        return f"the {noun} {verb} “{quote(line, limit)}”"
    if noun == "group":
        for member in shapes.members.get(name, []):
            inner = shapes.first_line(member)
            if inner and _text_unique(shapes, member, inner):
                return f"the group containing “{quote(inner, limit)}”"
    if _alone(shapes, noun) and not line:
        return f"the {noun}"
    return None


def _alone(shapes: SlideShapes, noun: str) -> bool:
    return sum(1 for name in shapes.kinds if shapes.noun(name) == noun) == 1


def _text_unique(shapes: SlideShapes, name: str, line: str) -> bool:
    """No other shape of the slide shows the same line."""
    return all(
        line not in (x.strip() for x in shapes.texts[other].splitlines())
        for other in shapes.texts
        if other != name
    )
