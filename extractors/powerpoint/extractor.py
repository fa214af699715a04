"""PowerPoint extractor: a deck as slide-by-slide artifacts in three modalities.

Text (titles, bullets with levels, shape and group text, tables), structure (layout,
positions, grouping, z-order, animation order, hidden flag, section) and, when a PDF
renderer is given (`Renderers.slides`), a rendered image of every slide
(hidden ones included). Embedded objects (pictures, charts, tables, SmartArt, ink)
are standalone artifacts; speaker notes sit apart from the slides; master-level
footer, date and slide-number elements are deck-level artifacts referenced from
every slide that shows them, with per-slide overrides of their own.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from extractors.base import (
    ApplicationExtractor,
    ExtractContext,
    ExtractionError,
    Source,
    open_package,
)
from extractors.ooxml.namespaces import a, one_line, p
from extractors.ooxml.props import metadata_artifacts, original_properties
from extractors.part_guard import read_part
from extractors.powerpoint.build import Builder
from extractors.powerpoint.deck import Deck, DeckError, Slide, read_deck
from extractors.powerpoint.lang import language_name, main_language
from extractors.powerpoint.shapes import FOOTER_ROLES, shape_tree
from extractors.powerpoint.slide import SlideOutput, build_slide
from extractors.powerpoint.text import paragraphs
from extractors.powerpoint.views import declare_views
from extractors.rendering import PdfRenderer, pdf_to_pngs
from fidelity.core.document import Artifact, Document
from fidelity.core.locator import Locator
from fidelity.core.sizes import size_metadata

FOOTER_KINDS = {"ftr": "footer", "hdr": "footer", "dt": "date-time", "sldNum": "slide-number"}
FOOTER_LABELS = {"ftr": "Footer", "hdr": "Header", "dt": "Date/time", "sldNum": "Slide number"}


class FooterRegistry:
    """Deck-level footer, date/time and slide-number artifacts, referenced per slide.

    The deck-level text of an element is the one most slides show; a slide showing
    something else gets a per-slide override artifact of its own.
    """

    def __init__(self, deck: Deck, builder: Builder) -> None:
        self.builder = builder
        self.deck_level: dict[str, Artifact] = {}
        counts: dict[str, Counter[str]] = {}
        for slide in deck.slides:
            tree = slide.root.find(f"{p('cSld')}/{p('spTree')}")
            for shape in shape_tree(tree) if tree is not None else []:
                for item in shape.flatten():
                    if item.role in FOOTER_ROLES:
                        text = one_line("".join(t.text or "" for t in item.element.iter(a("t"))))
                        if text:
                            counts.setdefault(item.role, Counter())[text] += 1
        self.common = {role: counter.most_common(1)[0][0] for role, counter in counts.items()}

    def ref(self, slide: Slide, role: str, text: str, is_field: bool) -> Artifact | None:
        kind, name = FOOTER_KINDS.get(role), FOOTER_LABELS.get(role, role)
        if kind is None:
            return None
        if role == "sldNum" and is_field:
            artifact = self._deck_artifact(
                role, kind, "Slide number: shown (automatic slide-number field)", text
            )
        elif text == self.common.get(role):
            automatic = " (automatic date field)" if is_field and role == "dt" else ""
            artifact = self._deck_artifact(role, kind, f"{name}: “{text}”{automatic}", text)
        else:
            artifact = self.builder.add(
                kind,
                (slide.slide_id, role),
                Locator(slide=slide.number, element=f"{role} placeholder"),
                f"{name} on slide {slide.number}: “{text}”",
                facts={
                    "text": text,
                    "role": role,
                    "override": True,
                    "slide": slide.number,
                    "field": is_field,
                },
            )
            return artifact
        artifact.facts["slides"].append(slide.number)
        artifact.facts["field"] = bool(artifact.facts.get("field")) or is_field
        if role == "sldNum":
            artifact.facts["numbers"].append(text)
        return artifact

    def _deck_artifact(self, role: str, kind: str, text: str, value: str) -> Artifact:
        if role not in self.deck_level:
            self.deck_level[role] = self.builder.add(
                kind,
                ("deck", role),
                Locator(element=f"slide master / {role} placeholder"),
                text,
                facts={
                    "text": value if role != "sldNum" else "",
                    "role": role,
                    "override": False,
                    "slides": [],
                    "numbers": [],
                },
            )
        return self.deck_level[role]


class PowerPointExtractor(ApplicationExtractor):
    """PowerPoint decks (.pptx, .pptm, .ppsx, .potx; older formats arrive converted)."""

    app = "powerpoint"

    def extract(self, source: Source, context: ExtractContext) -> Document:
        """The document of the deck; slide images through `context.renderers.slides`."""
        with open_package(source.path, "PowerPoint") as package:
            try:
                deck = read_deck(package)
            except DeckError as error:
                raise ExtractionError(str(error)) from error
            if not deck.slides:
                raise ExtractionError("the presentation has no slides")
            slides = context.renderers.slides if context.media.enabled else None
            _fill(source.path, deck, source.document, context, slides)
        return declare_views(source.document)


def _fill(
    path: Path,
    deck: Deck,
    document: Document,
    context: ExtractContext,
    pdf_renderer: PdfRenderer | None,
) -> None:
    media = context.media
    builder = Builder(context.ids)
    lang, lang_chars, all_chars = main_language([s.root for s in deck.slides], deck.default_lang)
    footers = FooterRegistry(deck, builder)
    outputs = [build_slide(deck, slide, builder, media, lang, footers.ref) for slide in deck.slides]
    hidden = {
        slide.number: builder.add(
            "hidden-slide",
            (slide.slide_id,),
            Locator(slide=slide.number),
            f"(hidden slide {slide.number}: not shown during the slide show)",
            facts={"slide": slide.number, "title": output.title},
        )
        for slide, output in zip(deck.slides, outputs, strict=True)
        if slide.hidden
    }
    grown = (builder.artifacts,)
    note = context.note
    section_starts: dict[int, Artifact] = read_part(
        note, "sections", lambda: _sections(deck, builder, outputs), {}, grown
    )
    read_part(note, "speaker notes", lambda: _notes(deck, builder, outputs), None, grown)
    metadata: list[Artifact] = read_part(
        note, "document properties", lambda: metadata_artifacts(deck.package), []
    )
    builder.artifacts.extend(metadata)
    deck_lines = [f"# Presentation: {len(deck.slides)} slides"]
    if lang and all_chars:
        share = round(100 * lang_chars / all_chars)
        restating = [m.id for m in metadata if m.facts.get("key") == "language"]
        language = builder.add(
            "deck-language",
            ("deck",),
            Locator(element="presentation"),
            f"Main text language of the deck: {lang} ({language_name(lang)}), "
            f"tagged on {share}% of the slide text",
            facts={
                "lang": lang,
                "language": language_name(lang),
                "share": share,
                "restated_by": restating,
            },
        )
        deck_lines.append(language.placeholder or "")
    renders = _render(path, deck, builder, context, pdf_renderer)
    lines = deck_lines
    for slide, output in zip(deck.slides, outputs, strict=True):
        lines.append("")
        if slide.number in section_starts:
            lines.append(section_starts[slide.number].placeholder or "")
        heading = f"## Slide {slide.number}"
        if slide.number in hidden:
            heading += f" {hidden[slide.number].placeholder}"
        lines.append(heading)
        if slide.number in renders:
            render = renders[slide.number]
            lines.append(render.placeholder or "")
            _restate(builder, output.visible, render.id)
        lines.extend(output.lines)
    document.body = "\n".join(lines).strip() + "\n"
    document.artifacts = builder.artifacts
    original_properties(document)  # a converted .ppt: the original's dates and people
    document.size = size_metadata(
        "powerpoint", len(deck.slides), deck.part, hidden_slides=len(hidden)
    )


def _sections(deck: Deck, builder: Builder, outputs: list[SlideOutput]) -> dict[int, Artifact]:
    """Section artifacts, keyed by the number of the slide each section starts at."""
    number_of = {slide.slide_id: slide.number for slide in deck.slides}
    starts: dict[int, Artifact] = {}
    for index, (name, ids) in enumerate(deck.sections):
        numbers = sorted(number_of[i] for i in ids if i in number_of)
        listed = ", ".join(str(n) for n in numbers) if numbers else "(no slides)"
        artifact = builder.add(
            "section",
            (name, str(index)),
            Locator(element=f"section {index + 1}"),
            f"# Section “{name}”: slides {listed}",
            placed=bool(numbers),
            group="Sections",
            facts={
                "name": name,
                "index": index + 1,
                "slides": numbers,
                "titles": [outputs[n - 1].title for n in numbers],
            },
        )
        if numbers and numbers[0] not in starts:
            starts[numbers[0]] = artifact
        elif numbers:
            artifact.placeholder = None
    return starts


def _notes(deck: Deck, builder: Builder, outputs: list[SlideOutput]) -> None:
    """Speaker notes as their own artifacts, rendered apart from the slides."""
    for slide, output in zip(deck.slides, outputs, strict=True):
        if slide.notes_root is None:
            continue
        tree = slide.notes_root.find(f"{p('cSld')}/{p('spTree')}")
        found = []
        for shape in shape_tree(tree) if tree is not None else []:
            if shape.role == "body":
                body = shape.element.find(p("txBody"))
                found.extend(paragraphs(body, slide.palette, lambda _: None))
        if not found:
            continue
        lines = [
            ("  " * item.level + (f"{item.bullet} " if item.bullet else "") + item.text)
            for item in found
        ]
        builder.add(
            "note",
            (slide.slide_id,),
            Locator(slide=slide.number, element="notes"),
            f"Speaker notes of slide {slide.number}: " + "\n".join(lines),
            placed=False,
            group="Speaker notes",
            facts={"slide": slide.number, "title": output.title, "lines": [i.text for i in found]},
        )


def _render(
    path: Path,
    deck: Deck,
    builder: Builder,
    context: ExtractContext,
    pdf_renderer: PdfRenderer | None,
) -> dict[int, Artifact]:
    """Slide image artifacts from the PDF renderer (none without one)."""
    if pdf_renderer is None:
        return {}
    try:
        pngs = pdf_to_pngs(pdf_renderer(path), context.media.directory(), "slide")
    except Exception as error:  # images are optional: a converter failure only loses them
        context.note(f"slide images not rendered: {type(error).__name__}: {error}")
        return {}
    if len(pngs) != len(deck.slides):
        context.note(
            f"slide images not used: the PDF has {len(pngs)} pages for {len(deck.slides)} slides"
        )
        return {}
    return {
        slide.number: builder.add(
            "slide-render",
            (slide.slide_id,),
            Locator(slide=slide.number),
            f"[Rendered image of slide {slide.number}]",
            media=context.media.relative(png.name),
            facts={"slide": slide.number},
        )
        for slide, png in zip(deck.slides, pngs, strict=True)
    }


def _restate(builder: Builder, visible: list[str], render_id: str) -> None:
    """Content shown on a slide is restated by its image: ablations drop the image too."""
    wanted = set(visible)
    for artifact in builder.artifacts:
        if artifact.id in wanted:
            restated = artifact.facts.setdefault("restated_by", [])
            if render_id not in restated:
                restated.append(render_id)


EXTRACTOR = PowerPointExtractor()
