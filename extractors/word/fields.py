"""Where a run stands among Word's fields: inside the result of a field Word generates
(a bibliography, a table of contents, an index) or of a link, read in document order.

A complex field runs from a `w:fldChar begin` through its `w:instrText` and a `separate`
to an `end`, and may span paragraphs (a bibliography's entries are one field's result); a
`w:fldSimple` holds its result runs. Formatting and layout of generated text are Word's
(the APA entry's italic title and hanging indent), as is a link's underline.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lxml import etree

from extractors.word.xml import attr, w

GENERATED = frozenset({"BIBLIOGRAPHY", "TOC", "INDEX", "TOA", "CITATION"})
LINK_FIELDS = frozenset({"HYPERLINK"})
LINK_STYLES = frozenset({"hyperlink", "followedhyperlink"})


@dataclass
class _Open:
    instruction: str = ""
    in_result: bool = False

    @property
    def name(self) -> str:
        words = self.instruction.split()
        return words[0].upper() if words else ""


@dataclass
class FieldState:
    """Fed every run in document order; says what the run's text is the result of."""

    open: list[_Open] = field(default_factory=list)

    def feed(self, run: etree._Element) -> None:
        """Take the run's field characters and instruction text into account."""
        for child in run:
            if child.tag == w("fldChar"):
                kind = attr(child, "fldCharType")
                if kind == "begin":
                    self.open.append(_Open())
                elif kind == "separate" and self.open:
                    self.open[-1].in_result = True
                elif kind == "end" and self.open:
                    self.open.pop()
            elif child.tag == w("instrText") and self.open and not self.open[-1].in_result:
                self.open[-1].instruction += child.text or ""

    def results(self, run: etree._Element) -> set[str]:
        """Names of the fields whose result the run's text is (complex and simple fields)."""
        names = {entry.name for entry in self.open if entry.in_result}
        for ancestor in run.iterancestors(w("fldSimple")):
            words = (attr(ancestor, "instr") or "").split()
            if words:
                names.add(words[0].upper())
        return names

    def generated(self, run: etree._Element) -> str:
        """The generated field (BIBLIOGRAPHY, TOC…) whose result the run is, or ''."""
        return next(iter(sorted(self.results(run) & GENERATED)), "")

    def linked(self, run: etree._Element) -> bool:
        """The run is link text: inside a w:hyperlink or a HYPERLINK field, or in the
        Hyperlink character style."""
        rpr = run.find(w("rPr"))
        style = attr(rpr.find(w("rStyle")), "val") if rpr is not None else None
        return (
            next(run.iterancestors(w("hyperlink")), None) is not None
            or bool(self.results(run) & LINK_FIELDS)
            or (style or "").lower() in LINK_STYLES
        )
