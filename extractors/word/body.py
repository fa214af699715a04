"""Word body through pandoc: Markdown text chunks with placeholders for tables, images,
equations, footnotes and text boxes; tables as standalone HTML with merged cells kept.

Formatting marks (bold, italic, underline, strikeout, highlight) are dropped from the
body on purpose: they are stated by the formatting artifacts, so a view without
those artifacts no longer states them.
"""

from __future__ import annotations

import json
import os
import re
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from extractors.media import MediaWriter
from extractors.word.pandoc_ast import (
    Node,
    document,
    document_json,
    head_row_count,
    para,
    stringify,
    table_grid,
    table_rows,
)
from extractors.word.pandoc_run import PandocRun, write_json
from fidelity.core.document import Artifact, placeholder_for
from fidelity.core.hashing import IdMaker
from fidelity.core.locator import Locator

CHUNK_CHARS = 1500
# Tables are written to HTML in pandoc runs of about this much JSON each: 2.8 MB of
# tables in one run took 0.44 s, in three runs beside the Markdown run 0.25 s (2 cores).
TABLE_RUN_BYTES = 1_000_000
SPLIT = "⟦⟦split⟧⟧"
_FLATTEN = {"Emph", "Strong", "Underline", "Strikeout", "SmallCaps", "Superscript", "Subscript"}


@dataclass
class NoteRef:
    """A footnote or endnote reference, in body order, as read from document.xml."""

    id: str
    kind: str
    number: int
    text: str
    passage: str = ""


@dataclass
class BodyResult:
    body: str
    artifacts: list[Artifact]
    links: list[tuple[str, str]] = field(default_factory=list)


class _Walker:
    """One pass over the AST that swaps elements for placeholders and records artifacts."""

    def __init__(
        self,
        media_root: Path | None,
        notes: list[NoteRef],
        textboxes: dict[str, str],
        ids: IdMaker,
    ) -> None:
        self.media_root = media_root
        self.notes = notes
        self.textboxes = textboxes
        self.placed_textboxes: set[str] = set()
        self.note_index = 0
        self.notes_placed: set[tuple[str, str]] = set()
        self.ids = ids
        self.artifacts: list[Artifact] = []
        self.tables: list[tuple[str, Node]] = []
        self.links: list[tuple[str, str]] = []
        self.heading = ""
        self.equation_count = 0
        # The numbers of the tables whose cells are being walked, outermost first.
        self.enclosing: list[int] = []

    # inlines -----------------------------------------------------------------
    def inlines(self, items: list[Node]) -> list[Node]:
        out: list[Node] = []
        for position, node in enumerate(items):
            kind = node.get("t")
            content: Any = node.get("c")
            if kind in _FLATTEN:
                out.extend(self.inlines(content))
            elif kind == "Span":
                out.extend(self.inlines(content[1]))
            elif kind == "Link":
                text = stringify(content[1]).strip()
                self.links.append((text, content[2][0]))
                out.extend(self.inlines(content[1]))
            elif kind == "Image":
                out.append(self.image(content))
            elif kind == "Math":
                out.append(self.equation(content, items[:position]))
            elif kind == "Note":
                out.append(self.note(content, items[:position]))
            else:
                out.append(node)
        return out

    def image(self, content: list[Any]) -> Node:
        attr, alt_inlines, (target, title) = content
        alt = " ".join(stringify(alt_inlines).split())
        artifact_id = self.ids("img", os.path.basename(target))
        media = None
        if self.media_root is not None:  # relative to OUT, whatever OUT is called or given as
            media = os.path.relpath(os.path.abspath(target), os.path.abspath(self.media_root))
        described = alt or title or "no description"
        self.artifacts.append(
            Artifact(
                id=artifact_id,
                category="Image",
                kind="image",
                modality="visual",
                where=Locator(element=f"image {os.path.basename(target)}", section=self.heading),
                text=f"[Image: {described}]",
                media=media,
                facts={"alt_text": alt, "title": title, "file": os.path.basename(target)},
                placeholder=placeholder_for(artifact_id),
                group="Images",
            )
        )
        return {"t": "Str", "c": placeholder_for(artifact_id)}

    def equation(self, content: list[Any], before: list[Node]) -> Node:
        mode, latex = content
        self.equation_count += 1
        display = mode.get("t") == "DisplayMath"
        artifact_id = self.ids("eq", latex)
        context = _tail_words(stringify(before), 10)
        self.artifacts.append(
            Artifact(
                id=artifact_id,
                category="Equation",
                kind="equation",
                modality="element",
                where=Locator(element=f"equation {self.equation_count}", section=self.heading),
                text=f"[Equation: {latex}]",
                facts={"latex": latex, "display": display, "preceding_text": context},
                placeholder=placeholder_for(artifact_id),
                group="Equations",
            )
        )
        return {"t": "Str", "c": placeholder_for(artifact_id)}

    def note(self, content: list[Any], before: list[Node]) -> Node:
        text = " ".join(stringify(content).split())
        ref = self._match_note(text)
        kind = ref.kind if ref else "footnote"
        note_id = ref.id if ref else str(self.note_index)
        number = ref.number if ref else self.note_index
        artifact_id = f"{'fn' if kind == 'footnote' else 'en'}-{note_id}"
        passage = _tail_words(stringify(self.inlines_plain(before)), 12)
        if ref is not None:
            self.notes_placed.add((ref.kind, ref.id))
        self.artifacts.append(
            _note_artifact(artifact_id, kind, number, text, passage, self.heading)
        )
        return {"t": "Str", "c": placeholder_for(artifact_id)}

    def unplaced_notes(self) -> list[Artifact]:
        """Notes pandoc did not emit (e.g. referenced from inside a text box), for the annex."""
        out = []
        for ref in self.notes:
            if (ref.kind, ref.id) in self.notes_placed or not ref.text:
                continue
            artifact_id = f"{'fn' if ref.kind == 'footnote' else 'en'}-{ref.id}"
            artifact = _note_artifact(
                artifact_id, ref.kind, ref.number, ref.text, ref.passage, None
            )
            artifact.placeholder = None
            out.append(artifact)
        return out

    def inlines_plain(self, items: list[Node]) -> list[Node]:
        return [node for node in items if node.get("t") != "Note"]

    def _match_note(self, text: str) -> NoteRef | None:
        index = self.note_index
        self.note_index += 1
        if index < len(self.notes) and _same(self.notes[index].text, text):
            return self.notes[index]
        for ref in self.notes:
            if _same(ref.text, text):
                return ref
        return self.notes[index] if index < len(self.notes) else None

    # blocks ------------------------------------------------------------------
    def block(self, node: Node) -> Node | None:
        kind = node.get("t")
        content: Any = node.get("c")
        if kind == "Table":
            return para(self.table(node))
        if kind in ("Para", "Plain"):
            textbox = self._textbox_for(node)
            if textbox is not None:
                return para(placeholder_for(textbox)) if textbox else None
            return {"t": kind, "c": self.inlines(content)}
        if kind == "Header":
            self.heading = " ".join(stringify(content[2]).split())
            return {"t": kind, "c": [content[0], content[1], self.inlines(content[2])]}
        if kind == "BulletList":
            return {"t": kind, "c": [self.blocks(item) for item in content]}
        if kind == "OrderedList":
            return {"t": kind, "c": [content[0], [self.blocks(item) for item in content[1]]]}
        if kind == "BlockQuote":
            return {"t": kind, "c": self.blocks(content)}
        if kind == "Div":
            return {"t": kind, "c": [content[0], self.blocks(content[1])]}
        if kind == "Figure":
            return {"t": "Div", "c": [["", [], []], self.blocks(content[2])]}
        if kind == "LineBlock":
            return {"t": kind, "c": [self.inlines(line) for line in content]}
        return node

    def blocks(self, nodes: list[Node]) -> list[Node]:
        out = []
        for node in nodes:
            result = self.block(node)
            if result is not None:
                out.append(result)
        return out

    def _textbox_for(self, node: Node) -> str | None:
        """'' to drop a paragraph already placed as a text box, an id to place one, else None."""
        if not self.textboxes:
            return None
        key = _key(stringify(node))
        textbox = self.textboxes.get(key) if key else None
        if textbox is None:
            return None
        if textbox in self.placed_textboxes:
            return ""
        self.placed_textboxes.add(textbox)
        return textbox

    def table(self, node: Node) -> str:
        number = len(self.tables) + 1
        artifact_id = f"tbl-{number}"
        slot = len(self.tables)
        self.tables.append((artifact_id, node))
        path = [*self.enclosing, number]
        self.enclosing.append(number)
        node = {"t": "Table", "c": self._table_content(node["c"])}
        self.enclosing.pop()
        self.tables[slot] = (artifact_id, node)
        content = node["c"]
        texts = table_rows(content)
        rows = [[_PLACEHOLDERS.sub("", cell).strip() for cell in row] for row in texts]
        caption = " ".join(stringify(content[1][1]).split())
        self.artifacts.append(
            Artifact(
                id=artifact_id,
                category="Table",
                kind="table",
                modality="table",
                where=Locator(table_path=path, section=self.heading),
                facts={
                    "rows": rows,
                    "grid": [
                        [_PLACEHOLDERS.sub("", cell).strip() for cell in row]
                        for row in table_grid(content, texts)
                    ],
                    "header_rows": head_row_count(content),
                    "caption": caption,
                    "heading": self.heading,
                },
                placeholder=placeholder_for(artifact_id),
                group="Tables",
            )
        )
        return placeholder_for(artifact_id)

    def _table_content(self, content: list[Any]) -> list[Any]:
        """Cells walked like the body: notes, links, images and nested tables inside cells."""
        attr, caption, colspecs, head, bodies, foot = content

        def rows(items: list[Any]) -> list[Any]:
            return [
                [row[0], [[*cell[:4], self.blocks(cell[4])] for cell in row[1]]] for row in items
            ]

        return [
            attr,
            caption,
            colspecs,
            [head[0], rows(head[1])],
            [[body[0], body[1], rows(body[2]), rows(body[3])] for body in bodies],
            [foot[0], rows(foot[1])],
        ]


_PLACEHOLDERS = re.compile(r"⟦[^⟦⟧]+⟧")


def _note_artifact(
    artifact_id: str, kind: str, number: int, text: str, passage: str, section: str | None
) -> Artifact:
    """A footnote or endnote referenced under the heading `section` (None: from inside a
    text box or frame)."""
    words = f"{kind} {number}"
    where = (
        Locator(element=f"{words} in a text box or frame")
        if section is None
        else Locator(element=words, section=section)
    )
    return Artifact(
        id=artifact_id,
        category="Footnote",
        kind=kind,
        modality="element",
        where=where,
        text=f"[{kind.capitalize()} {number}: {text}]",
        facts={"number": number, "text": text, "passage": passage, "note_kind": kind},
        placeholder=placeholder_for(artifact_id),
        group="Notes",
    )


def _same(left: str, right: str) -> bool:
    return _key(left) == _key(right)


def _key(text: str) -> str:
    return " ".join(re.sub(r"[^\w]+", " ", text.casefold()).split())


def _tail_words(text: str, count: int) -> str:
    words = text.split()
    return " ".join(words[-count:])


def convert(
    ast: dict[str, Any],
    media: MediaWriter,
    notes: list[NoteRef],
    textboxes: dict[str, str],
    ids: IdMaker,
) -> BodyResult:
    """The Word body as placeholders + text chunks, and the artifacts found on the way."""
    media_root = media.folder.parent.parent if media.folder is not None else None
    walker = _Walker(media_root, notes, {_key(k): v for k, v in textboxes.items()}, ids)
    chunks = _chunk(walker, ast["blocks"])
    api = ast["pandoc-api-version"]
    with ExitStack() as running:
        # the pandoc renderings are separate processes: all start before any is read.
        markdown = _start_markdown([blocks for _, blocks in chunks], api, running)
        tables = _start_tables(walker.tables, api, running)
        texts = _markdown_texts(markdown)
        tables_html = _tables_html(tables)

    body: list[str] = []
    artifacts: list[Artifact] = []
    for (heading, _), text in zip(chunks, texts, strict=True):
        text = text.strip()
        if not text:
            continue
        if _is_placeholder_only(text):
            body.append(text)
            continue
        chunk_id = ids("txt", heading, text)
        body.append(placeholder_for(chunk_id))
        artifacts.append(
            Artifact(
                id=chunk_id,
                category="Text",
                kind="text",
                modality="text",
                where=Locator(section=heading) if heading else Locator(element="document start"),
                text=text,
                facts={"heading": heading},
                placeholder=placeholder_for(chunk_id),
                group="Body",
            )
        )
    for artifact in walker.artifacts:
        if artifact.kind == "table":
            artifact.html = tables_html.get(artifact.id, "")
            artifact.text = f"[Table {artifact.id}]\n{_one_row_per_line(artifact.html)}"
    artifacts += walker.artifacts + walker.unplaced_notes()
    return BodyResult("\n\n".join(body), artifacts, walker.links)


def _chunk(walker: _Walker, blocks: list[Node]) -> list[tuple[str, list[Node]]]:
    """Text chunks split at headings, at top-level tables and at CHUNK_CHARS."""
    chunks: list[tuple[str, list[Node]]] = []
    current: list[Node] = []
    size = 0

    def flush() -> None:
        nonlocal current, size
        if current:
            chunks.append((heading, current))
        current, size = [], 0

    heading = ""
    for node in blocks:
        kind = node.get("t")
        if kind in ("Header", "Table"):
            flush()
        result = walker.block(node)
        if not current:
            heading = walker.heading
        if result is None:
            continue
        text = "" if kind == "Table" else stringify(result)
        if kind == "Table" or _is_placeholder_only(text):
            flush()
            chunks.append((walker.heading, [result]))
            continue
        current.append(result)
        size += len(text)
        if size >= CHUNK_CHARS:
            flush()
    flush()
    return chunks


def _is_placeholder_only(text: str) -> bool:
    return bool(re.fullmatch(r"\s*(⟦[^⟦⟧]+⟧\s*)+", text))


def _start_markdown(
    chunks: list[list[Node]], api: list[int], running: ExitStack
) -> PandocRun | None:
    """All chunks in one pandoc run, each after a marker paragraph (None: no chunks)."""
    if not chunks:
        return None
    blocks: list[Node] = []
    for chunk in chunks:
        blocks.append(para(SPLIT))
        blocks.extend(chunk)
    return running.enter_context(write_json(json.dumps(document(blocks, api)), "gfm-raw_html"))


def _markdown_texts(run: PandocRun | None) -> list[str]:
    """The chunks' Markdown, split apart again on the marker paragraph."""
    if run is None:
        return []
    parts = run.text().split(SPLIT)[1:]
    return [_unescape(part) for part in parts]


def _unescape(markdown: str) -> str:
    return re.sub(r"\\([⟦⟧])", r"\1", markdown)


def _start_tables(
    tables: list[tuple[str, Node]], api: list[int], running: ExitStack
) -> list[PandocRun]:
    """The tables to HTML, each after a marker paragraph, in pandoc runs of about
    TABLE_RUN_BYTES of JSON, each started as soon as it is made. On a document with
    large tables pandoc's HTML writer is the longest step after reading the docx;
    separate runs share it among the cores (the HTML of a table does not depend on
    the tables around it)."""
    runs: list[PandocRun] = []
    pieces: list[str] = []
    size = 0
    for artifact_id, node in tables:
        pieces += (json.dumps(para(f"{SPLIT}{artifact_id}")), json.dumps(node))
        size += len(pieces[-1])
        if size >= TABLE_RUN_BYTES:
            runs.append(running.enter_context(write_json(document_json(pieces, api), "html")))
            pieces, size = [], 0
    if pieces:
        runs.append(running.enter_context(write_json(document_json(pieces, api), "html")))
    return runs


def _tables_html(runs: list[PandocRun]) -> dict[str, str]:
    out: dict[str, str] = {}
    for run in runs:
        for part in run.text().split(f"<p>{SPLIT}")[1:]:
            artifact_id, _, rest = part.partition("</p>")
            out[artifact_id] = rest.strip()
    return out


def _one_row_per_line(html: str) -> str:
    """Table HTML with each row on one line, so a row's header and values sit together."""
    flat = re.sub(r"\s*\n\s*", " ", html)
    return re.sub(r"\s*(<tr[ >]|</thead>|</tbody>|</table>|<tbody>|<thead>)", r"\n\1", flat).strip()
