"""Deck-level reading: the slide list with each slide's layout, master, theme palette and
notes, sections, slide size, and hyperlink targets resolved to URLs or slide numbers."""

from __future__ import annotations

from dataclasses import dataclass, field

from lxml import etree

from extractors.ooxml.namespaces import P14, a, p, r
from extractors.powerpoint.colors import Palette, color_map
from extractors.powerpoint.shapes import Box, placeholder_boxes
from extractors.powerpoint.text import Link
from fidelity.core.xmlsafe import Package

SHOW_JUMPS = {
    "firstslide": "the first slide",
    "lastslide": "the last slide",
    "nextslide": "the next slide",
    "previousslide": "the previous slide",
    "lastslideviewed": "the last slide viewed",
    "endshow": "the end of the show",
}


class DeckError(ValueError):
    """The package has no readable presentation part."""


@dataclass
class Slide:
    number: int
    slide_id: str
    part: str
    root: etree._Element
    hidden: bool
    layout_name: str
    palette: Palette
    inherited_boxes: dict[tuple[str, str], Box]
    notes_root: etree._Element | None = None
    rels: dict[str, tuple[str, str, str]] = field(default_factory=dict)
    layout_type: str = ""


@dataclass
class Deck:
    package: Package
    part: str
    slides: list[Slide]
    sections: list[tuple[str, list[str]]]
    size: tuple[int, int]
    first_number: int
    default_lang: str | None
    number_of_part: dict[str, int]

    def link(self, slide: Slide, element: etree._Element) -> Link | None:
        """The target of an a:hlinkClick on `slide`."""
        action = element.get("action", "")
        rel = slide.rels.get(element.get(r("id"), ""))
        if "hlinkshowjump" in action:
            jump = action.split("jump=", 1)[-1]
            return Link(SHOW_JUMPS.get(jump, jump), "action")
        if rel is not None:
            kind, target, mode = rel
            if mode == "External" or kind == "hyperlink":
                return Link(target, "url") if target else None
            if kind == "slide":
                number = self.number_of_part.get(Package.resolve(slide.part, target))
                return Link(f"slide {number}", "slide", number) if number else None
        if action.startswith("ppaction://media"):
            return Link("its media", "media")  # a video's poster frame plays it: no link
        if action.startswith("ppaction://"):
            return Link(action.removeprefix("ppaction://"), "action")
        return None


def _main_part(package: Package) -> str:
    rels = package.rels("")
    for kind, target, _ in rels.values():
        if kind == "officeDocument":
            return target.lstrip("/")
    if package.has("ppt/presentation.xml"):
        return "ppt/presentation.xml"
    raise DeckError("no presentation part in the package")


def _related(package: Package, part: str, kind: str) -> str | None:
    for rel_kind, target, mode in package.rels(part).values():
        if rel_kind == kind and mode != "External":
            return Package.resolve(part, target)
    return None


def read_deck(package: Package) -> Deck:
    part = _main_part(package)
    root = package.xml(part)
    if root is None:
        raise DeckError(f"{part} is missing")
    rels = package.rels(part)
    entries: list[tuple[str, str]] = []
    id_list = root.find(p("sldIdLst"))
    for entry in id_list if id_list is not None else []:
        rel = rels.get(entry.get(r("id"), ""))
        if rel is None:
            continue
        slide_part = Package.resolve(part, rel[1])
        if package.has(slide_part):
            entries.append((entry.get("id", ""), slide_part))
    number_of_part = {slide_part: n for n, (_, slide_part) in enumerate(entries, start=1)}
    cache: dict[str, tuple[str, str, Palette, dict[tuple[str, str], Box]]] = {}
    slides = []
    for number, (slide_id, slide_part) in enumerate(entries, start=1):
        slide_root = package.xml(slide_part)
        if slide_root is None:
            continue
        layout_part = _related(package, slide_part, "slideLayout")
        layout_name, layout_type, palette, boxes = _layout(package, layout_part, cache)
        override = slide_root.find(f"{p('clrMapOvr')}/{a('overrideClrMapping')}")
        if override is not None:
            palette = palette.with_map(color_map(override))
        notes_part = _related(package, slide_part, "notesSlide")
        slides.append(
            Slide(
                number=number,
                slide_id=slide_id,
                part=slide_part,
                root=slide_root,
                hidden=slide_root.get("show") in ("0", "false"),
                layout_name=layout_name,
                palette=palette,
                inherited_boxes=boxes,
                notes_root=package.xml(notes_part) if notes_part else None,
                rels=package.rels(slide_part),
                layout_type=layout_type,
            )
        )
    size = root.find(p("sldSz"))
    return Deck(
        package=package,
        part=part,
        slides=slides,
        sections=_sections(root),
        size=(int(size.get("cx", "0")), int(size.get("cy", "0"))) if size is not None else (0, 0),
        first_number=int(root.get("firstSlideNum", "1") or 1),
        default_lang=_default_lang(root),
        number_of_part=number_of_part,
    )


def _layout(
    package: Package,
    layout_part: str | None,
    cache: dict[str, tuple[str, str, Palette, dict[tuple[str, str], Box]]],
) -> tuple[str, str, Palette, dict[tuple[str, str], Box]]:
    """(layout name, layout type, palette, inherited placeholder boxes) for a slide layout part.

    The type ('title', 'obj', 'twoObj'…) names the built-in layout in every language.
    """
    if layout_part is None:
        return "", "", Palette(None, {}), {}
    if layout_part in cache:
        return cache[layout_part]
    layout = package.xml(layout_part)
    master_part = _related(package, layout_part, "slideMaster")
    master = package.xml(master_part) if master_part else None
    theme_part = _related(package, master_part, "theme") if master_part else None
    theme = package.xml(theme_part) if theme_part else None
    master_map = master.find(p("clrMap")) if master is not None else None
    palette = Palette(theme, color_map(master_map))
    name = kind = ""
    boxes: dict[tuple[str, str], Box] = {}
    if master is not None:
        boxes.update(placeholder_boxes(master.find(f"{p('cSld')}/{p('spTree')}")))
    if layout is not None:
        csld = layout.find(p("cSld"))
        name = csld.get("name", "") if csld is not None else ""
        kind = layout.get("type", "")
        boxes.update(placeholder_boxes(layout.find(f"{p('cSld')}/{p('spTree')}")))
    cache[layout_part] = (name, kind, palette, boxes)
    return cache[layout_part]


def _sections(root: etree._Element) -> list[tuple[str, list[str]]]:
    out = []
    for section in root.iter(f"{{{P14}}}section"):
        ids = [s.get("id", "") for s in section.iter(f"{{{P14}}}sldId")]
        out.append((" ".join(section.get("name", "").split()), ids))
    return out


def _default_lang(root: etree._Element) -> str | None:
    styles = root.find(p("defaultTextStyle"))
    if styles is None:
        return None
    for props in styles.iter(a("defRPr")):
        if props.get("lang"):
            return props.get("lang")
    return None
