"""Offline question rules for Word artifacts, one function per artifact kind.

Each rule states a fact the artifact carries as a question with atomic answer
statements, and sets the probe the leakage test uses: the answer value and the
anchor phrases that identify what is asked about.
"""

from __future__ import annotations

import re

from fidelity.model import Artifact, Candidate, Document
from generators.draft import candidate, quote
from generators.rules.common import cap, chart_questions, described, metadata_rule, table_cells

SENTENCE = re.compile(r"(?<=[.!?])\s+")
NUMBER = re.compile(r"(?<![\w.])\d[\d,.]*\d(?![\w])|(?<![\w.])\d{2,}(?![\w])")


def _text(document: Document, artifact: Artifact) -> list[Candidate]:
    heading = artifact.facts.get("heading") or ""
    plain = re.sub(r"⟦[^⟧]+⟧|[#*|>`_-]{1,}", " ", artifact.text)
    out = []
    for sentence in SENTENCE.split(" ".join(plain.split())):
        if len(out) >= cap(2) or not 40 <= len(sentence) <= 300:
            continue
        numbers = [n for n in NUMBER.findall(sentence) if n not in heading]
        if not numbers:
            continue
        number = numbers[0]
        blanked = sentence.replace(number, "____", 1)
        where = f"In the section “{quote(heading, 60)}”" if heading else "In the document"
        out.append(
            candidate(
                document,
                artifact,
                "text-cloze-number",
                f"{where}, which number fills the blank in: “{blanked}”?",
                [f"The missing number is {number}."],
                value=number,
                anchor=[blanked.replace("____", " ")],
            )
        )
    return out


def _table(document: Document, artifact: Artifact) -> list[Candidate]:
    number = artifact.id.split("-")[-1]
    heading = artifact.facts.get("heading") or ""
    where = f"table {number}" + (f" (under “{quote(heading, 50)}”)" if heading else "")
    out = []
    for row_header, column_header, value in table_cells(
        artifact.facts.get("rows", []), artifact.id
    ):
        out.append(
            candidate(
                document,
                artifact,
                "table-cell",
                f"In {where}, what is the value in the row “{row_header}” under the column "
                f"“{column_header}”?",
                [f"The value in row “{row_header}”, column “{column_header}” is {value}."],
                value=value,
                anchor=[row_header],
            )
        )
    return out


def _comment(document: Document, artifact: Artifact) -> list[Candidate]:
    facts = artifact.facts
    anchor = quote(facts.get("anchor", ""), 80)
    if not anchor:
        return []
    out = [
        candidate(
            document,
            artifact,
            "comment-text",
            f"What does the review comment attached to the text “{anchor}” say?",
            [f"The comment says: “{facts['text']}”."],
            value=facts["text"],
        )
    ]
    if facts.get("author"):
        out.append(
            candidate(
                document,
                artifact,
                "comment-author",
                f"Who wrote the review comment attached to the text “{anchor}”?",
                [f"The comment was written by {facts['author']}."],
                value=facts["author"],
                anchor=["comment", facts.get("text", "")],
            )
        )
    return out


def _reply(document: Document, artifact: Artifact) -> list[Candidate]:
    facts = artifact.facts
    anchor = quote(facts.get("anchor", ""), 80)
    if not anchor:
        return []
    return [
        candidate(
            document,
            artifact,
            "comment-reply",
            f"What does the reply in the comment thread on “{anchor}” say?",
            [f"The reply says: “{facts['text']}”."],
            value=facts["text"],
        )
    ]


def _hyperlink(document: Document, artifact: Artifact) -> list[Candidate]:
    facts = artifact.facts
    if facts.get("internal"):
        question = (
            f"Which bookmark inside the document does the link “{quote(facts['text'])}” jump to?"
        )
        value = facts["target"].lstrip("#")
    else:
        question = f"Which address does the hyperlink “{quote(facts['text'])}” point to?"
        value = facts["target"]
    return [
        candidate(
            document,
            artifact,
            "hyperlink-target",
            question,
            [f"The link “{facts['text']}” points to {value}."],
            value=value,
        )
    ]


def _header_footer(document: Document, artifact: Artifact) -> list[Candidate]:
    facts = artifact.facts
    kind = artifact.kind
    which = facts["type"]
    scope = (
        "the document"
        if facts.get("section_count", 1) == 1
        else "section " + ", ".join(str(n) for n in facts["sections"])
    )
    owner = f"{which} {kind}" if which != "default" else kind
    fields = re.findall(r"\{([A-Z]+)\}", facts["text"])
    if fields and len(re.sub(r"\{[A-Z]+\}|\W", "", facts["text"])) < 3:
        names = ", ".join(dict.fromkeys(fields))
        return [
            candidate(
                document,
                artifact,
                f"{kind}-field",
                f"Which automatic field does the {owner} of {scope} display?",
                [f"The {owner} displays the {names} field."],
                value=names,
                anchor=[kind],
            )
        ]
    return [
        candidate(
            document,
            artifact,
            f"{kind}-text",
            f"What text appears in the {owner} of {scope}?",
            [f"The {owner} reads “{facts['text']}”."],
            value=facts["text"],
        )
    ]


def _note(document: Document, artifact: Artifact) -> list[Candidate]:
    facts = artifact.facts
    kind = facts["note_kind"]
    passage = quote(facts.get("passage", ""), 80)
    where = f"attached to “{passage}”" if passage else f"numbered {facts['number']}"
    return [
        candidate(
            document,
            artifact,
            f"{kind}-text",
            f"What does the {kind} {where} say?",
            [f"The {kind} says: “{facts['text']}”."],
            value=facts["text"],
        )
    ]


def _equation(document: Document, artifact: Artifact) -> list[Candidate]:
    facts = artifact.facts
    before = quote(facts.get("preceding_text", ""), 60)
    where = f"right after the words “{before}”" if before else f"at {artifact.locator}"
    return [
        candidate(
            document,
            artifact,
            "equation-content",
            f"Which equation appears {where}? Give it in LaTeX.",
            [f"The equation is {facts['latex']}."],
            value=facts["latex"],
        )
    ]


def _textbox(document: Document, artifact: Artifact) -> list[Candidate]:
    boxes = [a for a in document.artifacts if a.kind == "textbox"]
    facts = artifact.facts
    if len(boxes) == 1:
        question = "What text does the document's floating text box contain?"
    else:
        position = boxes.index(artifact) + 1
        question = f"What text does text box {position} of {len(boxes)} (in reading order) contain?"
    return [
        candidate(
            document,
            artifact,
            "textbox-text",
            question,
            [f"The text box contains “{facts['text']}”."],
            value=facts["text"],
        )
    ]


def _video(document: Document, artifact: Artifact) -> list[Candidate]:
    facts = artifact.facts
    title = f" “{facts['title']}”" if facts.get("title") else ""
    return [
        candidate(
            document,
            artifact,
            "video-url",
            f"What is the address of the embedded video{title}?",
            [f"The embedded video links to {facts['url']}."],
            value=facts["url"],
        )
    ]


def _image(document: Document, artifact: Artifact) -> list[Candidate]:
    alt = artifact.facts.get("alt_text") or ""
    if not described(alt):
        return []
    return [
        candidate(
            document,
            artifact,
            "image-alt-text",
            f"What description (alt text) is given for the image at {artifact.locator}?",
            [f"The image is described as “{alt}”."],
            value=alt,
        )
    ]


_metadata = metadata_rule(
    "document",
    lambda label: f"What {label.lower()} is recorded in the document's properties?",
)


def _font_heading(document: Document, artifact: Artifact) -> list[Candidate]:
    facts = artifact.facts
    subject = quote(facts["subject"], 70)
    out = []
    if facts.get("font"):
        out.append(
            candidate(
                document,
                artifact,
                "font-typeface",
                f"Which typeface is the heading “{subject}” set in?",
                [f"The heading “{subject}” uses the {facts['font']} typeface."],
                value=facts["font"],
                anchor=[facts["subject"]],
            )
        )
    if facts.get("size_pt"):
        size = f"{facts['size_pt']:g} pt"
        out.append(
            candidate(
                document,
                artifact,
                "font-size",
                f"What font size is the heading “{subject}”?",
                [f"The heading “{subject}” is {size}."],
                value=size,
                anchor=[facts["subject"]],
            )
        )
    return out


def _font_body(document: Document, artifact: Artifact) -> list[Candidate]:
    facts = artifact.facts
    if not facts.get("font"):
        return []
    return [
        candidate(
            document,
            artifact,
            "font-body",
            "Which typeface does the document's body text (its default paragraph style) use?",
            [f"The body text uses {facts['font']}."],
            value=facts["font"],
            anchor=["body text font"],
        )
    ]


def _font_span(document: Document, artifact: Artifact) -> list[Candidate]:
    facts = artifact.facts
    subject = quote(facts["subject"], 70)
    differs = facts.get("differs", [])
    if "font" in differs and facts.get("font"):
        question, value = f"Which typeface is the text “{subject}” set in?", facts["font"]
        answer = f"The text “{subject}” is set in {value}."
    elif "color" in differs and facts.get("color"):
        question, value = f"What font colour (hex) is the text “{subject}”?", f"#{facts['color']}"
        answer = f"The text “{subject}” is coloured {value}."
    elif "size_pt" in differs and facts.get("size_pt"):
        question, value = f"What font size is the text “{subject}”?", f"{facts['size_pt']:g} pt"
        answer = f"The text “{subject}” is {value}."
    else:
        styles = [s for s in ("bold", "italic") if facts.get(s)]
        if facts.get("underline"):
            styles.append("underlined")
        if not styles:
            return []
        value = " and ".join(styles)
        question = f"Which emphasis (bold, italic, underline) is applied to the text “{subject}”?"
        answer = f"The text “{subject}” is {value}."
    if value.casefold() in subject.casefold():
        return []
    return [
        candidate(
            document,
            artifact,
            "font-span",
            question,
            [answer],
            value=value,
            anchor=[facts["subject"]],
        )
    ]


def _highlight(document: Document, artifact: Artifact) -> list[Candidate]:
    facts = artifact.facts
    subject, colour = facts["subject"], facts["value"]
    paragraph = quote(facts.get("paragraph", ""), 60)
    return [
        candidate(
            document,
            artifact,
            "highlight-text",
            f"In the paragraph beginning “{paragraph}”, which words are highlighted in {colour}?",
            [f"The highlighted words are “{subject}”."],
            value=subject,
            anchor=["highlighted", colour],
        ),
        candidate(
            document,
            artifact,
            "highlight-colour",
            f"What highlight colour is applied to the text “{quote(subject, 70)}”?",
            [f"The text is highlighted in {colour}."],
            value=colour,
            anchor=["highlighted", subject],
        ),
    ]


def _strikeout(document: Document, artifact: Artifact) -> list[Candidate]:
    facts = artifact.facts
    paragraph = quote(facts.get("paragraph", ""), 60)
    return [
        candidate(
            document,
            artifact,
            "strikeout-text",
            f"In the paragraph beginning “{paragraph}”, which text is struck through?",
            [f"The struck-through text is “{facts['subject']}”."],
            value=facts["subject"],
            anchor=["struck through"],
        )
    ]


def _layout_section(document: Document, artifact: Artifact) -> list[Candidate]:
    facts = artifact.facts
    sections = sum(1 for a in document.artifacts if a.kind == "layout-section")
    number = facts["section"]
    scope = "the document" if sections == 1 else f"section {number}"
    anchor = "section" if sections == 1 else f"section {number}"
    out = []
    if facts.get("orientation"):
        out.append(
            candidate(
                document,
                artifact,
                "layout-orientation",
                f"Which page orientation and paper size does {scope} use?",
                [
                    f"{scope.capitalize()} uses {facts['orientation']} orientation.",
                    f"{scope.capitalize()} uses {facts['paper']} paper.",
                ],
                value=f"{facts['orientation']} orientation",
                anchor=[anchor],
            )
        )
    columns = facts.get("columns", 1)
    out.append(
        candidate(
            document,
            artifact,
            "layout-columns",
            f"How many text columns is {scope} laid out in?",
            [f"{scope.capitalize()} is laid out in {columns} column{'s' if columns != 1 else ''}."],
            value=f"{columns} text column{'s' if columns != 1 else ''}",
            anchor=[anchor],
        )
    )
    return out


def _layout_paragraph(document: Document, artifact: Artifact) -> list[Candidate]:
    facts = artifact.facts
    subject = quote(facts["subject"], 70)
    keys = ("alignment", "indent_left", "indent_first-line", "indent_hanging", "line_spacing")
    key = next((name for name in keys if name in facts), None)
    if key is None:
        return []
    if key == "alignment":
        question = f"How is the paragraph “{subject}” aligned?"
    else:
        question = f"What indentation or line spacing is applied to the paragraph “{subject}”?"
    return [
        candidate(
            document,
            artifact,
            f"layout-{key}",
            question,
            [f"The paragraph is {facts[key]}."],
            value=facts[key],
            anchor=[facts["subject"]],
        )
    ]


RULES = {
    "text": _text,
    "table": _table,
    "comment": _comment,
    "comment-reply": _reply,
    "hyperlink": _hyperlink,
    "header": _header_footer,
    "footer": _header_footer,
    "footnote": _note,
    "endnote": _note,
    "equation": _equation,
    "textbox": _textbox,
    "video": _video,
    "image": _image,
    "chart": chart_questions,
    "metadata": _metadata,
    "font-heading": _font_heading,
    "font-body": _font_body,
    "font-span": _font_span,
    "highlight": _highlight,
    "strikeout": _strikeout,
    "layout-section": _layout_section,
    "layout-paragraph": _layout_paragraph,
}
