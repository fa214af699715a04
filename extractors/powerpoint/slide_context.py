"""What the readers of one slide share: the slide, its builder and media writer, what it shows."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from extractors.media import MediaWriter
from extractors.ooxml.namespaces import p
from extractors.powerpoint.build import Builder
from extractors.powerpoint.deck import Deck, Slide
from extractors.powerpoint.shapes import Shape
from extractors.powerpoint.text import Paragraph, paragraphs
from fidelity.core.document import Artifact
from fidelity.core.locator import Locator, ShapeRef
from fidelity.core.xmlsafe import Package

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

    def locator(self, shape: Shape | None = None) -> Locator:
        ref = ShapeRef(id=shape.shape_id, name=shape.name) if shape else None
        return Locator(slide=self.slide.number, shape=ref)

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


def shape_paragraphs(ctx: SlideContext, shape: Shape) -> list[Paragraph]:
    body = shape.element.find(p("txBody"))
    return paragraphs(
        body,
        ctx.slide.palette,
        lambda element: ctx.deck.link(ctx.slide, element),
        bulleted=shape.role in ("body", "obj"),
    )
