"""word/document.xml read once: its elements in document order, by tag, for every part reader."""

from __future__ import annotations

from dataclasses import dataclass

from lxml import etree

from extractors.word.xml import FALLBACK, w
from fidelity.xmlsafe import Package

DOCUMENT = "word/document.xml"
TEXTBOX = w("txbxContent")


@dataclass
class BodyIndex:
    """The document part walked once (mc:Fallback copies left out) and its relationships.

    `of(*tags)` gives the elements with those tags in document order; readers that
    used to walk the whole tree each look up only the elements they read.
    """

    root: etree._Element
    rels: dict[str, tuple[str, str, str]]
    nodes: list[etree._Element]
    positions: dict[str, list[int]]
    in_textbox: set[int]

    @classmethod
    def read(cls, package: Package) -> BodyIndex | None:
        """The index of word/document.xml (None when the package has none)."""
        root = package.xml(DOCUMENT)
        if root is None:
            return None
        nodes: list[etree._Element] = []
        positions: dict[str, list[int]] = {}
        in_textbox: set[int] = set()
        open_textboxes = 0
        walker = etree.iterwalk(root, events=("start", "end"))
        for event, node in walker:
            tag = node.tag
            if not isinstance(tag, str):
                continue
            if event == "end":
                if tag == TEXTBOX:
                    open_textboxes -= 1
                continue
            if tag == FALLBACK and node is not root:
                walker.skip_subtree()
                continue
            if open_textboxes:
                in_textbox.add(len(nodes))
            if tag == TEXTBOX:
                open_textboxes += 1
            positions.setdefault(tag, []).append(len(nodes))
            nodes.append(node)
        return cls(root, package.rels(DOCUMENT), nodes, positions, in_textbox)

    def of(self, *tags: str, outside_textboxes: bool = False) -> list[etree._Element]:
        """Elements with any of `tags` in document order (optionally not inside a text box)."""
        found = sorted(i for tag in tags for i in self.positions.get(tag, ()))
        if outside_textboxes:
            found = [i for i in found if i not in self.in_textbox]
        return [self.nodes[i] for i in found]
