"""Probe a PowerPoint package: per-slide text, taxonomy category counts, structure signals."""

from __future__ import annotations

from lxml import etree

from fidelity.core.apps import TAXONOMY
from fidelity.core.xmlsafe import Package
from ingest.probe import Probe, load, main_part

P = "http://schemas.openxmlformats.org/presentationml/2006/main"
A = "http://schemas.openxmlformats.org/drawingml/2006/main"
R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
P14 = "http://schemas.microsoft.com/office/powerpoint/2010/main"
A14 = "http://schemas.microsoft.com/office/drawing/2010/main"
M = "http://schemas.openxmlformats.org/officeDocument/2006/math"
CHART = "http://schemas.openxmlformats.org/drawingml/2006/chart"
MASTER_PLACEHOLDERS = {"sldNum", "dt", "ftr", "hdr"}


def p(name: str) -> str:
    return f"{{{P}}}{name}"


def a(name: str) -> str:
    return f"{{{A}}}{name}"


def _paragraphs(element: etree._Element) -> list[str]:
    return [
        "".join(t.text or "" for t in para.iter(a("t"))).strip() for para in element.iter(a("p"))
    ]


def _count(root: etree._Element, tag: str) -> int:
    return sum(1 for _ in root.iter(tag))


def _shape(shape: etree._Element, counts: dict[str, int]) -> None:
    placeholder = shape.find(f"{p('nvSpPr')}/{p('nvPr')}/{p('ph')}")
    if placeholder is not None:
        counts["Header/Footer/SlideNum/DateTime"] += placeholder.get("type") in MASTER_PLACEHOLDERS
        return
    geometry = shape.find(f"{p('spPr')}/{a('prstGeom')}")
    if geometry is None:
        return
    counts["Shapes/Type & Color"] += 1
    has_text = any(_paragraphs(shape))
    counts["Shape/Text"] += has_text and geometry.get("prst", "rect") != "rect"


def _slide(root: etree._Element, probe: Probe, counts: dict[str, int]) -> None:
    for shape in root.iter(p("sp")):
        _shape(shape, counts)
    texts = [text for text in _paragraphs(root) if text]
    counts["Slide Text"] += sum(1 for shape in root.iter(p("sp")) if any(_paragraphs(shape)))
    for text in texts:
        probe.add_line(text)
    counts["Position/Association/Grouping"] += _count(root, p("grpSp"))
    counts["Tables/Values"] += _count(root, a("tbl"))
    counts["Image"] += _count(root, p("pic"))
    counts["Chart"] += _count(root, f"{{{CHART}}}chart")
    counts["Text Highlight"] += _count(root, a("highlight"))
    counts["Equation/Symbol"] += _count(root, f"{{{A14}}}m") + _count(root, f"{{{M}}}oMath")
    counts["Hyperlink"] += sum(1 for link in root.iter(a("hlinkClick")) if link.get(f"{{{R}}}id"))
    counts["Ink"] += _count(root, p("contentPart"))
    counts["Tables/Cell color coding"] += sum(
        1 for cell in root.iter(a("tcPr")) if cell.find(a("solidFill")) is not None
    )
    timing = root.find(p("timing"))
    counts["Animations"] += timing is not None and timing.find(f".//{p('par')}") is not None


def _notes_text(package: Package, slide_part: str) -> list[str]:
    for kind, target, _ in package.rels(slide_part).values():
        if kind == "notesSlide":
            notes = load(package, Package.resolve(slide_part, target))
            if notes is None:
                return []
            texts = []
            for shape in notes.iter(p("sp")):
                placeholder = shape.find(f"{p('nvSpPr')}/{p('nvPr')}/{p('ph')}")
                if placeholder is not None and placeholder.get("type") == "body":
                    texts += [text for text in _paragraphs(shape) if text]
            return texts
    return []


def fill(package: Package, probe: Probe, values: dict[str, str]) -> None:
    presentation_part = main_part(package, "ppt/presentation.xml")
    presentation = load(package, presentation_part)
    if presentation is None:
        raise ValueError("PowerPoint package without its presentation part")
    rels = package.rels(presentation_part)
    # Metadata is counted by the shared properties reader, not per slide.
    counts = dict.fromkeys((c for c in TAXONOMY["powerpoint"] if c != "Metadata"), 0)
    languages: set[str] = set()
    slide_ids = presentation.findall(f"{p('sldIdLst')}/{p('sldId')}")
    for number, slide_id in enumerate(slide_ids, start=1):
        kind, target, _ = rels.get(slide_id.get(f"{{{R}}}id", ""), ("", "", ""))
        part = Package.resolve(presentation_part, target)
        root = load(package, part) if kind == "slide" and package.has(part) else None
        if root is None:
            continue
        probe.add_line(f"## Slide {number}")
        counts["Slide Properties - Hidden"] += root.get("show", "1") in {"0", "false"}
        _slide(root, probe, counts)
        for element in root.iter(a("rPr"), a("endParaRPr"), a("defRPr")):
            languages.update(filter(None, (element.get("lang"), element.get("altLang"))))
        notes = _notes_text(package, part)
        counts["Slide Note"] += bool(notes)
        for text in notes:
            probe.add_line(f"Note: {text}")
    counts["Language"] = len(languages)
    counts["Ink"] += sum(1 for name in package.names if name.startswith("ppt/ink/"))
    diagrams = sum(1 for name in package.names if name.startswith("ppt/diagrams/data"))
    counts["SmartArt/Type & Text"] = counts["SmartArt/Semantics"] = diagrams
    counts["Section"] = _count(presentation, f"{{{P14}}}section")
    probe.categories.update(counts)
    probe.features.update(slides=len(slide_ids), languages=sorted(languages))
