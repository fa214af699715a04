"""word/document.xml read once: its root, relationships and hidden copies, for every part reader."""

from __future__ import annotations

from dataclasses import dataclass

from lxml import etree

from extractors.word.xml import FALLBACK, w
from fidelity.core.xmlsafe import Package, parse_xml

DOCUMENT = "word/document.xml"
TEXTBOX = w("txbxContent")


@dataclass
class BodyIndex:
    """The document part parsed once, with what the part readers leave out found once:
    the mc:Fallback copies (`fallback`) and the insides of text boxes (`in_textbox`).

    `of(*tags)` gives the elements with those tags in document order (lxml's iter,
    in C), Fallback copies left out; readers look up only the elements they read
    instead of each walking the whole tree.
    """

    root: etree._Element
    rels: dict[str, tuple[str, str, str]]
    fallback: set[etree._Element]
    in_textbox: set[etree._Element]

    @classmethod
    def parse(cls, package: Package, document_xml: bytes) -> BodyIndex:
        """The index of word/document.xml, given as read from `package`."""
        root = parse_xml(document_xml, DOCUMENT)
        fallback: set[etree._Element] = set()
        for copy in root.iter(FALLBACK):
            if copy is not root:
                fallback.update(copy.iter())
        in_textbox: set[etree._Element] = set()
        for box in root.iter(TEXTBOX):
            if box not in fallback:
                in_textbox.update(node for node in box.iter() if node is not box)
        return cls(root, package.rels(DOCUMENT), fallback, in_textbox)

    def of(self, *tags: str, outside_textboxes: bool = False) -> list[etree._Element]:
        """Elements with any of `tags` in document order (optionally not inside a text box)."""
        hidden = self.fallback | self.in_textbox if outside_textboxes else self.fallback
        if not hidden:
            return list(self.root.iter(*tags))
        return [node for node in self.root.iter(*tags) if node not in hidden]
