"""The offline guessability check: is the answer one a reader gets without the file?

It rejects answers that are application defaults (filters.defaults), answers already in
the question or in the shape's own name, system and hidden names, identifiers nobody
reads (GUIDs, build numbers) and alt text the application wrote by itself. It needs
only the candidate, its artifact and the document, so it runs in every mode, first.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Callable
from functools import cache

from fidelity.core.document import Artifact, Candidate, Decision, Document
from fidelity.core.text import content_tokens, normalize, tokens
from filters import defaults
from filters.chain import GUESSABLE
from filters.leakage import testable

VIEW = "question"
MATCH = "default-table"
STEM = 4
URL_SCHEME = re.compile(r"\b(?:https?|ftp)://|\bmailto:", re.IGNORECASE)
OPTION_LIST = re.compile(r"\([^()]*,[^()]*\)")
QUOTED = re.compile(r"“([^”]*)”")
PIECE = re.compile(r"[\W_]+")
CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
# Markup of a data-bound template (<Content Select="./CustomerID" />): a field to be filled.
TEMPLATE_MARKUP = re.compile(r"<[A-Za-z][\w:]*(\s+[\w:]+\s*=\s*\"[^\"]*\")*\s*/?>")
SHAPE_MARKER = re.compile(r"\[[^\]]*\]")
NAME_QUOTE = re.compile(r"“([^”]*)”|'([^']*)'")
LANGUAGE_TAG = re.compile(r"^([a-z]{2,3})(?:[-_][a-z0-9]+)*$", re.IGNORECASE)
MEASURE = re.compile(r"^(\d+(?:\.\d+)?) (pt|in|cm|mm|px)$")
CELL_ADDRESS = re.compile(r"^\$?([A-Z]{1,3})\$?(\d+)$")
EQUATION_NOISE = re.compile(r"[\s\\{}]|\\left|\\right")

Finding = tuple[str, str]  # (what matched, why that makes it guessable)


@cache
def _normalised(values: frozenset[str]) -> frozenset[str]:
    return frozenset(normalize(value) for value in values)


def check(document: Document, candidate: Candidate) -> Decision:
    """fail when the answer is guessable, with what matched in `answered`; pass otherwise."""
    try:
        artifact: Artifact | None = document.artifact(candidate.artifact_id)
    except KeyError:
        artifact = None
    finding = next(
        (found for rule in RULES if (found := rule(document, artifact, candidate))), None
    )
    base = {
        "candidate_id": candidate.id,
        "check": GUESSABLE.name,
        "view": VIEW,
        "context_hash": "",
        "match": MATCH,
    }
    if finding is None:
        reason = "not a default, giveaway, system name, identifier or automatic alt text"
        return Decision(**base, answered="", verdict="pass", reason=reason)
    evidence, why = finding
    return Decision(**base, answered=evidence, verdict="fail", reason=why)


def _texts(candidate: Candidate) -> list[str]:
    return [candidate.question, candidate.probe.value, *candidate.answer]


def system_name(_: Document, __: Artifact | None, candidate: Candidate) -> Finding | None:
    for text in _texts(candidate):
        if found := defaults.SYSTEM_NAME.search(text):
            return found.group(0), "asks about a system, hidden or broken name"
    return None


def external_index(_: Document, __: Artifact | None, candidate: Candidate) -> Finding | None:
    """A formula or name that reaches another workbook by its link index ('[1]Rates!B2'):
    the reader sees the workbook's file name instead, so the answer quotes what no one reads."""
    for text in (candidate.probe.value, *candidate.answer):
        if found := defaults.EXTERNAL_INDEX.search(text):
            return found.group(0).strip(), "names another workbook by its internal link index"
    return None


def identifier(_: Document, artifact: Artifact | None, candidate: Candidate) -> Finding | None:
    value = candidate.probe.value.strip()
    for text in (candidate.question, value):
        if found := defaults.GUID.search(text):
            return found.group(0), "a GUID-like identifier: nothing a reader looks up"
    if defaults.LONG_HEX.match(value):
        return value, "a long hexadecimal identifier: nothing a reader looks up"
    is_property = artifact is not None and artifact.category == "Metadata"
    if is_property and defaults.BUILD_NUMBER.match(value) and not _iso_date(value):
        return value, "a build or version number: low value"
    return None


def _iso_date(value: str) -> bool:
    parts = value.split("-")
    return len(parts) == 3 and len(parts[0]) == 4 and all(part.isdigit() for part in parts)


def in_question(_: Document, __: Artifact | None, candidate: Candidate) -> Finding | None:
    """The answer value stands in the question and the statements add no word of their own."""
    if not testable(candidate.probe.value):
        return None
    question = normalize(_bare(candidate.question))
    if f" {normalize(_bare(candidate.probe.value))} " not in f" {question} ":
        return None
    choices = OPTION_LIST.sub(" ", _bare(candidate.question))  # "(bold, italic…)" only offers
    asked = {_stem(word) for word in content_tokens(choices)}
    told = {
        _stem(word) for statement in candidate.answer for word in content_tokens(_bare(statement))
    }
    if told - asked:
        return None
    return candidate.probe.value, "the answer already stands in the question"


def _bare(text: str) -> str:
    """Text with URL schemes dropped: a link shown as "www.x.org" points to "http://www.x.org"."""
    return URL_SCHEME.sub("", text)


def _stem(word: str) -> str:
    """A crude stem ('shows'/'shown', 'contains'/'contain') for comparing template wording."""
    return word[:STEM] if len(word) > STEM else word


def self_named(_: Document, __: Artifact | None, candidate: Candidate) -> Finding | None:
    """An answer made only of the question's words and words that name an element or stand in
    for content: "FOOTER GOES HERE" for a footer, "This is the endnote." for an endnote, the
    oval reading "Oval", cell B3 reading "B3", a link on "Hunt Institute" to hunt-institute.org."""
    value = candidate.probe.value
    words = _pieces(value)
    if not words or len(words) > defaults.SELF_NAMED_WORDS or defaults.ERROR_VALUE.match(value):
        return None
    if not any(char.isalpha() for word in words for char in word):
        return None
    stated = normalize(" ".join(candidate.answer))
    if f" {normalize(_bare(value))} " not in f" {normalize(_bare(stated))} ":
        return None  # the value is an internal handle the answer does not state
    asked = set(_pieces(OPTION_LIST.sub(" ", candidate.question)))  # options only offer
    if any(word not in asked and word not in defaults.FILLER_WORDS for word in words):
        return None
    return value, "the answer only names its own element or repeats the question's words"


def _pieces(text: str) -> list[str]:
    """Content words, with addresses split at their dots and dashes ('hunt-institute.org')
    and names at their inner capitals ('./OrderDate' reads 'order date')."""
    text = CAMEL.sub(" ", text)
    return [piece for word in content_tokens(text) for piece in PIECE.split(word) if piece]


def template_markup(_: Document, __: Artifact | None, candidate: Candidate) -> Finding | None:
    """A question or answer quoting a data-bound template's markup: a field still to fill."""
    for text in (candidate.question, candidate.probe.value):
        if found := TEMPLATE_MARKUP.search(text):
            return found.group(0), "quotes a template's field markup, not content"
    return None


def link_text_in_address(
    _: Document, artifact: Artifact | None, candidate: Candidate
) -> Finding | None:
    """A link whose shown text is a piece of its address ("tika" for tika.apache.org): the
    text the question quotes, else the text the link's element shows."""
    if not candidate.question_type.startswith("hyperlink"):
        return None
    quoted = QUOTED.findall(candidate.question)
    facts = artifact.facts if artifact else {}
    shown = quoted[0] if quoted else str(facts.get("display") or facts.get("text") or "")
    address = set(_pieces(_bare(candidate.probe.value)))
    text = _pieces(_bare(shown))
    if text and address and set(text) <= address:
        return candidate.probe.value, "the link's text is a piece of its address"
    return None


def names_own_row(_: Document, __: Artifact | None, candidate: Candidate) -> Finding | None:
    """A quoted text that states the row of the cell it is asked to locate ("comment top
    row3" on A3)."""
    cell = CELL_ADDRESS.match(candidate.probe.value.strip().rpartition("!")[2])
    quoted = " ".join(QUOTED.findall(candidate.question))
    if cell is None or not quoted:
        return None
    row = cell.group(2)
    if re.search(rf"\b(row|r|line|zeile|ligne|fila)\s*{row}\b", quoted, re.IGNORECASE):
        return candidate.probe.value, "the quoted text states the cell's own row"
    return None


def default_name(_: Document, __: Artifact | None, candidate: Candidate) -> Finding | None:
    """A name the application gives a new element, in any of its languages ("Sheet3",
    "Tabelle3", "Section 1", "Default Section"), with 1 or a number the question states."""
    value = " ".join(normalize(candidate.probe.value).split())
    if value in defaults.DEFAULT_NAMES:
        return candidate.probe.value, "a name the application gives a new element"
    found = defaults.DEFAULT_NAME.match(value)
    if found is None or not _quoted_in_answer(candidate):
        return None  # "Slide 1 is hidden" places an element; it does not name one
    words = tokens(candidate.question)
    numbers = {int(w) for w in words if w.isdigit()} | {
        defaults.ORDINALS[w] for w in words if w in defaults.ORDINALS
    }
    number = int(found.group(1))
    if number == 1 or number in numbers:
        return candidate.probe.value, "a name the application gives a new element"
    return None


def _quoted_in_answer(candidate: Candidate) -> bool:
    """The answer gives the value as a name, in quotes ('Sheet3', “Section 1”)."""
    value = normalize(candidate.probe.value)
    return any(
        normalize(found.group(1) or found.group(2) or "") == value
        for statement in candidate.answer
        for found in NAME_QUOTE.finditer(statement)
    )


def script_language(
    document: Document, artifact: Artifact | None, candidate: Candidate
) -> Finding | None:
    """A language tag the text's own script gives away (Greek letters tagged el-GR)."""
    if "language" not in candidate.question_type:
        return None
    tag = LANGUAGE_TAG.match(candidate.probe.value.strip())
    if tag is None:
        return None
    quoted = QUOTED.findall(candidate.question)
    text = " ".join(quoted) if quoted else _document_text(document)
    script = _script(text)
    if script and tag.group(1).lower() in defaults.SCRIPT_LANGUAGES[script]:
        return candidate.probe.value, f"the text's {script.lower()} script gives the language"
    return None


def _document_text(document: Document) -> str:
    """The file's text as a reader sees it (no '[TextBox 4]' shape markers)."""
    text = " ".join(a.text for a in document.artifacts if a.modality in ("text", "table"))
    return SHAPE_MARKER.sub(" ", text[:20000])


def _script(text: str) -> str:
    """The script most of the text's letters are written in, when it gives a language away."""
    scripts = Counter(unicodedata.name(char, "").split(" ")[0] for char in text if char.isalpha())
    total = sum(scripts.values())
    if not total:
        return ""
    script, count = scripts.most_common(1)[0]
    if script in defaults.SCRIPT_LANGUAGES and count >= defaults.SCRIPT_SHARE * total:
        return script
    return ""


def built_in_equation(_: Document, __: Artifact | None, candidate: Candidate) -> Finding | None:
    """An equation from Office's gallery (the quadratic formula, Pythagoras…)."""
    if "equation" not in candidate.question_type:
        return None
    compact = EQUATION_NOISE.sub("", candidate.probe.value.casefold())
    if any(known in compact for known in defaults.BUILT_IN_EQUATIONS):
        return candidate.probe.value, "an equation from Office's built-in gallery"
    return None


def count_of_one(_: Document, __: Artifact | None, candidate: Candidate) -> Finding | None:
    """'How many slides…' of a one-slide deck: one is the answer a reader assumes."""
    if normalize(candidate.probe.value) in ("1", "one") and defaults.COUNT_OF_ONE.search(
        candidate.question
    ):
        return candidate.probe.value, "a count of one: what a reader assumes"
    return None


def uniform_in_file(
    document: Document, artifact: Artifact | None, candidate: Candidate
) -> Finding | None:
    """An answer every element of the target's kind shares (one comment author, one layout
    on every slide, one fill on every shape, every heading in 11 pt): each of the others
    states it too."""
    if artifact is None:
        return None
    value = normalize(candidate.probe.value)
    keys = [k for k, v in artifact.facts.items() if _same_fact(v, value)]
    same_kind = [a for a in document.artifacts if a.kind == artifact.kind]
    if not value or not keys or len(same_kind) < defaults.UNIFORM_LEAST:
        return None
    for key in keys:
        if all(_same_fact(a.facts.get(key), value) for a in same_kind):
            why = f"all {len(same_kind)} {artifact.kind} elements share this {key}"
            return candidate.probe.value, f"{why}: the others state the answer"
    return None


def _same_fact(fact: object, value: str) -> bool:
    """A fact that says the (normalised) answer: the same text, or the number of a measure
    ("11 pt" for a size of 11.0; a bare number could be any count)."""
    if isinstance(fact, str):
        return bool(fact) and normalize(fact) == value
    if isinstance(fact, int | float) and not isinstance(fact, bool):
        found = MEASURE.match(value)
        return found is not None and float(found.group(1)) == float(fact)
    return False


def in_shape_name(_: Document, artifact: Artifact | None, candidate: Candidate) -> Finding | None:
    name = normalize(str((artifact.facts if artifact else {}).get("shape_name") or ""))
    value = normalize(candidate.probe.value)
    if not name or not value:
        return None
    if value == name or testable(candidate.probe.value) and f" {value} " in f" {name} ":
        return candidate.probe.value, "the answer is the shape's own name"
    return None


def automatic_alt_text(
    _: Document, artifact: Artifact | None, candidate: Candidate
) -> Finding | None:
    if candidate.question_type not in defaults.ALT_TEXT_TYPES:
        return None
    value = candidate.probe.value.strip()
    facts = artifact.facts if artifact else {}
    own = {normalize(str(facts.get(key) or "")) for key in ("file", "shape_name")} - {""}
    if defaults.AUTO_ALT_TEXT.search(value) or normalize(value) in own:
        return value, "alt text the application wrote by itself (a name or a file name)"
    return None


def application_default(
    document: Document, artifact: Artifact | None, candidate: Candidate
) -> Finding | None:
    value = normalize(candidate.probe.value)
    kind = candidate.question_type
    differs = kind in defaults.LANGUAGE_TYPES and _main_language(document) not in (
        "",
        defaults.DEFAULT_LANGUAGE,
    )
    if not differs and value in _normalised(defaults.DEFAULT_ANSWERS.get(kind, frozenset())):
        return candidate.probe.value, f"an application default for {kind}"
    if kind == "metadata-PresentationFormat" and defaults.DEFAULT_SHOW_FORMAT.search(
        candidate.probe.value.strip()
    ):
        return candidate.probe.value, f"an application default for {kind}"  # in any language
    if kind in defaults.PERSON_TYPES and defaults.TOOL_AUTHOR.match(candidate.probe.value.strip()):
        return candidate.probe.value, "the software that wrote the file, not a person"
    if kind.startswith("metadata-") and defaults.TOOL_NOTE.match(candidate.probe.value.strip()):
        return candidate.probe.value, "a note the software that wrote the file left about itself"
    if kind == "slide-layout":
        return _default_layout(artifact, candidate)
    if kind in defaults.FONT_TYPES:
        return _default_font(document, candidate, value)
    return None


def _default_layout(artifact: Artifact | None, candidate: Candidate) -> Finding | None:
    """The layout PowerPoint gives the first slide (Title Slide) or a new one (Title and
    Content), on any slide (a deck made by a program often starts with the second), known by
    its built-in type in any language, or by its English name."""
    facts = artifact.facts if artifact else {}
    kind = facts.get("layout_type") or ""
    name = normalize(defaults.LAYOUT_COPY.sub("", candidate.probe.value.strip()))
    if kind == defaults.FIRST_SLIDE_LAYOUT_TYPE or name == defaults.FIRST_SLIDE_LAYOUT:
        return candidate.probe.value, "the layout PowerPoint gives the first slide"
    if kind == defaults.NEW_SLIDE_LAYOUT_TYPE or name == defaults.NEW_SLIDE_LAYOUT:
        return candidate.probe.value, "the layout PowerPoint gives a new slide"
    return None


def _main_language(document: Document) -> str:
    """The language most of the file is tagged with ('' when the file does not say)."""
    deck = next((a for a in document.artifacts if a.kind == "deck-language"), None)
    return normalize(str(deck.facts.get("lang") or "")) if deck is not None else ""


def _default_font(document: Document, candidate: Candidate, value: str) -> Finding | None:
    if candidate.question_type == "font-body" and value in defaults.DEFAULT_BODY_FONTS:
        return candidate.probe.value, "the body typeface of a new document"
    if candidate.question_type != "font-typeface":
        return None
    if value in defaults.DEFAULT_HEADING_FONTS:
        return candidate.probe.value, "the heading typeface of the default theme"
    body = next((a for a in document.artifacts if a.kind == "font-body"), None)
    if body is not None and normalize(str(body.facts.get("font") or "")) == value:
        return candidate.probe.value, "the document-default font (the body text's typeface)"
    return None


def sample_chart_data(
    _: Document, artifact: Artifact | None, candidate: Candidate
) -> Finding | None:
    """A name from an inserted chart's sample data, or any question on a chart that still
    holds that data (a placeholder the author never replaced: its title, type and values say
    nothing about the file)."""
    value = normalize(candidate.probe.value)
    if defaults.SAMPLE_CHART_NAME.match(value):
        return candidate.probe.value, "a name from a freshly inserted chart's sample data"
    if artifact is None or artifact.category != "Chart" or not artifact.facts.get("sample_data"):
        return None
    return candidate.probe.value, "a chart that still holds a freshly inserted chart's sample data"


def written_by_conversion(
    document: Document, _: Artifact | None, candidate: Candidate
) -> Finding | None:
    """A layout name, default or theme font or table style of a converted legacy file, or a
    typeface the converter fell back to: the conversion wrote it, the author did not."""
    if not document.converted_from:
        return None
    value = candidate.probe.value.strip()
    if candidate.question_type in defaults.CONVERSION_WRITTEN_TYPES or (
        candidate.question_type in defaults.FONT_TYPES and defaults.CONVERSION_FONTS.match(value)
    ):
        return value, f"written by the conversion from {document.converted_from}, not the author"
    return None


RULES: tuple[Callable[[Document, Artifact | None, Candidate], Finding | None], ...] = (
    system_name,
    external_index,
    identifier,
    in_question,
    self_named,
    template_markup,
    link_text_in_address,
    names_own_row,
    default_name,
    script_language,
    built_in_equation,
    count_of_one,
    in_shape_name,
    uniform_in_file,
    automatic_alt_text,
    application_default,
    sample_chart_data,
    written_by_conversion,
)
