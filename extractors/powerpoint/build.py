"""Artifact bookkeeping for the PowerPoint extractor: stable ids and placeholders."""

from __future__ import annotations

from typing import Any

from extractors.artifacts import ArtifactMaker
from fidelity.core.document import Artifact, Modality
from fidelity.core.hashing import IdMaker
from fidelity.core.locator import Locator

CATEGORY_OF_KIND = {
    "slide-text": "Slide Text",
    "shape-text": "Shape/Text",
    "shape-style": "Shapes/Type & Color",
    "hyperlink": "Hyperlink",
    "text-highlight": "Text Highlight",
    "equation": "Equation/Symbol",
    "table": "Tables/Values",
    "table-cell-colors": "Tables/Cell color coding",
    "image": "Image",
    "chart": "Chart",
    "smartart": "SmartArt/Type & Text",
    "smartart-structure": "SmartArt/Semantics",
    "ink": "Ink",
    "slide-structure": "Position/Association/Grouping",
    "slide-render": "Position/Association/Grouping",
    "animations": "Animations",
    "slide-languages": "Language",
    "deck-language": "Language",
    "hidden-slide": "Slide Properties - Hidden",
    "section": "Section",
    "footer": "Header/Footer/SlideNum/DateTime",
    "date-time": "Header/Footer/SlideNum/DateTime",
    "slide-number": "Header/Footer/SlideNum/DateTime",
    "note": "Slide Note",
}
MODALITY_OF_KIND: dict[str, Modality] = {
    "slide-text": "text",
    "shape-text": "text",
    "table": "table",
    "image": "visual",
    "chart": "visual",
    "smartart": "visual",
    "ink": "visual",
    "slide-render": "visual",
}


class Builder:
    """Creates artifacts with ids derived from the deck's structure (slide id, shape id…)."""

    def __init__(self, ids: IdMaker) -> None:
        self.maker = ArtifactMaker(ids)
        self.artifacts: list[Artifact] = []

    def add(
        self,
        kind: str,
        key: tuple[str, ...],
        where: Locator,
        text: str,
        placed: bool = True,
        **fields: Any,
    ) -> Artifact:
        artifact = self.maker.make(
            f"ppt-{kind}",
            key,
            placed,
            category=CATEGORY_OF_KIND[kind],
            kind=kind,
            modality=MODALITY_OF_KIND.get(kind, "element"),
            where=where,
            text=text,
            **fields,
        )
        self.artifacts.append(artifact)
        return artifact
