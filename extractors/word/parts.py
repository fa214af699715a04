"""Word elements outside the body flow, read from the package XML: comments, notes,
headers and footers, text boxes, embedded video and charts."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from lxml import etree

from extractors.media import MediaWriter
from extractors.word.body import NoteRef
from extractors.word.index import DOCUMENT, BodyIndex
from extractors.word.xml import (
    W14,
    W15,
    WP,
    WP15,
    A,
    C,
    R,
    attr,
    paragraphs_text,
    text_of,
    w,
    walk,
)
from fidelity.core.document import Artifact
from fidelity.core.hashing import IdMaker
from fidelity.core.locator import Locator
from fidelity.core.xmlsafe import Package


def note_refs(package: Package, index: BodyIndex) -> list[NoteRef]:
    """Footnote and endnote references in body order, with their note text."""
    texts = {
        "footnote": _notes_text(package, "word/footnotes.xml", "footnote"),
        "endnote": _notes_text(package, "word/endnotes.xml", "endnote"),
    }
    counters = {"footnote": 0, "endnote": 0}
    refs = []
    paragraph: list[str] = []
    tags = (w("p"), w("t"), w("footnoteReference"), w("endnoteReference"))
    for node in index.of(*tags):
        if node.tag == w("p"):
            paragraph = []
        elif node.tag == w("t"):
            paragraph.append(node.text or "")
        for kind in ("footnote", "endnote"):
            if node.tag == w(f"{kind}Reference"):
                note_id = attr(node, "id") or ""
                counters[kind] += 1
                passage = " ".join("".join(paragraph).split()[-12:])
                text = texts[kind].get(note_id, "")
                refs.append(NoteRef(note_id, kind, counters[kind], text, passage))
    return refs


def _notes_text(package: Package, part: str, kind: str) -> dict[str, str]:
    root = package.xml(part)
    if root is None:
        return {}
    out = {}
    for note in root.iter(w(kind)):
        if attr(note, "type") in ("separator", "continuationSeparator", "continuationNotice"):
            continue
        out[attr(note, "id") or ""] = " ".join(" ".join(paragraphs_text(note)).split())
    return out


def comments(package: Package, index: BodyIndex) -> list[Artifact]:
    """Each comment with author, date, the text it is anchored to, and its replies."""
    part = package.xml("word/comments.xml")
    if part is None:
        return []
    anchors = _comment_anchors(index)
    points = _comment_points(index.root, {key for key, text in anchors.items() if text.strip()})
    para_to_comment: dict[str, str] = {}
    records = []
    for comment in part.iter(w("comment")):
        comment_id = attr(comment, "id") or ""
        paragraphs = list(comment.iter(w("p")))
        if paragraphs:
            para_id = paragraphs[-1].get(f"{{{W14}}}paraId")
            if para_id:
                para_to_comment[para_id] = comment_id
        records.append(
            {
                "id": comment_id,
                "author": attr(comment, "author") or "",
                "initials": attr(comment, "initials") or "",
                "date": attr(comment, "date") or "",
                "text": " ".join(" ".join(paragraphs_text(comment)).split()) or _pictures(comment),
                "anchor": " ".join(anchors.get(comment_id, "").split()),
                "paragraph": points.get(comment_id, ""),
            }
        )
    parents: dict[str, str] = {}
    extended = package.xml("word/commentsExtended.xml")
    if extended is not None:
        for entry in extended.iter(f"{{{W15}}}commentEx"):
            child = para_to_comment.get(entry.get(f"{{{W15}}}paraId", ""))
            parent = para_to_comment.get(entry.get(f"{{{W15}}}paraIdParent", ""))
            if child and parent:
                parents[child] = parent
    by_id = {record["id"]: record for record in records}
    artifacts = []
    for record in records:
        replied = by_id.get(parents.get(record["id"], ""))
        if replied is not None:
            record["reply_to"] = replied["id"]
            record["anchor"] = record["anchor"] or replied["anchor"]
            text = (
                f"Reply by {record['author']} ({record['date']}) to the comment by "
                f"{replied['author']} on “{record['anchor']}”: {record['text']}"
            )
        else:
            text = (
                f"Comment by {record['author']} ({record['date']}) on “{record['anchor']}”: "
                f"{record['text']}"
            )
        artifacts.append(
            Artifact(
                id=f"cmt-{record['id']}",
                category="Comment",
                kind="comment-reply" if replied is not None else "comment",
                modality="element",
                where=Locator(element=f"comment {record['id']} on", quoted=record["anchor"]),
                text=text,
                facts=record,
                group="Comments",
            )
        )
    return artifacts


def _pictures(element: etree._Element) -> str:
    """A stand-in for content that is only pictures, naming them."""
    names = [
        node.get("{urn:schemas-microsoft-com:office:office}title") or node.get("name") or "picture"
        for node in element.iter(f"{{{VML}}}imagedata", f"{{{PIC}}}cNvPr")
    ]
    return " ".join(f"[picture: {name}]" for name in names)


def _comment_points(root: etree._Element, ranged: set[str]) -> dict[str, str]:
    """For a comment anchored at a point (no text range), the paragraph holding its mark."""
    points: dict[str, str] = {}
    for reference in root.iter(w("commentReference")):
        comment_id = attr(reference, "id") or ""
        if comment_id in ranged or comment_id in points:
            continue
        paragraph = next(reference.iterancestors(w("p")), None)
        if paragraph is None:
            continue
        text = " ".join(text_of(paragraph).split())
        if not text:  # a paragraph holding only marks: name it by the paragraph before
            before = next(
                (
                    " ".join(text_of(p).split())
                    for p in paragraph.itersiblings(w("p"), preceding=True)
                    if text_of(p).strip()
                ),
                "",
            )
            text = f"after: {before}" if before else ""
        points[comment_id] = text
    return points


def _comment_anchors(index: BodyIndex) -> dict[str, str]:
    open_ids: list[str] = []
    anchors: dict[str, list[str]] = {}
    for node in index.of(w("commentRangeStart"), w("commentRangeEnd"), w("t"), w("p")):
        if node.tag == w("commentRangeStart"):
            comment_id = attr(node, "id") or ""
            open_ids.append(comment_id)
            anchors.setdefault(comment_id, [])
        elif node.tag == w("commentRangeEnd"):
            comment_id = attr(node, "id") or ""
            if comment_id in open_ids:
                open_ids.remove(comment_id)
        elif node.tag == w("t") and open_ids:
            for comment_id in open_ids:
                anchors[comment_id].append(node.text or "")
        elif node.tag == w("p") and open_ids:
            for comment_id in open_ids:
                anchors[comment_id].append(" ")
    return {key: "".join(parts) for key, parts in anchors.items()}


@dataclass
class _PartUse:
    """How the sections use one header or footer part."""

    kind: str  # header or footer
    type: str  # default, first or even
    sections: list[int] = field(default_factory=list)
    title_page: bool = False


def headers_footers(
    package: Package, index: BodyIndex, media: MediaWriter, ids: IdMaker
) -> list[Artifact]:
    """One artifact per header/footer part, naming its type and the sections using it."""
    rels = index.rels
    sections = index.of(w("sectPr"))
    uses: dict[str, _PartUse] = {}
    for number, section in enumerate(sections, start=1):
        title_page = section.find(w("titlePg")) is not None
        for kind in ("header", "footer"):
            for ref in section.iter(w(f"{kind}Reference")):
                rel = rels.get(ref.get(f"{{{R}}}id", ""))
                if rel is None:
                    continue
                part = Package.resolve(DOCUMENT, rel[1])
                entry = uses.setdefault(part, _PartUse(kind, attr(ref, "type") or "default"))
                entry.sections.append(number)
                entry.title_page = title_page
    artifacts: list[Artifact] = []
    for part, entry in sorted(uses.items(), key=lambda item: (item[1].sections[0], item[0])):
        xml = package.xml(part)
        if xml is None:
            continue
        kind = entry.kind
        owner = f"{'hdr' if kind == 'header' else 'ftr'}-{part.rsplit('/', 1)[-1][:-4]}"
        text, inner = _part_contents(package, part, xml, owner, media, ids)
        if not text:
            continue
        sections_list = entry.sections
        which = {"default": "default", "first": "first-page", "even": "even-page"}.get(
            entry.type, entry.type
        )
        span = ", ".join(str(n) for n in sections_list)
        artifacts.append(
            Artifact(
                id=owner,
                category=kind.capitalize(),
                kind=kind,
                modality="element",
                where=Locator(element=f"{which} {kind} of section {span}"),
                text=f"{which.capitalize()} {kind} (section {span}): {text}",
                facts={
                    "text": text,
                    "type": which,
                    "sections": sections_list,
                    "section_count": len(sections),
                    "title_page": entry.title_page,
                    "part": part,
                },
                group="Headers and footers",
            )
        )
        artifacts.extend(inner)
    return artifacts


M = "http://schemas.openxmlformats.org/officeDocument/2006/math"
PIC = "http://schemas.openxmlformats.org/drawingml/2006/picture"
VML = "urn:schemas-microsoft-com:vml"


def _part_contents(
    package: Package,
    part: str,
    xml: etree._Element,
    owner: str,
    media: MediaWriter,
    ids: IdMaker,
) -> tuple[str, list[Artifact]]:
    """A header/footer's text (text boxes, equations and pictures marked inline) and the
    text boxes, equations and images inside it as artifacts restated by the part."""
    inner: list[Artifact] = []
    pieces: list[str] = []
    rels = package.rels(part)
    skip = frozenset({f"{{{M}}}oMath", w("txbxContent")})
    for node in walk(xml):
        if node.tag == w("p") and not any(
            a.tag in (w("txbxContent"), f"{{{M}}}oMath") for a in node.iterancestors()
        ):
            pieces.append(text_of(node, skip))
        elif node.tag == w("txbxContent"):
            boxed = " ".join(" ".join(paragraphs_text(node)).split())
            if boxed:
                pieces.append(f"[Text box: {boxed}]")
                artifact_id = ids(f"tbx-{owner}", boxed)
                inner.append(
                    Artifact(
                        id=artifact_id,
                        category="Textbox",
                        kind="textbox",
                        modality="element",
                        where=Locator(element="text box", part=part),
                        text=f"[Text box: {boxed}]",
                        facts={"text": boxed, "name": "", "in": owner, "restated_by": [owner]},
                        group="Text boxes",
                    )
                )
        elif node.tag == f"{{{M}}}oMath" and (
            (up := node.getparent()) is None or up.tag != f"{{{M}}}oMathPara"
        ):
            pieces.append(_equation(node, owner, part, ids, inner))
        elif node.tag == f"{{{M}}}oMathPara":
            pieces.append(
                " ".join(_equation(m, owner, part, ids, inner) for m in node.iter(f"{{{M}}}oMath"))
            )
        elif node.tag in (f"{{{A}}}blip", f"{{{VML}}}imagedata"):
            rel_id = node.get(f"{{{R}}}embed") or node.get(f"{{{R}}}id") or ""
            rel = rels.get(rel_id)
            if rel is None or rel[2] == "External":
                continue
            media_part = Package.resolve(part, rel[1])
            if not package.has(media_part):
                continue
            name = media_part.rsplit("/", 1)[-1]
            media_path = media.write(f"{owner}-{name}", package.read(media_part))
            pieces.append(f"[Picture: {name}]")
            artifact_id = ids(f"img-{owner}", name)
            inner.append(
                Artifact(
                    id=artifact_id,
                    category="Image",
                    kind="image",
                    modality="visual",
                    where=Locator(element=f"picture {name}", part=part),
                    text=f"[Image in {owner}: {name}]",
                    media=media_path,
                    facts={"alt_text": "", "file": name, "in": owner, "restated_by": [owner]},
                    group="Images",
                )
            )
    # Paragraphs read on from one printed line to the next ("Towards a" / "working definition").
    text = " ".join(" ".join(piece.split()) for piece in pieces if piece.strip())
    return text, inner


def _equation(
    node: etree._Element, owner: str, part: str, ids: IdMaker, inner: list[Artifact]
) -> str:
    linear = "".join(t.text or "" for t in node.iter(f"{{{M}}}t"))
    artifact_id = ids(f"eq-{owner}", linear)
    inner.append(
        Artifact(
            id=artifact_id,
            category="Equation",
            kind="equation",
            modality="element",
            where=Locator(element="equation", part=part),
            text=f"[Equation: {linear}]",
            facts={
                "latex": linear,
                "display": False,
                "preceding_text": "",
                "in": owner,
                "restated_by": [owner],
            },
            group="Equations",
        )
    )
    return f"[Equation: {linear}]"


def textboxes(index: BodyIndex, ids: IdMaker) -> tuple[list[Artifact], dict[str, str]]:
    """Text boxes (mc:Fallback copies skipped) and a paragraph-text -> text box id map."""
    artifacts = []
    paragraph_owner: dict[str, str] = {}
    for node in index.of(w("txbxContent")):
        if node.tag != w("txbxContent"):
            continue
        lines = [line for line in paragraphs_text(node) if line]
        text = " ".join(" ".join(lines).split())
        if not text:
            continue
        name = _drawing_name(node)
        artifact_id = ids("tbx", text)
        for line in lines:
            paragraph_owner.setdefault(line, artifact_id)
        artifacts.append(
            Artifact(
                id=artifact_id,
                category="Textbox",
                kind="textbox",
                modality="element",
                where=Locator(element=f"text box {name}".strip()),
                text=f"[Text box{(' ' + name) if name else ''}: {text}]",
                facts={"text": text, "name": name, "paragraphs": lines},
                group="Text boxes",
            )
        )
    return artifacts, paragraph_owner


def _drawing_name(node: etree._Element) -> str:
    for ancestor in node.iterancestors():
        if ancestor.tag in (f"{{{WP}}}anchor", f"{{{WP}}}inline"):
            doc_pr = ancestor.find(f"{{{WP}}}docPr")
            if doc_pr is not None:
                return doc_pr.get("name", "")
    return ""


def videos(index: BodyIndex, ids: IdMaker) -> list[Artifact]:
    """Embedded online videos (wp15:webVideoPr) and linked video files (a:videoFile)."""
    rels = index.rels
    artifacts = []
    for node in index.of(f"{{{WP15}}}webVideoPr", f"{{{A}}}videoFile"):
        url = ""
        if node.tag == f"{{{WP15}}}webVideoPr":
            html = node.get("embeddedHtml", "")
            match = re.search(r'src="([^"]+)"', html)
            url = match.group(1) if match else html
        elif node.tag == f"{{{A}}}videoFile":
            rel = rels.get(node.get(f"{{{R}}}link", ""))
            url = rel[1] if rel else ""
        else:
            continue
        title, description = "", ""
        for ancestor in node.iterancestors():
            if ancestor.tag in (f"{{{WP}}}anchor", f"{{{WP}}}inline"):
                doc_pr = ancestor.find(f"{{{WP}}}docPr")
                if doc_pr is not None:
                    title = doc_pr.get("title", "") or doc_pr.get("name", "")
                    description = doc_pr.get("descr", "")
                break
        artifact_id = ids("vid", url)
        artifacts.append(
            Artifact(
                id=artifact_id,
                category="Video",
                kind="video",
                modality="element",
                where=Locator(element=f"embedded video {title}".strip()),
                text=f"Embedded video “{title}”: {url}"
                + (f" ({description})" if description else ""),
                facts={"url": url, "title": title, "description": description},
                group="Videos",
            )
        )
    return artifacts


def chart_parts(index: BodyIndex) -> list[str]:
    """Chart parts referenced from the body, in document order."""
    rels = index.rels
    parts = []
    for node in index.of(f"{{{C}}}chart"):
        if node.tag == f"{{{C}}}chart":
            rel = rels.get(node.get(f"{{{R}}}id", ""))
            if rel is not None:
                parts.append(Package.resolve(DOCUMENT, rel[1]))
    return parts
