"""Which element of a document a line of a view comes from, and where each element sits.

The leakage test finds an answer value on a line of a rendered view; this index says
which artifact wrote that value there (the artifact whose own text, nested elements
left out, holds the value on that line) and the element's place (slide, sheet, section),
so evidence from a different element can be told from a restatement of the same fact.
"""

from __future__ import annotations

from collections.abc import Callable

from fidelity.core.document import Artifact, Document
from fidelity.core.text import normalize
from fidelity.core.views import PLACEHOLDER, View


def slide_of(artifact: Artifact) -> int | None:
    """The number of the slide an element sits on, or None off a slide."""
    slide = artifact.facts.get("slide")
    return slide if isinstance(slide, int) else None


def sheet_of(artifact: Artifact) -> str:
    """The sheet an element sits on (a defined name's scope), or '' off a sheet. A sheet's
    own artifact sits on no sheet."""
    where = artifact.where
    return str(
        artifact.facts.get("scope")
        or artifact.facts.get("sheet")
        or (where.sheet if where.cells else "")
        or ""
    )


def place(artifact: Artifact) -> str:
    """Where an element sits, in a reader's words: a slide, a sheet or a section heading."""
    if (slide := slide_of(artifact)) is not None:
        return f"On slide {slide}"
    if sheet := sheet_of(artifact):
        return f"On sheet '{sheet}'"
    if heading := artifact.where.section:
        return f"Under the heading “{heading}”"
    if isinstance(artifact.facts.get("section"), int):
        return f"In section {artifact.facts['section']}"
    return ""


class ElementIndex:
    """Each artifact's own normalised lines (nested elements left out), built once per document."""

    def __init__(self, document: Document) -> None:
        self.artifacts = document.artifacts
        self.own: dict[str, list[str]] = {
            artifact.id: [
                normal
                for line in PLACEHOLDER.sub("\n", artifact.text).splitlines()
                if (normal := normalize(line))
            ]
            for artifact in document.artifacts
        }

    def owner(
        self, line: str, value: str, view: View, holds: Callable[[str], bool] | None = None
    ) -> Artifact | None:
        """The artifact in `view` whose own text puts `value` on the normalised `line`.

        `holds(own line)` says whether an element's line states the value (by default: as
        a phrase). None when the value comes from the document body (text no artifact owns).
        """
        padded_value, padded_line = f" {value} ", f" {line} "
        for artifact in self.artifacts:
            if not view.includes(artifact.id):
                continue
            for own in self.own[artifact.id]:
                stated = holds(own) if holds is not None else padded_value in f" {own} "
                if stated and f" {own} " in padded_line:
                    return artifact
        return None
