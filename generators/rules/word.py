"""Offline question rules for Word artifacts, one function per artifact kind.

Each rule states a fact the artifact carries as a question with atomic answer
statements, and sets the probe the leakage test uses: the answer value and the
anchor phrases that identify what is asked about.
"""

from __future__ import annotations

import re
from functools import lru_cache

from num2words import num2words

from fidelity.core.document import Artifact, Candidate, Document
from fidelity.core.text import normalize
from generators.draft import candidate, quote
from generators.rules.common import (
    ORDINAL_WORDS,
    TableCell,
    cap,
    chart_questions,
    cloze,
    described,
    is_sentence,
    metadata_rule,
    named_in,
    pick,
    table_cell_question,
    table_cells,
    table_comparison,
)
from generators.rules.giveaway import PLACEHOLDER, link_names_target, names_itself
from generators.rules.restated import grounded_metadata, one_comment_author, printed_properties

SENTENCE = re.compile(r"(?<=[.!?])\s+")
# A contents list's own heading: the text after it is not "in" that section.
CONTENTS_HEADING = re.compile(
    r"^\s*(table of contents|contents|inhaltsverzeichnis|sommaire|table des matières|índice)\s*$",
    re.IGNORECASE,
)
ADDRESS = re.compile(r"://|\bwww\.|@\w+\.")
# A cell or label that only says where it is ("Row 2 Col 3", "R1C2"): read, it names itself.
CELL_STAND_IN = re.compile(r"^(row|r)\s*\d+\s*[,/-]?\s*(col|column|c)\s*\d+$", re.IGNORECASE)
NUMBER = re.compile(r"(?<![\w.])\d[\d,.]*\d(?![\w])|(?<![\w.])\d{2,}(?![\w])")


MARKUP = (
    (re.compile(r"⟦[^⟧]+⟧"), " "),  # placeholders of other artifacts
    (re.compile(r"!?\[([^\]]*)\]\([^)]*\)"), r"\1"),  # links and images: their text
    (re.compile(r"^\s*(#+|>|[-*+]|\d+[.)])\s+", re.M), ""),  # heading, quote and list marks
    (re.compile(r"(\*\*|__|\*|`)(?=\S)|(?<=\S)(\*\*|__|\*|`)"), ""),  # emphasis marks
    (re.compile(r"\\(.)"), r"\1"),  # backslash escapes
)
WORD = re.compile(r"[^\W\d_]{7,}")


def _plain_paragraphs(markdown: str) -> list[str]:
    """The chunk's paragraphs as a reader sees them, markup removed (the Markdown is written
    without wrapping, so every line break is one the document has)."""
    text = markdown
    for pattern, replacement in MARKUP:
        text = pattern.sub(replacement, text)
    return [" ".join(p.split()) for p in text.splitlines() if p.strip()]


def _all_text(document: Document) -> str:
    """Every text chunk of the document as plain paragraphs (to test a sentence's uniqueness)."""
    return _plain_text_of(tuple(a.text for a in document.artifacts if a.kind == "text"))


@lru_cache(maxsize=1)
def _plain_text_of(chunks: tuple[str, ...]) -> str:
    """The chunks' plain paragraphs, worked out once per document: every text chunk's rule asks
    for them (bug65649: 53 chunks, each stripping the markup of all 2,862 paragraphs again)."""
    return "\n".join("\n".join(_plain_paragraphs(text)) for text in chunks)


def _text(document: Document, artifact: Artifact) -> list[Candidate]:
    """Clozes from real sentences of a text chunk: a number when the sentence has one,
    else a long word the chunk uses only once."""
    heading = artifact.facts.get("heading") or ""
    if CONTENTS_HEADING.match(heading):
        heading = ""  # body text after a contents list whose entries are no headings
    where = f"In the section “{quote(heading, 60)}”" if heading else "In the document"
    paragraphs = [p for p in _plain_paragraphs(artifact.text) if "|" not in p]
    whole = " ".join(paragraphs)
    everywhere = _all_text(document)
    sentences = (sentence for paragraph in paragraphs for sentence in SENTENCE.split(paragraph))

    def choose(sentence: str) -> tuple[str, str] | None:
        if (
            everywhere.count(sentence) > 1
            or PLACEHOLDER.search(sentence)
            or ADDRESS.search(sentence)
        ):
            return None  # the same sentence twice (the blank is ambiguous), filler, or a URL
        numbers = [
            n
            for n in NUMBER.findall(sentence)
            if n not in heading and _number_blankable(sentence, n, everywhere)
        ]
        if numbers:
            return numbers[0], "number"
        if _shouted(sentence):
            return None  # a clause in capitals: licence boilerplate a reader completes by rote
        # a word the next paragraphs (or any other part) repeat is stated elsewhere; a common
        # word a stock phrase supplies ("For ____ terms", "as ____ below"): only names
        words = [
            w
            for w in WORD.findall(sentence)
            if whole.count(w) == 1
            and _once(everywhere, w)
            and not _forced(sentence, w)
            and named_in(sentence, w)
        ]
        return (max(words, key=len), "word") if words else None

    return (
        [
            candidate(
                document,
                artifact,
                f"text-cloze-{noun}",
                f"{where}, which {noun} fills the blank in: “{blanked}”?",
                [f"The missing {noun} is {span}."],
                value=span,
                anchor=[blanked.replace("____", " ")],
            )
            for blanked, span, noun in cloze(sentences, choose, limit=2, shortest=40)
        ]
        + _heading_of(document, artifact, heading, paragraphs, everywhere)
        + _list_items(document, artifact, heading)
    )


def _number_blankable(sentence: str, number: str, everywhere: str) -> bool:
    """A number worth blanking: not the sentence's leading clause label ("7.10 Windows NT
    Server…", which its neighbours' numbers give), not spelled out beside it ("fifty (50)"),
    and not found elsewhere with the word before or after it ("Section 1.5 above")."""
    at = sentence.find(number)
    if sentence[:at].strip() == "":
        return False
    if _spelled_out(number, sentence):
        return False
    before = re.findall(r"[^\W_]+", sentence[:at])[-1:]
    after = re.findall(r"[^\W_]+", sentence[at + len(number) :])[:1]
    return not any(
        everywhere.count(pair) > sentence.count(pair)
        for pair in (
            f"{before[0]} {number}" if before else "",
            f"{number} {after[0]}" if after else "",
        )
        if pair
    )


def _spelled_out(number: str, sentence: str) -> bool:
    """The sentence also writes the number in words ("fifty (50) copies")."""
    try:
        value = float(number.replace(",", ""))
    except ValueError:
        return False
    if not value.is_integer() or value > 1_000_000:
        return False
    words = num2words(int(value)).replace("-", " ").replace(" and ", " ")
    return f" {words} " in f" {normalize(sentence.replace('-', ' '))} "


LIST_ITEM = re.compile(r"^(\s*)([-*+•]|\d+[.)]|[a-z][.)])\s+(.+)$")
FILLER_ITEM = re.compile(
    r"^(numbered |number |italic |bold |underline )?(bullet|item|point|entry|step|list item)"
    r"\s*\d*$|^(foo|bar|baz)$",
    re.I,
)
LIST_ITEMS = (2, 6)
ITEM_CHARS = 100
LEAD_IN_CHARS = 120


def _plain(markdown: str) -> str:
    """One line of a chunk as a reader sees it (see `_plain_paragraphs`)."""
    paragraphs = _plain_paragraphs(markdown)
    return paragraphs[0] if paragraphs else ""


def _list_items(document: Document, artifact: Artifact, heading: str) -> list[Candidate]:
    """A list answer: every item of a short list (two to six items of one level, each short)
    that a lead-in line ending in a colon introduces, the lead-in said once in the document.
    A list with items nested inside, filler items ("Bullet 1") or items said elsewhere in
    the document is not asked."""
    if CONTENTS_HEADING.match(heading):
        return []
    lines = [line for line in artifact.text.splitlines() if line.strip()]
    everywhere = _all_text(document)
    out = []
    start = 0
    while start < len(lines):
        if not LIST_ITEM.match(lines[start]):
            start += 1
            continue
        end = start
        while end < len(lines) and LIST_ITEM.match(lines[end]):
            end += 1
        block = [LIST_ITEM.match(line) for line in lines[start:end]]
        lead = _plain(lines[start - 1]) if start > 0 else ""
        start = end
        if len({m.group(1) for m in block if m}) != 1 or not lead.endswith(":"):
            continue  # nested items (the list's extent is unclear) or no lead-in to name it
        items = [_plain(m.group(3)) for m in block if m]
        if not LIST_ITEMS[0] <= len(items) <= LIST_ITEMS[1] or len(lead) > LEAD_IN_CHARS:
            continue
        if any(
            not item
            or len(item) > ITEM_CHARS
            or FILLER_ITEM.match(item)
            or PLACEHOLDER.search(item)
            for item in items
        ):
            continue
        if everywhere.count(lead) != 1 or any(everywhere.count(item) != 1 for item in items):
            continue
        out.append(
            candidate(
                document,
                artifact,
                "text-list",
                f"Which items does the list introduced by “{lead}” give?",
                [f"Item {number}: {item}" for number, item in enumerate(items, 1)]
                + [f"The list has these {len(items)} items and no others."],
                value=items[0],
                anchor=[],
                notes=[f"list answer: all {len(items)} items of the list"],
            )
        )
    return out[: cap(1)]


LEAST_HEADINGS = 3
# A heading that reads as its style's name ("Heading 2", "Überschrift 1"): a template's filler.
STYLE_NAMED = re.compile(r"^(heading|überschrift|titre|título|titolo|kop)\s*\d", re.I)
MARKDOWN_HEADING = re.compile(r"^#+ (.+)$", re.M)


def _heading_lines(texts: list[Artifact]) -> list[str]:
    """Every heading the text chunks write, in order, each time it stands."""
    return [" ".join(found.split()) for a in texts for found in MARKDOWN_HEADING.findall(a.text)]


NEAR_COPY = 0.7


def _near_copy(sentence: str, everywhere: str) -> bool:
    """True when the document says the sentence twice, or another sentence shares most of
    its words (the same statement under two headings)."""
    if everywhere.count(sentence) != 1:
        return True
    words = set(normalize(sentence).split())
    return any(
        other != sentence and len(words & set(normalize(other).split())) >= NEAR_COPY * len(words)
        for line in everywhere.splitlines()
        for other in SENTENCE.split(line)
    )


SENTENCE_WORDS = 9
WORD_RUN = re.compile(r"[^\W\d_]+")


def _heading_of(
    document: Document, artifact: Artifact, heading: str, paragraphs: list[str], everywhere: str
) -> list[Candidate]:
    """The join of a sentence and the section it stands in: under which heading the document
    says a sentence it says once. Asked once per heading (in the section's first chunk), in
    a document of three headings or more, for a sentence of nine words or more that shares
    no word with its heading (which would point to it)."""
    texts = [a for a in document.artifacts if a.kind == "text"]
    headings = {a.facts.get("heading") or "" for a in texts}
    headings = {h for h in headings if h and not CONTENTS_HEADING.match(h)}
    if not heading or len(headings) < LEAST_HEADINGS:
        return []
    if next(a for a in texts if a.facts.get("heading") == heading).id != artifact.id:
        return []
    if STYLE_NAMED.match(heading) or _heading_lines(texts).count(heading) != 1:
        return []  # "Heading 2" names its style, not a section; a heading used twice is two
    named = set(normalize(heading).split())
    options = [
        sentence
        for paragraph in paragraphs
        for sentence in SENTENCE.split(paragraph)
        if 40 <= len(sentence) <= 200
        and is_sentence(sentence)
        and len(WORD_RUN.findall(sentence)) >= SENTENCE_WORDS
        and not _near_copy(sentence, everywhere)
        and not PLACEHOLDER.search(sentence)
        and not ADDRESS.search(sentence)
        and not named & set(normalize(sentence).split())
    ]
    if not options:
        return []
    sentence = options[pick(f"{artifact.id}:heading", len(options))]
    return [
        candidate(
            document,
            artifact,
            "text-heading",
            f"Under which heading does the document say: “{sentence}”?",
            [f"That sentence is in the section headed “{heading}”."],
            value=heading,
            anchor=[sentence],
            notes=["join: a sentence and the heading of its section"],
        )
    ]


# Words a sentence's grammar or stock phrasing gives away when blanked: connectives and
# hedges, whatever sentence they stand in.
FORCED_WORDS = frozenset(
    "however therefore although because between without through whether another several "
    "example following including sometimes important whereas moreover furthermore "
    "otherwise together anything everything something nothing available possible "
    "different necessary particular consist consists contain contains provide provides".split()
)


def _forced(sentence: str, word: str) -> bool:
    """True for a blank the sentence forces: its first word (a connective or a capitalised
    opener), an adverb in -ly, or a connective or stock verb of FORCED_WORDS."""
    lowered = word.lower()
    first = sentence.lstrip("“\"'(").startswith(word)
    return first or lowered.endswith("ly") or lowered in FORCED_WORDS


def _shouted(sentence: str) -> bool:
    """Most of the sentence's letters are capitals."""
    letters = [c for c in sentence if c.isalpha()]
    return bool(letters) and sum(c.isupper() for c in letters) > 0.6 * len(letters)


def _once(text: str, word: str) -> bool:
    """True when the word (case aside) stands once in the text, as a whole word."""
    return len(re.findall(rf"(?<!\w){re.escape(word)}(?!\w)", text, re.IGNORECASE)) == 1


def _table_number(tables: list[Artifact], artifact: Artifact) -> int:
    """The table's number as its locator and evidence give it (tables counted where they
    start, an outer table before the tables nested in it), not its place in the artifact
    list, where a nested table comes before the table holding it."""
    number = artifact.where.table
    return number if number is not None else tables.index(artifact) + 1


def _table_where(document: Document, artifact: Artifact) -> str:
    """How a reader finds the table: its caption, else its place under its heading."""
    facts = artifact.facts
    caption, heading = facts.get("caption") or "", facts.get("heading") or ""
    if caption:
        return f"the table captioned “{quote(caption, 60)}”"
    tables = [a for a in document.artifacts if a.kind == "table"]
    if not heading:
        return f"table {_table_number(tables, artifact)} of the document"
    siblings = sorted(
        (a for a in tables if (a.facts.get("heading") or "") == heading),
        key=lambda a: _table_number(tables, a),
    )
    if len(siblings) == 1:
        return f"the table under the heading “{quote(heading, 60)}”"
    rank = siblings.index(artifact)
    if rank < len(ORDINAL_WORDS):
        return f"the {ORDINAL_WORDS[rank]} table under the heading “{quote(heading, 60)}”"
    return f"table {_table_number(tables, artifact)} of the document"


def _elsewhere(document: Document, artifact: Artifact, cell: TableCell) -> bool:
    """True when another table has a row with the same label and value (the join is ambiguous)."""
    for other in document.artifacts:
        if other.kind != "table" or other.id == artifact.id:
            continue
        for row in other.facts.get("grid") or other.facts.get("rows", []):
            if row and row[0] == cell.row and cell.value in row[1:]:
                return True
    return False


def _table(document: Document, artifact: Artifact) -> list[Candidate]:
    facts = artifact.facts
    where = _table_where(document, artifact)
    grid = facts.get("grid") or facts.get("rows", [])
    if not _header_row(grid):  # a glossary's first entry is no header
        return []
    cells = [  # a filler row or column ("Lorem ipsum") is nothing a reader looks up
        cell
        for cell in table_cells(grid, artifact.id)
        if not PLACEHOLDER.search(f"{cell.row} {cell.column or ''}")
        and not any(CELL_STAND_IN.match(v.strip()) for v in (cell.row, cell.value))
    ]
    out = [table_cell_question(document, artifact, where, cell) for cell in cells]
    if not cells:  # no row labels a reader can name: the rows by their place
        out += _positional(document, artifact, where, grid)
    out += table_comparison(document, artifact, where, grid)
    heading = facts.get("heading") or ""
    headings = [a.facts.get("heading") for a in document.artifacts if a.kind == "table"]
    single = [c for c in cells if len(c.values) == 1 and not _elsewhere(document, artifact, c)]
    if heading and single and headings.count(heading) == 1:
        cell = single[0]
        out.append(
            candidate(
                document,
                artifact,
                "table-heading",
                f"Under which section heading is the table in which the row "
                f"“{quote(cell.row, 50)}” shows {cell.value}"
                + (f" in the column “{quote(cell.column, 50)}”?" if cell.column else "?"),
                [f"That table is under the heading “{heading}”."],
                value=heading,
                anchor=[cell.row],
            )
        )
    return out


HEADER_WORDS = 8
MAX_POSITION = 5


def _header_row(grid: list[list[str]]) -> bool:
    """True unless the first row reads as data: a cell of it runs to a sentence in a column
    whose other cells do too (a glossary's first term and its definition, where a header
    would be one word over long entries)."""
    if len(grid) < 2 or len(grid[0]) < 3:
        return True  # two columns are read as label-value pairs, header or not
    for column, cell in enumerate(grid[0]):
        below = [row[column] for row in grid[1:] if column < len(row)]
        if len(cell.split()) > HEADER_WORDS and any(
            len(text.split()) > HEADER_WORDS for text in below
        ):
            return False
    return True


def _positional(
    document: Document, artifact: Artifact, where: str, grid: list[list[str]]
) -> list[Candidate]:
    """Values of a table whose rows have no label (numbers, blanks), named by column header
    and row place: "the second row below the header"; a table of one data row needs no row."""
    rows = [row for row in grid if any(cell.strip() for cell in row)]
    if len(rows) > 2 and len(set(rows[0])) == 1:
        rows = rows[1:]  # a title merged across the table: the headers come below it
    if len(rows) < 2 or len(rows[0]) < 2:
        return []
    header, body = rows[0], rows[1 : 1 + MAX_POSITION]
    if any(PLACEHOLDER.search(name) for name in header):
        return []  # filler headers ("Lorem ipsum"): nothing worth asking
    if not all(name.strip() for name in header):
        return []  # a header over part of the columns (a second header row below): rows unclear
    named = [(i, name) for i, name in enumerate(header) if name and header.count(name) == 1]
    options = [
        (number, column, name, row[column])
        for number, row in enumerate(body)
        for column, name in named
        if column < len(row)
        and row[column].strip()
        and row[column] not in header
        and len(row[column]) <= 120
        and not CELL_STAND_IN.match(row[column].strip())
        and not CELL_STAND_IN.match(name.strip())
    ]
    out: list[Candidate] = []
    for _ in range(min(cap(2), len(options))):
        drawn = options.pop(pick(f"{artifact.id}:position:{len(out)}", len(options)))
        number, column, name, value = drawn
        place = "" if len(body) == 1 else f" in the {ORDINAL_WORDS[number]} row below the header"
        out.append(
            candidate(
                document,
                artifact,
                "table-cell-position",
                f"In {where}, what value does the column “{quote(name, 50)}” show{place}?",
                [f"The column “{name}” shows {value}{place}."],
                value=value,
                anchor=[name],
                notes=["rows without labels: the row named by its place"] if place else [],
            )
        )
    return out


def _table_unasked(document: Document, artifact: Artifact) -> str:
    """Why a table gives no question (for `fidelity regen` to report)."""
    grid = artifact.facts.get("grid") or artifact.facts.get("rows", [])
    rows = [row for row in grid if any(cell.strip() for cell in row)]
    width = max((len(row) for row in rows), default=0)
    if not rows:
        return "a table with every cell empty (a layout grid)"
    if width < 2:
        return "a one-column table (a layout box around text, no row or column to name)"
    if len(rows) < 2:
        return "a table of one row: no header to name a value by"
    if not _header_row(grid):
        return "its first row is data, not headers (no column can be named)"
    if any(PLACEHOLDER.search(cell) for cell in rows[0]):
        return "its headers are filler text (lorem ipsum): nothing worth asking"
    return (
        "no row label or column header names a short value once "
        "(repeated or empty labels, long values, or values that repeat the headers)"
    )


FIELD = re.compile(r"\{[A-Z]+\}\s*")


def _comment_place(facts: dict) -> str | None:
    """'the text “…”' for a comment on a range; 'the paragraph beginning “…”' for a comment
    anchored at a point; None when neither is known."""
    anchor = quote(facts.get("anchor", ""), 80)
    if anchor:
        return f"the text “{anchor}”"
    paragraph = facts.get("paragraph", "")
    if paragraph.startswith("after: "):
        return f"the paragraph that follows “{quote(paragraph.removeprefix('after: '), 60)}”"
    return f"the paragraph beginning “{quote(paragraph, 60)}”" if paragraph else None


def _comment(document: Document, artifact: Artifact) -> list[Candidate]:
    facts = artifact.facts
    place = _comment_place(facts)
    text = FIELD.sub("", facts.get("text", "")).strip()
    if place is None or not text:
        return []
    paragraph = facts.get("paragraph", "")
    if not facts.get("anchor") and paragraph and not _begins_one(document, paragraph):
        return []  # "the paragraph beginning …" would name two paragraphs
    same_place = [
        a
        for a in document.artifacts
        if a.kind == "comment" and a.id != artifact.id and _comment_place(a.facts) == place
    ]
    if same_place:  # two comments on the same words: "the comment on …" is ambiguous
        return []
    point = not facts.get("anchor")
    notes = ["point comment: anchored to the paragraph holding its mark"] if point else []
    out = [
        candidate(
            document,
            artifact,
            "comment-point" if point else "comment-text",
            f"What does the review comment {'placed in' if point else 'attached to'} {place} say?",
            [f"The comment says: “{text}”."],
            value=text,
            notes=notes,
        )
    ]
    if facts.get("author") and not one_comment_author(document):
        out.append(
            candidate(
                document,
                artifact,
                "comment-author",
                f"Who wrote the review comment {'placed in' if point else 'attached to'} {place}?",
                [f"The comment was written by {facts['author']}."],
                value=facts["author"],
                anchor=["comment", text],
            )
        )
    return out + _commented_words(document, artifact, text)


def _commented_words(document: Document, artifact: Artifact, text: str) -> list[Candidate]:
    """The reverse look-up: which words a comment is attached to, the comment named by its
    text (one comment says it, in three words or more, about a short passage)."""
    anchor = " ".join(str(artifact.facts.get("anchor") or "").split())
    texts = [
        FIELD.sub("", str(a.facts.get("text", ""))).strip()
        for a in document.artifacts
        if a.kind == "comment"
    ]
    if not anchor or len(anchor) > 80 or len(text.split()) < 3 or texts.count(text) != 1:
        return []
    if names_itself(text, "comment") or _occurrences(document, anchor) > 1:
        return []  # "This is a comment", or words that stand twice: which one would be ambiguous
    return [
        candidate(
            document,
            artifact,
            "comment-anchor",
            f"Which words of the document does the review comment “{quote(text, 80)}” refer to?",
            [f"The comment is attached to “{anchor}”."],
            value=anchor,
            anchor=["comment", text],
        )
    ]


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
        if link_names_target(facts["text"], value):
            return []
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
    if which == "first-page" and not facts.get("title_page", True):
        return []  # a first-page part the section does not switch on: no page shows it
    owner = f"{which} {kind}" if which != "default" else kind
    pages = _default_pages(document, artifact) if which == "default" else ""
    fields = re.findall(r"\{([A-Z]+)\}", facts["text"])
    if fields and len(re.sub(r"\{[A-Z]+\}|\W", "", facts["text"])) < 3:
        names = ", ".join(dict.fromkeys(fields))
        return [
            candidate(
                document,
                artifact,
                f"{kind}-field",
                f"Which automatic field does the {owner} of {scope}{pages} display?",
                [f"The {owner} displays the {names} field."],
                value=names,
                anchor=[kind],
            )
        ]
    printed = _as_printed(facts["text"])
    if not printed or names_itself(printed, kind):
        return []
    return [
        candidate(
            document,
            artifact,
            f"{kind}-text",
            f"What text appears in the {owner} of {scope}{pages}?",
            [f"The {owner} reads “{printed}”."],
            value=printed,
        )
    ]


def _default_pages(document: Document, artifact: Artifact) -> str:
    """The pages that show a default header or footer (" on the pages after the first"),
    when the first page or the even pages of its sections show another one, so that
    "the footer" does not stand for two; "" when it is on every page."""
    sections = set(artifact.facts["sections"])
    others = {
        str(other.facts["type"])
        for other in document.artifacts
        if other.kind == artifact.kind
        and other.id != artifact.id
        and sections & set(other.facts["sections"])
        and (other.facts["type"] != "first-page" or other.facts.get("title_page", True))
    }
    pages = {
        frozenset({"first-page"}): " on the pages after the first",
        frozenset({"even-page"}): " on the odd-numbered pages",
        frozenset({"first-page", "even-page"}): " on the odd-numbered pages after the first",
    }.get(frozenset(others), "")
    return pages


FIELD_WORDS = {
    "PAGE": "(page number)",
    "NUMPAGES": "(number of pages)",
    "SECTIONPAGES": "(pages in section)",
    "DATE": "(date)",
    "TIME": "(time)",
    "FILENAME": "(file name)",
    "AUTHOR": "(author)",
    "TITLE": "(title)",
}


def _as_printed(text: str) -> str:
    """Header/footer text as a reader describes it: fields named by what they show,
    picture markers and rules of underscores left out."""
    text = re.sub(r"\{([A-Z]+)\}", lambda m: FIELD_WORDS.get(m.group(1), ""), text)
    text = re.sub(r"\[Picture: [^\]]*\]|_{4,}", " ", text)
    text = re.sub(r"\[Text box: ([^\]]*)\]", r"\1", text)
    return " ".join(text.split())


def _note(document: Document, artifact: Artifact) -> list[Candidate]:
    facts = artifact.facts
    kind = facts["note_kind"]
    if names_itself(facts["text"], kind) or _cited(document, facts["text"]):
        return []
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


def _cited(document: Document, text: str) -> bool:
    """True when the body states a note's text itself (four words or more of it, whole)."""
    plain = normalize(text)
    return len(plain.split()) >= 4 and f" {plain} " in f" {normalize(_all_text(document))} "


# Word's equation gallery (Insert > Equation), in the LaTeX the extractor writes with spaces,
# braces and sizing commands left out: asked, a reader names them without the file.
GALLERY = (
    "a^2+b^2=c^2",  # Pythagorean theorem
    "A=\\pir^2",  # area of a circle
    "x=\\frac-b\\pm\\sqrtb^2-4ac2a",  # quadratic formula
    "(x+a)^n=\\sum_k=0^n",  # binomial theorem
    "(1+x)^n=1+",  # expansion of a sum
    "e^x=1+",  # Taylor expansion
    "f(x)=a_0+\\sum",  # Fourier series
    "\\sin\\alpha\\pm\\sin\\beta=",  # trig identity 1
    "\\cos\\alpha+\\cos\\beta=",  # trig identity 2
)


def built_in_equation(latex: str) -> bool:
    """True for an equation of Word's gallery (the Pythagorean theorem, the quadratic formula…)."""
    bare = re.sub(r"\\(left|right|limits|,|;|!| )|[\s{}]", "", latex)
    return any(bare.startswith(entry) for entry in GALLERY)


def _equation(document: Document, artifact: Artifact) -> list[Candidate]:
    facts = artifact.facts
    if built_in_equation(facts["latex"]):
        return []
    before = quote(facts.get("preceding_text", ""), 60)
    equations = [a for a in document.artifacts if a.kind == "equation"]
    if before:
        where = f"right after the words “{before}”"
    elif len(equations) == 1:
        where = "in the document"
    else:
        return []
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
    if names_itself(_as_printed(facts["text"]), "textbox"):
        return []
    if printed_properties(document, _as_printed(facts["text"])):
        return []  # a cover box printing the title and subject: the properties state it
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
            [f"The text box contains “{_as_printed(facts['text'])}”."],
            value=_as_printed(facts["text"]),
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
    images = [a for a in document.artifacts if a.kind == "image" and not a.facts.get("in")]
    heading = _section_of(artifact)
    if all(a.id == artifact.id for a in images):
        where = "the document's image"
    elif heading and [_section_of(a) for a in images].count(heading) == 1:
        where = f"the image in the section “{quote(heading, 60)}”"
    elif artifact in images:
        where = f"image {images.index(artifact) + 1} of {len(images)} (in reading order)"
    else:
        return []
    return [
        candidate(
            document,
            artifact,
            "image-alt-text",
            f"What description (alt text) is given for {where}?",
            [f"The image is described as “{alt}”."],
            value=alt,
        )
    ]


def _section_of(artifact: Artifact) -> str:
    """The heading an in-flow element sits under ('' for none)."""
    return artifact.where.section or ""


_metadata = grounded_metadata(
    metadata_rule(
        "document",
        lambda label: f"What {label.lower()} is recorded in the document's properties?",
    )
)


def _font_heading(document: Document, artifact: Artifact) -> list[Candidate]:
    facts = artifact.facts
    subject = quote(facts["subject"], 70)
    if _ambiguous(document, artifact):  # the same heading twice, set differently
        return []
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
    if facts.get("size_pt") and not _built_in_size(facts):
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


# The sizes Word's built-in heading styles have in the default templates (2003, 2007-2010,
# 2013-2019, 365): a heading left at its style's size tells nothing a reader could not guess.
BUILT_IN_SIZES = {
    "title": (26, 28),
    "subtitle": (11, 12, 14),
    "heading 1": (14, 16, 20),
    "heading 2": (13, 14, 16),
    "heading 3": (11, 12, 13, 14),
    "heading 4": (11, 12),
    "heading 5": (11, 12),
    "heading 6": (11, 12),
}


def _built_in_size(facts: dict) -> bool:
    style = re.sub(r"\s*(\d)$", r" \1", str(facts.get("style") or "").lower())  # "Heading1"
    return facts.get("size_pt") in BUILT_IN_SIZES.get(style, ())


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


# Typefaces of Word's default templates: asked of a span, guessed without the file.
DEFAULT_FACES = frozenset({"calibri", "times new roman", "aptos", "cambria", "arial"})
# A table-of-contents line: its title, then the page number it points to ("1. Scope 4").
TOC_ENTRY = re.compile(r"^\s*\d+(\.\d+)*\.?\s+\S.*\s\d{1,4}$")


def _near_black(colour: str) -> bool:
    """True for black or a colour a reader cannot tell from it (#00000A)."""
    try:
        return all(int(colour[i : i + 2], 16) < 0x20 for i in (0, 2, 4))
    except ValueError:
        return False


# What the Hyperlink character style gives link text.
LINK_LOOK = frozenset({"underline", "color"})


def _font_span(document: Document, artifact: Artifact) -> list[Candidate]:
    facts = artifact.facts
    subject = quote(facts["subject"], 70)
    toc = str(facts.get("style") or "").lower().startswith("toc")
    if _ambiguous(document, artifact) or toc or TOC_ENTRY.search(facts["subject"]):
        return []  # a table-of-contents line is set by its TOC style, not by the author
    if facts.get("generated") or PLACEHOLDER.search(facts["subject"]):
        return []  # a bibliography or index Word wrote, a prompt it shows: Word's look
    if facts.get("link") and set(facts.get("differs", [])) <= LINK_LOOK:
        return []  # the underline and colour every link gets
    text = f"the text “{subject}”"
    if _occurrences(document, facts["subject"]) > 1:  # the words stand elsewhere, set otherwise
        if not _begins_one(document, facts.get("paragraph", "")):
            return []
        text += f" in the paragraph beginning “{quote(facts.get('paragraph', ''), 60)}”"
    differs = facts.get("differs", [])
    # The first property a reader cannot guess: a default typeface or plain black is skipped
    # for the next one that differs from the paragraph.
    if "font" in differs and facts.get("font") and str(facts["font"]).lower() not in DEFAULT_FACES:
        question, value = f"Which typeface is {text} set in?", facts["font"]
        answer = f"The text “{subject}” is set in {value}."
    elif "color" in differs and facts.get("color") and not _near_black(str(facts["color"])):
        question, value = f"What font colour (hex) is {text}?", f"#{facts['color']}"
        answer = f"The text “{subject}” is coloured {value}."
    elif "size_pt" in differs and facts.get("size_pt"):
        question, value = f"What font size is {text}?", f"{facts['size_pt']:g} pt"
        answer = f"The text “{subject}” is {value}."
    else:
        styles = [s for s in ("bold", "italic") if facts.get(s)]
        if facts.get("underline"):
            styles.append("underlined")
        if not styles:
            return []
        value = " and ".join(styles)
        question = f"Which emphasis (bold, italic, underline) is applied to {text}?"
        answer = f"The text “{subject}” is {value}."
    told = {"bold", "italic", "underline"} & set(
        value.casefold().replace("underlined", "underline").split()
    )
    if value.casefold() in subject.casefold() or any(w in subject.casefold() for w in told):
        return []  # the text states its own formatting ("italic and bold hyperlink")
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


# Highlight colours as Word's highlighter menu names them.
HIGHLIGHT_NAMES = {
    "yellow": "yellow",
    "green": "bright green",
    "cyan": "turquoise",
    "magenta": "pink",
    "blue": "blue",
    "red": "red",
    "darkBlue": "dark blue",
    "darkCyan": "teal",
    "darkGreen": "green",
    "darkMagenta": "violet",
    "darkRed": "dark red",
    "darkYellow": "dark yellow",
    "darkGray": "gray (50%)",
    "lightGray": "gray (25%)",
    "black": "black",
    "white": "white",
}


def _ambiguous(document: Document, artifact: Artifact) -> bool:
    """True when another element of the same kind names the same text with different facts:
    a question naming the text could mean either."""
    subject = artifact.facts.get("subject")
    return any(
        other.kind == artifact.kind
        and other.id != artifact.id
        and other.facts.get("subject") == subject
        and other.facts != artifact.facts
        for other in document.artifacts
    )


def _part_of_paragraph(subject: str, paragraph: str) -> bool:
    """True when the quoted beginning of the paragraph does not already show the words
    (else naming the paragraph by its beginning gives them away)."""
    return subject.rstrip("…")[:40] not in quote(paragraph, 60)


def _begins_one(document: Document, paragraph: str) -> bool:
    """True when the quoted beginning of a paragraph begins no other paragraph (else "the
    paragraph beginning “…”" names two)."""
    start = quote(paragraph, 60).rstrip("…")
    if not start:
        return False
    lines = _all_text(document).splitlines()
    return sum(line.startswith(start) for line in lines) <= 1


def _occurrences(document: Document, text: str) -> int:
    """How many times the words stand in the document's text, as whole words."""
    pattern = rf"(?<!\w){re.escape(' '.join(text.split()))}(?!\w)"
    return len(re.findall(pattern, _all_text(document)))


def _highlight(document: Document, artifact: Artifact) -> list[Candidate]:
    facts = artifact.facts
    subject = facts["subject"]
    colour = HIGHLIGHT_NAMES.get(facts["value"], facts["value"])
    paragraph = quote(facts.get("paragraph", ""), 60)
    if _ambiguous(document, artifact):
        return []
    out = []
    unique_paragraph = _begins_one(document, facts.get("paragraph", ""))
    if _part_of_paragraph(subject, facts.get("paragraph", "")) and unique_paragraph:
        out.append(
            candidate(
                document,
                artifact,
                "highlight-text",
                f"In the paragraph beginning “{paragraph}”, which words are highlighted in "
                f"{colour}?",
                [f"The highlighted words are “{subject}”."],
                value=subject,
                anchor=["highlighted", facts["value"]],
            )
        )
    where, notes = f"the text “{quote(subject, 70)}”", []
    if _occurrences(document, subject) > 1:  # the words also stand un-highlighted elsewhere
        if not unique_paragraph:
            return out
        where = f"the words “{quote(subject, 70)}” in the paragraph beginning “{paragraph}”"
        notes = ["the words occur more than once: paragraph named"]
    return [
        *out,
        candidate(
            document,
            artifact,
            "highlight-colour",
            f"What highlight colour is applied to {where}?",
            [f"The text is highlighted in {colour}."],
            value=facts["value"],
            anchor=["highlighted", subject],
            notes=notes,
        ),
    ]


def _strikeout(document: Document, artifact: Artifact) -> list[Candidate]:
    facts = artifact.facts
    paragraph = quote(facts.get("paragraph", ""), 60)
    out = []
    struck = [a for a in document.artifacts if a.kind == "strikeout"]
    subjects = list(dict.fromkeys(a.facts["subject"] for a in struck))
    if struck[0].id == artifact.id and len(subjects) <= 6:
        out.append(
            candidate(
                document,
                artifact,
                "strikeout-list",
                "Which text in this document is struck through?",
                [f"“{subject}” is struck through." for subject in subjects],
                value=facts["subject"],
                anchor=["struck through"],
                notes=[f"list answer: all {len(subjects)} struck-through passages"]
                if len(subjects) > 1
                else [],
            )
        )
    paragraph_named = _part_of_paragraph(facts["subject"], facts.get("paragraph", ""))
    if paragraph_named and _begins_one(document, facts.get("paragraph", "")):
        out.append(
            candidate(
                document,
                artifact,
                "strikeout-text",
                f"In the paragraph beginning “{paragraph}”, which text is struck through?",
                [f"The struck-through text is “{facts['subject']}”."],
                value=facts["subject"],
                anchor=["struck through"],
            )
        )
    return out


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


USUAL_FIRST_LINE = "indented 0.50 in (first-line)"


def _layout_paragraph(document: Document, artifact: Artifact) -> list[Candidate]:
    facts = artifact.facts
    subject = quote(facts["subject"], 70)
    if (
        _ambiguous(document, artifact)
        or TOC_ENTRY.search(facts["subject"])
        or facts.get("generated")
    ):
        return []  # a table-of-contents line or a bibliography entry is laid out by Word
    if not _begins_one(document, facts["subject"]):
        return []  # a caption the list of figures repeats: "the paragraph “…”" names two
    indents = [
        facts[k] for k in ("indent_left", "indent_first-line", "indent_hanging") if k in facts
    ]
    if set(indents) == {USUAL_FIRST_LINE}:
        indents = []  # the usual first-line indent of body text: guessed, not read
    if indents:  # every indentation the paragraph has: left and hanging together
        question = f"What indentation is applied to the paragraph “{subject}”?"
        return [
            candidate(
                document,
                artifact,
                "layout-indent",
                question,
                [f"The paragraph is {indent}." for indent in indents],
                value=indents[0],
                anchor=[facts["subject"]],
            )
        ]
    key = next((name for name in ("alignment", "line_spacing") if name in facts), None)
    if key is None:
        return []
    if key == "alignment":
        question = f"How is the paragraph “{subject}” aligned?"
    else:
        question = f"What line spacing is applied to the paragraph “{subject}”?"
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

# Why a kind of artifact gives no question, for `fidelity regen` to say.
UNASKED = {"table": _table_unasked}
