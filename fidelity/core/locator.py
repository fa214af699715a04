"""Where an artifact sits in its file, as fields (slide, shape, sheet, cells, section heading,
table path, part); the text a reader sees is rendered from them, for display only."""

from __future__ import annotations

from pydantic import BaseModel, Field

# How many characters of a quoted text (a heading, a link's text) name the element.
QUOTED_CHARS = 60


def sheet_label(name: str) -> str:
    """A sheet name as formulas write it: quoted when it holds anything but letters/digits."""
    plain = name.replace("_", "").replace(".", "").isalnum()
    return name if plain else "'" + name.replace("'", "''") + "'"


class ShapeRef(BaseModel):
    """A shape of a slide: its id on the slide and its name ('' when it has none)."""

    id: str
    name: str = ""

    @property
    def label(self) -> str:
        return f"[{self.name or 'shape ' + self.id}]"


class Locator(BaseModel):
    """The place of one element: read its fields; `text` is only ever shown, never parsed.

    `element` and `quoted` are a reader's words for the element itself ("comment 3 on",
    "footer placeholder", a heading's text); the other fields are where it sits.
    """

    element: str = ""
    quoted: str | None = None
    # The package part it sits in ("word/header1.xml"), and the key of the document property
    # it is (in "docProps/core.xml").
    part: str | None = None
    key: str | None = None
    sheet: str | None = None
    # A cell or range of `sheet` ("B4", "A1:D20").
    cells: str | None = None
    slide: int | None = None
    shape: ShapeRef | None = None
    # The heading of the Word section an in-flow element sits under ('' before the first).
    section: str | None = None
    # A Word table's number (tables counted where they start) after the numbers of the
    # tables it is nested in, outermost first.
    table_path: list[int] = Field(default_factory=list)

    @property
    def table(self) -> int | None:
        """A Word table's number in the document, or None for anything but a table."""
        return self.table_path[-1] if self.table_path else None

    @property
    def text(self) -> str:
        """The place in a reader's words, as questions, evidence and reasons show it."""
        if self.sheet is not None:
            label = sheet_label(self.sheet)
            return f"{label}!{self.cells}" if self.cells else label
        if self.slide is not None:
            steps = [f"slide {self.slide}"]
            if self.shape is not None:
                steps.append(f"shape {self.shape.id} {self.shape.label}")
            elif self.element:
                steps.append(self.element)
            return " / ".join(steps)
        if self.key is not None:
            return " ".join(word for word in (self.part, self.key, self.element) if word)
        return self._in_flow()

    def _in_flow(self) -> str:
        """A Word element: its words, the section heading it sits under, the part holding it."""
        words = f"table {self.table}" if self.table is not None else self.element
        if self.quoted is not None:
            words = f"{words} “{self.quoted[:QUOTED_CHARS]}”"
        if self.section is not None:
            words = f"{words} in section '{self.section}'" if words else f"section '{self.section}'"
        if self.part:
            words = f"{words} in {self.part}"
        return words
