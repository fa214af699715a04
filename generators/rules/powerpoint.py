"""Offline question rules for PowerPoint artifacts, one function per artifact kind.

Each probe's value is the answer span and its anchors are phrases the artifact's text
writes next to it ("fill colour", "Layout of slide 3", a shape's [name], a row label),
so the leakage test judges whether a view still states the fact. Slides are named by
number, shapes by their name in brackets, as the extracted deck shows them.
"""

from __future__ import annotations

import re

from fidelity.core.document import Artifact, Candidate, Document
from fidelity.core.office_names import LAYOUT_NAMES, PRESET_NAMES
from fidelity.core.text import content_tokens, normalize
from generators.draft import candidate, quote
from generators.rules.common import (
    CLOZE_SENTENCE,
    ORDINAL_WORDS,
    Rule,
    chart_questions,
    cloze_spans,
    described,
    is_sentence,
    labelled,
    metadata_rule,
    pick,
    table_cell_question,
    table_cells,
    table_comparison,
)
from generators.rules.restated import grounded_metadata, printed_properties
from generators.rules.shape_names import shape_phrase, slide_shapes

PER_SLIDE = 3
# Geometry and SmartArt layout names as Office shows them; anything else is an internal id.
DISPLAYED_GEOMETRIES = frozenset(PRESET_NAMES.values())
DISPLAYED_LAYOUTS = frozenset(LAYOUT_NAMES.values())
FOOTER_KINDS = ("date placeholder", "footer placeholder", "slide number placeholder")
TITLE_ROLES = ("title", "ctrTitle")
HIDDEN_WORDS = ("hidden", "hide")
DEFAULT_FILL_THEME = "accent1"
GRADIENT = re.compile(r"^gradient \((.+)\)$")
# The fewest letters a run needs for its language tag to be a question ("β" is a symbol).
LANGUAGE_RUN_LETTERS = 3


def _a(noun: str) -> str:
    """The noun with its indefinite article."""
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"


def _upper_first(phrase: str) -> str:
    """The phrase with a capital first letter, its quoted text untouched ("The text box
    reading “IHEP (2010)”", where str.capitalize would lower-case the quote)."""
    return phrase[:1].upper() + phrase[1:]


def _slide(artifact: Artifact) -> int:
    return int(artifact.facts.get("slide", 0))


def _rank(document: Document, artifact: Artifact) -> int:
    """Position of the artifact among those of its kind on the same slide."""
    same = [
        a.id
        for a in document.artifacts
        if a.kind == artifact.kind and _slide(a) == _slide(artifact)
    ]
    return same.index(artifact.id)


def _name(artifact: Artifact) -> str:
    """The shape's internal name as the extracted deck writes it (for probe anchors only)."""
    return f"[{artifact.facts.get('shape_name', '')}]"


def _called(document: Document, artifact: Artifact, by_text: bool = True) -> str | None:
    """The shape as a reader of its slide names it, or None when nothing singles it out."""
    shapes = slide_shapes(document, _slide(artifact))
    return shape_phrase(shapes, artifact.facts.get("shape_name", ""), by_text=by_text)


def _says(text: str, words: str) -> bool:
    """True when `text` carries every word of `words` (normalised, as whole words)."""
    have = set(normalize(text).split())
    return bool(have) and set(normalize(words).split()) <= have


def _slide_texts(document: Document, slide: int, skip: str = "") -> str:
    """Everything the slide's own text artifacts show (titles, boxes, shapes, tables, notes)."""
    return "\n".join(
        a.text
        for a in document.artifacts
        if a.id != skip
        and _slide(a) == slide
        and (a.modality in ("text", "table") or a.kind == "note")
    )


def _slide_title(document: Document, slide: int) -> str:
    for a in document.artifacts:
        if a.kind == "slide-text" and _slide(a) == slide and a.facts.get("role") in TITLE_ROLES:
            return " ".join(a.facts.get("plain", "").split())
    return ""


def _shown(document: Document, slide: int) -> str:
    """All the text the slide's shapes show."""
    return "\n".join(slide_shapes(document, slide).texts.values())


def _whole(text: str, shown: str) -> int:
    """How often `text` stands in `shown` as whole words (not cut out of a longer word)."""
    return len(re.findall(rf"(?<!\w){re.escape(text)}(?!\w)", shown))


def _only_one(document: Document, artifact: Artifact) -> bool:
    """True when no other artifact of the same kind sits on the same slide."""
    return not any(
        a.kind == artifact.kind and _slide(a) == _slide(artifact) and a.id != artifact.id
        for a in document.artifacts
    )


def _cloze_questions(
    document: Document,
    artifact: Artifact,
    text: str,
    where: str,
    question_type: str,
    spans: list[tuple[str, str]] | None = None,
) -> list[Candidate]:
    """A cloze per (sentence with a blank, blanked span) of `text` (`spans` when the caller
    has cut them already)."""
    out = []
    for blanked, span in cloze_spans(text) if spans is None else spans:
        out.append(
            candidate(
                document,
                artifact,
                question_type,
                f"{where}, what fills the blank in: “{blanked}”?",
                [f"The missing text is “{span}”."],
                value=span,
                anchor=[blanked.replace("____", " ")],
            )
        )
    return out


def slide_text(document: Document, artifact: Artifact) -> list[Candidate]:
    facts = artifact.facts
    slide = _slide(artifact)
    out = []
    if facts.get("role") in TITLE_ROLES:
        title = " ".join(facts.get("plain", "").split())
        duplicates = [
            a
            for a in document.artifacts
            if a.kind == "slide-text"
            and a.id != artifact.id
            and " ".join(a.facts.get("plain", "").split()) == title
        ]
        titles = [
            a
            for a in document.artifacts
            if a.kind == "slide-text"
            and _slide(a) == slide
            and a.facts.get("role") in TITLE_ROLES
            and a.id != artifact.id
        ]
        own_number = re.search(rf"\bslide\s*{slide}\b", title, re.IGNORECASE)
        if own_number is None and 3 <= len(title) <= 120 and not duplicates and not titles:
            out.append(
                candidate(
                    document,
                    artifact,
                    "slide-title",
                    f"What is the title of slide {slide}?",
                    [f"The title of slide {slide} is “{title}”."],
                    value=title,
                    anchor=["title"],
                )
            )
        return out
    plain = facts.get("plain", "")
    spans = cloze_spans(plain)
    clozes = _cloze_questions(
        document, artifact, plain, f"On slide {slide}", "slide-text-cloze", spans
    )
    quoted = [" ".join(blanked.replace("____", span).split()) for blanked, span in spans]
    return clozes + _bullet(document, artifact, quoted)


# A bulleted list a reader counts down: three to eight top-level points of a few words each.
BULLETS_LEAST, BULLETS_MOST, BULLET_WORDS = 3, 8, 20


def _bullet(document: Document, artifact: Artifact, quoted: list[str]) -> list[Candidate]:
    """The n-th top-level bullet point of the one bulleted list on its slide (a point said
    once in the deck, and not the sentence a cloze of the slide already quotes): reading the
    list in order answers it, nothing else does."""
    slide = _slide(artifact)
    points = _top_bullets(artifact)
    lists = [a for a in document.artifacts if a.kind == "slide-text" and _slide(a) == slide]
    bulleted = [
        a for a in lists if sum(1 for p in a.facts.get("paragraphs", []) if p.get("bullet")) > 1
    ]
    if not points or len(bulleted) != 1:
        return []  # two bulleted lists on the slide: "the list" names neither
    number = 1 + pick(f"{artifact.id}:bullet", len(points))
    text = points[number - 1]
    if _occurs(document, text) > 1 or any(sentence in text for sentence in quoted):
        return []  # said twice in the deck, or the sentence a cloze of the slide quotes
    return [
        candidate(
            document,
            artifact,
            "slide-bullet",
            f"On slide {slide}, what does the {ORDINAL_WORDS[number - 1]} top-level bullet "
            "point of the bulleted list say?",
            [f"The {ORDINAL_WORDS[number - 1]} bullet point reads “{text}”."],
            value=text,
            anchor=[],
        )
    ]


def _top_bullets(artifact: Artifact) -> list[str]:
    """The texts of an artifact's top-level bullet points when they make a readable list."""
    points = [
        " ".join(str(p.get("text") or "").split())
        for p in artifact.facts.get("paragraphs", [])
        if p.get("level") == 0 and p.get("bullet")
    ]
    if not BULLETS_LEAST <= len(points) <= BULLETS_MOST:
        return []
    if any(not point or len(point.split()) > BULLET_WORDS for point in points):
        return []
    return points


def _occurs(document: Document, text: str) -> int:
    """How many text lines of the deck read `text` (case and spacing aside)."""
    wanted = normalize(text)
    return sum(
        normalize(line) == wanted
        for a in document.artifacts
        if a.kind in ("slide-text", "shape-text", "note")
        for line in str(a.facts.get("plain") or a.text).splitlines()
    )


def shape_text(document: Document, artifact: Artifact) -> list[Candidate]:
    facts = artifact.facts
    slide = _slide(artifact)
    text = facts.get("plain", "")
    called = _called(document, artifact, by_text=False)
    if "\n" not in text and 3 <= len(text) <= 100 and _rank(document, artifact) < PER_SLIDE:
        shapes = slide_shapes(document, slide)
        name = facts.get("shape_name", "")
        own = {normalize(shapes.geometries.get(name, "")), normalize(shapes.noun(name))}
        if called is None or normalize(text) in own:  # a shape reading "Oval" names itself
            return []
        if printed_properties(document, text):
            return []  # a box printing the deck's title or author: the properties state it
        return [
            candidate(
                document,
                artifact,
                "shape-text",
                f"What text is written inside {called} on slide {slide}?",
                [f"{_upper_first(called)} on slide {slide} reads “{text}”."],
                value=text,
                anchor=[_name(artifact)],
                notes=[f"shape named by its kind or geometry: {called}"],
            )
        ]
    return _cloze_questions(document, artifact, text, f"On slide {slide}", "shape-text-cloze")


def shape_style(document: Document, artifact: Artifact) -> list[Candidate]:
    facts = artifact.facts
    if _rank(document, artifact) >= PER_SLIDE:
        return []
    slide = _slide(artifact)
    raw = facts.get("text", "")
    text = " ".join(raw.split())
    same_text = [
        a
        for a in document.artifacts
        if a.kind == "shape-style"
        and _slide(a) == slide
        and a.id != artifact.id
        and " ".join(a.facts.get("text", "").split()) == text
    ]
    if text and "\n" not in raw.strip() and not same_text and len(text) <= 120:
        subject = f"the shape holding the text “{quote(text, 60)}”"
        anchor = [quote(text, 60).rstrip("…")]
    else:
        called = _called(document, artifact, by_text=not same_text)
        if called is None:
            return []
        subject = called
        anchor = [_name(artifact)]
    out = []
    geometry = facts.get("geometry_name") or ""
    # An internal name that spells the geometry ("Oval 3") states the answer elsewhere in
    # the file (the selection pane, the slide structure), so that question is not asked.
    name_words = set(normalize(facts.get("shape_name", "")).split())
    named_after = set(normalize(geometry).split()) <= name_words
    # Text that names the shape's own geometry or colour ("Red box", "Arrow") states the answer.
    geometry_noun = normalize(geometry).split()[-1:] if geometry else []
    told = bool(geometry_noun) and _says(raw, geometry_noun[0])
    if (
        text
        and geometry in DISPLAYED_GEOMETRIES
        and geometry != "rectangle"
        and not named_after
        and not told
    ):
        out.append(
            candidate(
                document,
                artifact,
                "shape-type",
                f"What type of shape (preset geometry) is {subject} on slide {slide}?",
                [f"It is {_a(geometry)} shape."],
                value=geometry,
                anchor=[*anchor, "shape geometry"],
            )
        )
    gradient = GRADIENT.match(str(facts.get("fill") or ""))
    if gradient and not any(_says(raw, name) for name in gradient.group(1).split(" to ")):
        out.append(
            candidate(
                document,
                artifact,
                "shape-gradient",
                f"What fill does {subject} on slide {slide} have?",
                [f"It has a gradient fill running from {gradient.group(1)}."],
                value=gradient.group(1),
                anchor=[*anchor, "fill colour"],
                notes=["a gradient fill: its colours, not one colour"],
            )
        )
    # A fill from the shape's style reference in accent 1 is what every new shape gets.
    default_fill = facts.get("fill_from_style") and facts.get("fill_theme") == DEFAULT_FILL_THEME
    if (
        facts.get("fill_name")
        and not _says(raw, facts["fill_name"])
        and not default_fill
        and not _fill_told_elsewhere(document, artifact, text)
    ):
        out.append(
            candidate(
                document,
                artifact,
                "shape-fill",
                f"What is the fill colour of {subject} on slide {slide}?",
                [f"Its fill colour is {facts['fill_name']} (#{facts['fill']})."],
                value=facts["fill_name"],
                anchor=[*anchor, "fill colour"],
            )
        )
    return out


def _fill_told_elsewhere(document: Document, artifact: Artifact, text: str) -> bool:
    """Another shape states the fill: the same text with the same fill on another slide (a
    copied slide), or every other shape of its slide wears it too (three or more)."""
    fill = artifact.facts.get("fill")
    slide = _slide(artifact)
    others = [a for a in document.artifacts if a.kind == "shape-style" and a.id != artifact.id]
    twin = any(
        " ".join(a.facts.get("text", "").split()) == text and a.facts.get("fill") == fill
        for a in others
        if text and _slide(a) != slide
    )
    neighbours = [a for a in others if _slide(a) == slide and a.facts.get("fill")]
    uniform = len(neighbours) >= 2 and all(a.facts.get("fill") == fill for a in neighbours)
    return twin or uniform


def hyperlink(document: Document, artifact: Artifact) -> list[Candidate]:
    facts = artifact.facts
    slide = _slide(artifact)
    target, text = facts["target"], facts.get("text", "")
    if facts.get("link_kind") == "media":
        return []  # clicking a video's poster frame plays it: nothing a link leads to
    if normalize(text) and (
        normalize(text) in normalize(target) or normalize(target) in normalize(text)
    ):
        return []
    if facts.get("link_kind") == "slide" and _names_slide(document, facts["target_slide"], text):
        return []  # "Budget overview" jumps to the slide titled so: the title gives it away
    if facts.get("link_kind") == "slide" and text:
        question = f"Which slide does the link on “{quote(text, 60)}” (slide {slide}) jump to?"
        answer = f"It jumps to {target}."
    elif (called := _called(document, artifact)) is None:
        return []
    elif facts.get("link_kind") == "slide":
        question = f"Which slide does clicking {called} on slide {slide} jump to?"
        answer = f"It jumps to {target}."
    elif text:
        question = (
            f"Where does the hyperlink on the text “{quote(text, 60)}” on slide {slide} lead?"
        )
        answer = f"It links to {target}."
    else:
        question = f"What does clicking {called} on slide {slide} open?"
        answer = f"Clicking it opens {target}."
    anchor = [quote(text, 60).rstrip("…")] if text else [_name(artifact), "clicking the shape"]
    return [
        candidate(
            document,
            artifact,
            f"hyperlink-{facts['link_kind']}",
            question,
            [answer],
            value=target,
            anchor=anchor,
        )
    ]


def _names_slide(document: Document, slide: int | None, text: str) -> bool:
    """The link's words are the target slide's title words, or the title's are the link's."""
    title = set(content_tokens(_slide_title(document, slide))) if slide else set()
    words = set(content_tokens(text))
    return bool(title and words) and (words <= title or title <= words)


def text_highlight(document: Document, artifact: Artifact) -> list[Candidate]:
    facts = artifact.facts
    slide = _slide(artifact)
    color, text = facts["color_name"], facts["text"].strip()
    shown = _shown(document, slide)
    found = _whole(text, shown)
    if text and text in shown and not found:
        return []  # part of a word ("ighl" of "highlight"): no text a reader can quote
    same_color = [
        a
        for a in document.artifacts
        if a.kind == "text-highlight"
        and a.id != artifact.id
        and _slide(a) == slide
        and a.facts.get("color_name") == color
    ]
    if same_color or len(text) < 3:
        if found > 1:
            return []  # the quoted text stands twice on the slide: which one is meant?
        return [
            candidate(
                document,
                artifact,
                "highlight-colour",
                f"In which colour is the text “{quote(text, 60)}” highlighted on slide {slide}?",
                [f"It is highlighted in {color} (#{facts['color']})."],
                value=color,
                anchor=[text, "highlighted in"],
            )
        ]
    return [
        candidate(
            document,
            artifact,
            "highlight-text",
            f"Which text on slide {slide} is highlighted in {color}?",
            [f"The text “{text}” is highlighted in {color}."],
            value=text,
            anchor=[f"highlighted in {color}"],
        )
    ]


def equation(document: Document, artifact: Artifact) -> list[Candidate]:
    formula = artifact.facts["equation"]
    slide = _slide(artifact)
    if not _only_one(document, artifact):
        called = _called(document, artifact, by_text=False)
        if called is None:
            return []
        where = f"in {called} on slide {slide}"
    else:
        where = f"on slide {slide}"
    return [
        candidate(
            document,
            artifact,
            "equation",
            f"What equation is shown {where}?",
            [f"The equation is {formula}."],
            value=formula,
            anchor=["equation"],
        )
    ]


def _table_name(document: Document, artifact: Artifact) -> str | None:
    """'the table on slide 3' when the slide holds one table, else the table named by its
    first cell when no other table of the slide starts with the same text; else None."""
    slide = _slide(artifact)
    if _only_one(document, artifact):
        return f"the table on slide {slide}"
    first = _first_cell(artifact)
    others = [
        _first_cell(a)
        for a in document.artifacts
        if a.kind == "table" and _slide(a) == slide and a.id != artifact.id
    ]
    if first and first not in others and len(first) <= 60:
        return f"the table on slide {slide} that begins with “{first}”"
    return None


def _first_cell(artifact: Artifact) -> str:
    rows = artifact.facts.get("rows") or [[]]
    return rows[0][0].strip() if rows[0] else ""


def table(document: Document, artifact: Artifact) -> list[Candidate]:
    where = _table_name(document, artifact)
    if where is None:
        return []
    facts = artifact.facts
    header = facts.get("header_row", True) is not False
    rows = facts.get("grid") or facts.get("rows", [])
    cells = table_cells(rows, artifact.id, limit=2, header=header)
    out = [table_cell_question(document, artifact, where, cell) for cell in cells]
    return out + table_comparison(document, artifact, where, rows, header)


def table_cell_colors(document: Document, artifact: Artifact) -> list[Candidate]:
    facts = artifact.facts
    where = _table_name(document, artifact)
    if where is None:
        return []
    out = []
    cells = [
        c
        for c in facts.get("cells", [])
        if labelled(c["row_label"]) and labelled(c["column_label"])
    ]
    if facts.get("cells"):
        out.append(
            candidate(
                document,
                artifact,
                "table-usual-fill",
                f"Which fill colour do most cells of {where} have?",
                [f"Most cells are filled {facts['common_color_name']} (#{facts['common_color']})."],
                value=facts["common_color_name"],
                anchor=["most cells are"],
            )
        )
    for index in sorted(
        {pick(f"{artifact.id}:{i}", len(cells)) for i in range(2)} if cells else []
    ):
        cell = cells[index]
        out.append(
            candidate(
                document,
                artifact,
                "table-cell-fill",
                f"In {where}, what fill colour does the cell "
                f"in row “{quote(cell['row_label'], 40)}”, column "
                f"“{quote(cell['column_label'], 40)}” have?",
                [f"That cell is filled {cell['color_name']} (#{cell['color']})."],
                value=cell["color_name"],
                anchor=[
                    "fill colour",
                    f"row “{cell['row_label']}”",
                    f"column “{cell['column_label']}”",
                ],
            )
        )
    return out


def image(document: Document, artifact: Artifact) -> list[Candidate]:
    alt = artifact.facts.get("alt_text", "")
    kind = artifact.facts.get("media_kind") or "picture"
    shapes = slide_shapes(document, _slide(artifact))
    pictures = [n for n in shapes.kinds if shapes.noun(n) == "picture"]
    alone = _only_one(document, artifact) and len(pictures) <= 1
    called = f"the {kind}" if alone else _called(document, artifact)
    if not described(alt) or called is None:
        return []
    slide = _slide(artifact)
    return [
        candidate(
            document,
            artifact,
            "image-alt-text",
            f"What alternative text describes {called} on slide {slide}?",
            [f"Its alt text is “{alt}”."],
            value=alt,
            anchor=[_name(artifact), "alt text"],
        )
    ]


def smartart(document: Document, artifact: Artifact) -> list[Candidate]:
    facts = artifact.facts
    slide = _slide(artifact)
    if not _only_one(document, artifact):
        return []
    where = f"the SmartArt diagram on slide {slide}"
    out = []
    if facts["layout_name"] in DISPLAYED_LAYOUTS:
        out.append(
            candidate(
                document,
                artifact,
                "smartart-type",
                f"Which SmartArt layout does {where} use?",
                [f"It uses the {facts['layout_name']} layout ({facts['category']})."],
                value=facts["layout_name"],
                anchor=["SmartArt diagram, layout"],
            )
        )
    texts = [node["text"] for node in facts.get("tree", [])]
    if texts:
        out.append(
            candidate(
                document,
                artifact,
                "smartart-text",
                f"What is the first item of {where}?",
                [f"The first item is “{texts[0]}”."],
                value=texts[0],
                anchor=["SmartArt item"],
            )
        )
    return out


def smartart_structure(document: Document, artifact: Artifact) -> list[Candidate]:
    facts = artifact.facts
    slide = _slide(artifact)
    relations = facts.get("relations", [])
    counts: dict[str, int] = {}
    for relation in relations:
        counts[relation["item"]] = counts.get(relation["item"], 0) + 1
    out: list[Candidate] = []
    if not _only_one(document, artifact):
        return []
    where = f"the SmartArt diagram on slide {slide}"
    for relation in relations:
        if len(out) >= 2 or counts[relation["item"]] > 1 or not relation["other"]:
            continue
        item, other = relation["item"], relation["other"]
        if relation["relation"] == "under" and facts["structure"] == "hierarchy":
            question = f"In {where}, which item is directly above “{item}” in the hierarchy?"
            answer, value, anchor = (
                f"“{item}” sits directly under “{other}”.",
                other,
                [item, "directly under"],
            )
        elif relation["relation"] == "under":
            question = f"In {where}, under which item is “{item}” listed?"
            answer, value, anchor = (
                f"“{item}” is listed under “{other}”.",
                other,
                [item, "listed under"],
            )
        elif relation["relation"] == "after":
            question = f"In {where}, which step comes right after “{other}”?"
            answer, value, anchor = (
                f"“{item}” comes right after “{other}”.",
                item,
                [other, "right after"],
            )
        else:
            question = f"In {where}, which step follows the last step “{other}” in the cycle?"
            answer, value, anchor = f"The cycle returns to “{item}”.", item, [other, "returns to"]
        out.append(
            candidate(
                document,
                artifact,
                f"smartart-{relation['relation']}",
                question,
                [answer],
                value=value,
                anchor=anchor,
            )
        )
    return out


def ink(document: Document, artifact: Artifact) -> list[Candidate]:
    facts = artifact.facts
    slide = _slide(artifact)
    inks = [a for a in document.artifacts if a.kind == "ink" and _slide(a) == slide]
    out = []
    colours = list(dict.fromkeys(name for a in inks for name in a.facts.get("color_names", [])))
    if inks[0].id == artifact.id and len(inks) > 1 and colours != ["black"]:
        out.append(
            candidate(
                document,
                artifact,
                "ink-colours",
                f"Which pen colours are the handwritten ink drawings on slide {slide} drawn in?",
                [f"Ink on slide {slide} is drawn in {colour}." for colour in colours],
                value=next(c for c in colours if c != "black"),  # the colour no one guesses
                anchor=[f"on slide {slide}", "pen colour"],
                notes=[f"list answer over the {len(inks)} ink drawings of the slide"],
            )
        )
    if len(inks) != 1:
        return out
    where = f"the ink drawing on slide {slide}"
    recognized = facts.get("recognized", "")
    if len(normalize(recognized).replace(" ", "")) >= 3:
        out.append(
            candidate(
                document,
                artifact,
                "ink-text",
                f"What does the handwriting of {where} read?",
                [f"It reads “{recognized}”."],
                value=recognized,
                anchor=[_name(artifact), f"on slide {slide}", "handwriting recognised as"],
            )
        )
    position = re.search(r"at (left [\d.]+ in, top [\d.]+ in)", artifact.text)
    if position:
        out.append(
            candidate(
                document,
                artifact,
                "ink-position",
                f"Where is the top-left corner of {where} (offsets from the slide's left and "
                "top edges)?",
                [f"It starts at {position.group(1)}."],
                value=position.group(1),
                anchor=[_name(artifact), f"on slide {slide}"],
            )
        )
    names = facts.get("color_names", [])
    if names and names[0] != "black":  # black is the default pen: guessable
        out.append(
            candidate(
                document,
                artifact,
                "ink-colour",
                f"What pen colour is {where} drawn in?",
                [f"It is drawn in {names[0]} (#{facts['colors'][0]})."],
                value=names[0],
                anchor=[_name(artifact), f"on slide {slide}", "pen colour"],
            )
        )
    return out


def _overlap(box: list[int] | None, other: list[int] | None) -> bool:
    """Whether two shapes' boxes (x, y, width, height in EMU) share any area; unknown boxes
    (a placeholder placed by its layout) do not count."""
    if not box or not other:
        return False
    x, y, width, height = box
    ox, oy, owidth, oheight = other
    return x < ox + owidth and ox < x + width and y < oy + oheight and oy < y + height


def slide_structure(document: Document, artifact: Artifact) -> list[Candidate]:
    facts = artifact.facts
    slide = _slide(artifact)
    shapes = slide_shapes(document, slide)
    out = []
    default_first = slide == 1 and facts.get("layout") == "Title Slide"
    layout, title = normalize(facts.get("layout") or ""), normalize(_slide_title(document, slide))
    # A layout named like the slide's title ("Agenda" on the slide titled "Agenda") is stated
    # on the slide itself.
    titled = bool(layout and title) and (layout in title or title in layout)
    if facts.get("layout") and not default_first and not titled:
        out.append(
            candidate(
                document,
                artifact,
                "slide-layout",
                f"Which slide layout does slide {slide} use?",
                [f"Slide {slide} uses the “{facts['layout']}” layout."],
                value=facts["layout"],
                anchor=[f"Layout of slide {slide}"],
            )
        )
    top = [s for s in facts.get("shapes", []) if s["group"] is None]
    # Frontmost means something to a reader only where the front shape covers another one.
    covering = len(top) >= 2 and any(_overlap(top[-1]["box"], s["box"]) for s in top[:-1])
    front = shape_phrase(shapes, top[-1]["name"]) if covering else None
    if front and not top[-1]["kind"].startswith(FOOTER_KINDS):
        out.append(
            candidate(
                document,
                artifact,
                "z-order-front",
                f"Which shape on slide {slide} is frontmost (top of the stacking order)?",
                [f"The frontmost shape is {front}."],
                value=top[-1]["name"],
                anchor=["frontmost", f"on slide {slide}"],
            )
        )
    for group in (s for s in facts.get("shapes", []) if s["members"]):
        members = [shape_phrase(shapes, m) for m in group["members"]]
        if None in members or len(members) < 2:
            continue
        first, rest = members[0], members[1:]
        listed = "; ".join(str(m) for m in rest)
        out.append(
            candidate(
                document,
                artifact,
                "group-members",
                f"On slide {slide}, which shapes are grouped together with {first}?",
                [f"{_upper_first(str(m))} is grouped with {first}." for m in rest],
                value=group["members"][1],
                anchor=[f"on slide {slide}", f"in group [{group['name']}]"],
                notes=[f"group members named by visible text: {listed}"],
            )
        )
        break
    # A position another slide repeats for a shape of the same kind (a chart placed alike on
    # every slide) is stated there too.
    elsewhere = {
        (other["kind"], other.get("position", "").split(", width")[0])
        for a in document.artifacts
        if a.kind == "slide-structure" and _slide(a) != slide
        for other in a.facts.get("shapes", [])
    }
    placed = [
        (s, called)
        for s in top
        if s["box"] is not None
        and "placeholder" not in s["kind"]
        and (s["kind"], s.get("position", "").split(", width")[0]) not in elsewhere
        and (called := shape_phrase(shapes, s["name"])) is not None
    ]
    if placed:
        shape, called = placed[pick(artifact.id, len(placed))]
        where = shape["position"].split(", width")[0]
        out.append(
            candidate(
                document,
                artifact,
                "shape-position",
                f"Where is the top-left corner of {called} on slide {slide} "
                "(offsets from the slide's left and top edges)?",
                [f"{_upper_first(called)} is placed at {where}."],
                value=where,
                anchor=[f"Shape [{shape['name']}] on slide {slide}"],
            )
        )
    for link in facts.get("connections", []):
        start, end = shape_phrase(shapes, link["from"]), shape_phrase(shapes, link["to"])
        if start is None or end is None:
            continue
        out.append(
            candidate(
                document,
                artifact,
                "connector-link",
                f"On slide {slide}, which shape does the connector leaving {start} lead to?",
                [f"The connector links {start} to {end}."],
                value=link["to"],
                anchor=[f"Connector [{link['connector']}] on slide {slide} links [{link['from']}]"],
            )
        )
        break
    return out


def _named_effect(effect: dict) -> bool:
    """An effect whose name is one Office shows (not an unmapped preset number)."""
    return not str(effect["effect"]).startswith(("preset ", "motion path preset"))


def _animatable(document: Document, artifact: Artifact) -> int:
    """How many shapes of the slide a reader could take for an animation's target: every
    top-level shape but the title and the footer placeholders."""
    structure = next(
        (
            a
            for a in document.artifacts
            if a.kind == "slide-structure" and _slide(a) == _slide(artifact)
        ),
        None,
    )
    shapes = structure.facts.get("shapes", []) if structure is not None else []
    return sum(
        1
        for s in shapes
        if s["group"] is None
        and not s["kind"].startswith(FOOTER_KINDS)
        and not s["kind"].startswith("title")
    )


def animations(document: Document, artifact: Artifact) -> list[Candidate]:
    effects = artifact.facts.get("effects", [])
    slide = _slide(artifact)
    if not effects:
        return []
    shapes = slide_shapes(document, slide)
    first = effects[0]
    out = []
    target = shape_phrase(shapes, first["shape_name"])
    if target is not None and _named_effect(first) and _animatable(document, artifact) > 1:
        out.append(
            candidate(
                document,
                artifact,
                "animation-first",
                f"Which shape does the first animation on slide {slide} apply to?",
                [
                    f"The first animation ({first['effect_class']} “{first['effect']}”) applies "
                    f"to {target}."
                ],
                value=first["shape_name"],
                anchor=[f"Animation 1 on slide {slide}"],
            )
        )
    targets = [e["shape_name"] for e in effects]
    single = [
        (e, called)
        for e in effects
        if targets.count(e["shape_name"]) == 1
        and _named_effect(e)
        and (called := shape_phrase(shapes, e["shape_name"])) is not None
    ]
    if single:
        effect, called = single[pick(artifact.id, len(single))]
        out.append(
            candidate(
                document,
                artifact,
                "animation-effect",
                f"Which animation effect is applied to {called} on slide {slide}, "
                "and how is it triggered?",
                [
                    f"{_a(effect['effect_class']).capitalize()} effect “{effect['effect']}”.",
                    f"It starts {effect['trigger_text']}.",
                ],
                value=effect["effect"],
                anchor=[f"[{effect['shape_name']}]", f"{effect['effect_class']} effect"],
            )
        )
    return out


def slide_languages(document: Document, artifact: Artifact) -> list[Candidate]:
    slide = _slide(artifact)
    out = []
    main = artifact.facts.get("main_lang")
    # A run tagged with the deck's main language is the guessable default: ask the others.
    shown = _shown(document, slide)
    runs = [
        r
        for r in artifact.facts.get("runs", [])
        if r["lang"] != main
        and sum(c.isalpha() for c in r["text"]) >= LANGUAGE_RUN_LETTERS
        and (_whole(r["text"].strip(), shown) or r["text"].strip() not in shown)  # no cut words
    ]
    for run in runs[:2]:
        text = quote(run["text"], 60)
        out.append(
            candidate(
                document,
                artifact,
                "run-language",
                f"Which language is the text “{text}” on slide {slide} tagged with?",
                [f"It is tagged {run['lang']} ({run['language']})."],
                value=run["lang"],
                anchor=["Language tag", text.rstrip("…")],
            )
        )
    return out


def deck_language(document: Document, artifact: Artifact) -> list[Candidate]:
    facts = artifact.facts
    return [
        candidate(
            document,
            artifact,
            "deck-language",
            "Which language are most of this deck's slide texts tagged with?",
            [f"Most slide text is tagged {facts['lang']} ({facts['language']})."],
            value=facts["lang"],
            anchor=["Main text language"],
        )
    ]


def hidden_slide(document: Document, artifact: Artifact) -> list[Candidate]:
    hidden = [a for a in document.artifacts if a.kind == "hidden-slide"]
    if hidden[0].id != artifact.id:
        return []
    numbers = [_slide(a) for a in hidden]
    slides = {_slide(a) for a in document.artifacts if a.kind == "slide-structure"}
    if len(slides) <= len(numbers):
        return []  # every slide is hidden (a one-slide deck): "which one" answers itself
    # A hidden slide whose own text says so ("Hidden slide", "hide this") gives the answer away.
    if any(_says(_slide_texts(document, n), word) for n in numbers for word in HIDDEN_WORDS):
        return []
    answers = [
        f"Slide {a.facts['slide']}"
        + (f" (“{a.facts['title']}”)" if a.facts.get("title") else "")
        + " is hidden."
        for a in hidden
    ]
    question = (
        "Which slide of this deck is hidden (not shown during the slide show)?"
        if len(numbers) == 1
        else "Which slides of this deck are hidden (not shown during the slide show)?"
    )
    return [
        candidate(
            document,
            artifact,
            "hidden-slides",
            question,
            answers,
            value=f"slide {numbers[0]}",
            anchor=["hidden slide"],
        )
    ]


MAX_SECTION_SLIDES = 6


def section(document: Document, artifact: Artifact) -> list[Candidate]:
    facts = artifact.facts
    sections = [a for a in document.artifacts if a.kind == "section"]
    slides = facts.get("slides", [])
    if len(sections) < 2 or not slides:
        return []
    number = slides[pick(artifact.id, len(slides))]
    return _section_slides(document, artifact, sections) + [
        candidate(
            document,
            artifact,
            "section-of-slide",
            f"Which section of the deck does slide {number} belong to?",
            [f"Slide {number} is in the section “{facts['name']}”."],
            value=facts["name"],
            anchor=["Section", str(number)],
        )
    ]


def _section_slides(
    document: Document, artifact: Artifact, sections: list[Artifact]
) -> list[Candidate]:
    """Every slide of a section named once in the deck (a list answer of two to six
    slides, each with its title when it has one)."""
    facts = artifact.facts
    name, slides = facts["name"], facts.get("slides", [])
    if [a.facts["name"] for a in sections].count(name) != 1:
        return []
    if not 2 <= len(slides) <= MAX_SECTION_SLIDES:
        return []
    titles = list(facts.get("titles") or [""] * len(slides))
    return [
        candidate(
            document,
            artifact,
            "section-slides",
            f"Which slides make up the section “{quote(name, 60)}”?",
            [
                f"Slide {number}"
                + (f" (“{quote(title, 60)}”)" if title else "")
                + f" is in the section “{name}”."
                for number, title in zip(slides, titles, strict=False)
            ]
            + [f"No other slide is in the section “{name}”."],
            value=", ".join(str(number) for number in slides),
            anchor=[name],
            notes=[f"list answer: all {len(slides)} slides of the section"],
        )
    ]


NOTE_PHRASE = re.compile(r"[^\W\d_]+(?:[-'’][^\W\d_]+)*")


def _note_sentence(document: Document, artifact: Artifact) -> str | None:
    """A sentence of the first line of a slide's notes (six to 25 words, 160 characters at
    most) that nothing else in the deck says and that shares no word of four letters or
    more with the slide's title (which would point to the slide without the notes); the
    first such sentence, or None."""
    lines = artifact.facts.get("lines", [])
    if not lines:
        return None
    others = " ".join(a.text for a in document.artifacts if a.id != artifact.id)
    elsewhere = f" {normalize(others + ' ' + document.body)} "
    title = {w for w in normalize(artifact.facts.get("title") or "").split() if len(w) >= 4}
    for sentence in CLOZE_SENTENCE.split(" ".join(lines[0].split())):
        plain = normalize(sentence)
        if (
            len(sentence) <= NOTE_SENTENCE_CHARS
            and len(plain.split()) <= NOTE_SENTENCE_WORDS
            and is_sentence(sentence)
            and f" {plain} " not in elsewhere
            and not set(plain.split()) & title
        ):
            return sentence
    return None


NOTE_SENTENCE_CHARS = 160
NOTE_SENTENCE_WORDS = 25


def _note_slide(document: Document, artifact: Artifact) -> list[Candidate]:
    """The join of a sentence and a slide: which slide's speaker notes say the sentence."""
    notes = [a for a in document.artifacts if a.kind == "note"]
    sentence = _note_sentence(document, artifact) if len(notes) >= 2 else None
    if sentence is None:
        return []
    slide = _slide(artifact)
    title = artifact.facts.get("title") or ""
    return [
        candidate(
            document,
            artifact,
            "note-slide",
            f"On which slide do the speaker notes say: “{sentence}”?",
            [
                f"The speaker notes of slide {slide}"
                + (f" (“{quote(title, 60)}”)" if title else "")
                + " say it."
            ],
            value=f"slide {slide}",
            anchor=[sentence],
            notes=["join: a sentence of the notes and the slide they belong to"],
        )
    ]


def footer(document: Document, artifact: Artifact) -> list[Candidate]:
    facts = artifact.facts
    if facts["role"] == "dt" and facts.get("field"):
        return []  # an automatic date: a reader sees the day they open the file, not this text
    label = {"dt": "date/time", "hdr": "header"}.get(facts["role"], "footer")
    if facts.get("override"):
        slide = facts["slide"]
        question = f"What {label} text is shown on slide {slide}?"
        anchor = [f"on slide {slide}"]
    elif not facts.get("slides") or _shown_everywhere(document, artifact):
        question = f"What {label} text do the slides of this deck show?"
        anchor = []
    else:  # some slides show another text or none: ask of one slide that shows this one
        slide = facts["slides"][pick(artifact.id, len(facts["slides"]))]
        question = f"What {label} text is shown on slide {slide}?"
        anchor = []
    written = {"dt": "Date/time", "hdr": "Header"}.get(facts["role"], "Footer")
    return [
        candidate(
            document,
            artifact,
            f"{label.replace('/', '-')}-text",
            question,
            [f"The {label} reads “{facts['text']}”."],
            value=facts["text"],
            anchor=[written, *anchor],
        )
    ]


def _shown_everywhere(document: Document, artifact: Artifact) -> bool:
    """A deck-level footer text that every slide of the deck shows."""
    slides = {int(s) for s in artifact.facts.get("slides", [])}
    numbers = {_slide(a) for a in document.artifacts} - {0}
    return bool(slides) and numbers <= slides


def slide_number(document: Document, artifact: Artifact) -> list[Candidate]:
    slides = artifact.facts.get("slides", [])
    if not slides:
        return []
    listed = ", ".join(str(n) for n in slides)
    return [
        candidate(
            document,
            artifact,
            "slide-number-shown",
            "On which slides of this deck is a slide number displayed?",
            [f"A slide number is displayed on slides {listed}."],
            value="Slide number: shown",
        )
    ]


def note(document: Document, artifact: Artifact) -> list[Candidate]:
    facts = artifact.facts
    slide = _slide(artifact)
    lines = facts.get("lines", [])
    text = " ".join(lines)
    if 20 <= len(text) <= 160 and len(lines) == 1:
        return [
            candidate(
                document,
                artifact,
                "note-text",
                f"What do the speaker notes of slide {slide} say?",
                [f"The notes say: “{text}”."],
                value=text,
                anchor=[f"Speaker notes of slide {slide}"] if len(text.split()) < 6 else [],
            )
        ] + _note_slide(document, artifact)
    where = f"In the speaker notes of slide {slide}"
    return _cloze_questions(
        document, artifact, "\n".join(lines), where, "note-cloze"
    ) + _note_slide(document, artifact)


metadata = grounded_metadata(
    metadata_rule(
        "presentation",
        lambda label: f"What value does the presentation's “{label}” property hold?",
    )
)


RULES: dict[str, Rule] = {
    "slide-text": slide_text,
    "shape-text": shape_text,
    "shape-style": shape_style,
    "hyperlink": hyperlink,
    "text-highlight": text_highlight,
    "equation": equation,
    "table": table,
    "table-cell-colors": table_cell_colors,
    "image": image,
    "chart": chart_questions,
    "smartart": smartart,
    "smartart-structure": smartart_structure,
    "ink": ink,
    "slide-structure": slide_structure,
    "animations": animations,
    "slide-languages": slide_languages,
    "deck-language": deck_language,
    "hidden-slide": hidden_slide,
    "section": section,
    "footer": footer,
    "date-time": footer,
    "slide-number": slide_number,
    "note": note,
    "metadata": metadata,
}
