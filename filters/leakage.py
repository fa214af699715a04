"""The lexical answer-leakage test: can the reference answer still be read from a view?

It looks for the answer value in a line of the view that also carries each of the
question's anchors (a short anchor as a phrase, a long one by most of its content
words: the passage, row header or property a question is about), so a property
question is judged on whether the view still *states* the property, not on whether
the answer's words occur somewhere in the body.

`test_elements` is element-aware: it reads every line of the view that holds the value
and asks which element put it there (filters.elements). A line with the anchors rejects
unless, for a question about an element's property (formatting, layout, animation,
position, colour, language), it comes from a different element of the same category
(another slide's animation, another heading's size); content stated again elsewhere
(the same equation or formula on another slide or sheet) still rejects; for a cloze,
the missing word stated on the same slide by another kind of text or table (the slide's
table for a speaker-note cloze) rejects too. The reason names the anchors and where the
answer still appears.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from fidelity.core.document import Artifact, Probe, Verdict
from fidelity.core.text import STOPWORDS, content_tokens, normalize, tokens
from fidelity.core.views import View
from filters.elements import ElementIndex, place, sheet_of, slide_of

MATCH = "lexical-leakage"
ANCHOR_SHARE = 0.6
SHORT_ANCHOR = 4
SHINGLE_SHARE = 0.8
MISSING_SHARE = 0.1  # of a long value's distinctive words, the most a near copy may lack
# A cloze's quoted sentence, split at its blank; the blank's neighbours on each side, the
# fewest of them, and the fewest that are not stop words, for its phrase to be telling.
BLANKED = re.compile(r"“([^”]*)____([^”]*)”")
CONTEXT_WORDS = 2
CONTEXT_LEAST = 3
CONTEXT_CONTENT = 2
# The fewest distinctive words by which a short value is found out of order.
DISTINCTIVE_LEAST = 2
# Elements that annotate one cell: a copy on another sheet annotates another cell.
ANNOTATION_KINDS = frozenset({"comment", "comment-reply", "note"})
UNTESTABLE = frozenset({"yes", "no", "true", "false", "none", "n/a"})


@dataclass
class LeakageResult:
    verdict: Verdict
    evidence: str
    reason: str


def testable(value: str) -> bool:
    normal = normalize(value)
    return len(normal.replace(" ", "")) >= 3 and normal not in UNTESTABLE


def _shingles(words: list[str], size: int = 3) -> set[tuple[str, ...]]:
    return {tuple(words[i : i + size]) for i in range(max(1, len(words) - size + 1))}


def _contains_value(paragraph: str, value: str, value_words: list[str]) -> bool:
    """The value on the line: as a phrase; a short value also by its distinctive words in
    another order ("2030 reduction scenario" for "Reduction scenario 2030"); a long one by
    most of its word triples."""
    if len(value_words) < 6:
        if f" {value} " in f" {paragraph} ":
            return True
        distinctive = _distinctive(value_words)
        return len(distinctive) >= DISTINCTIVE_LEAST and distinctive <= set(paragraph.split())
    wanted = _shingles(value_words)
    if len(wanted & _shingles(paragraph.split())) < SHINGLE_SHARE * len(wanted):
        return False
    distinctive = _distinctive(value_words)  # "… at daughter birth" is not "… calving"
    return len(distinctive - set(paragraph.split())) <= MISSING_SHARE * len(distinctive)


def _distinctive(words: list[str]) -> set[str]:
    """The words of a value a reader would search for: no stop words, no one-letter words."""
    return {word for word in words if word not in STOPWORDS and len(word) > 1}


def _without_value(line: str, value: str, value_words: list[str]) -> str:
    """The line with the value taken out (its phrase, else each of its words once)."""
    padded = f" {line} "
    if f" {value} " in padded:
        return padded.replace(f" {value} ", " ", 1)
    for word in value_words:
        padded = padded.replace(f" {word} ", " ", 1)
    return padded


Lines = list[tuple[str, str]]


def lines(text: str, memo: dict[str, str] | None = None) -> Lines:
    """(raw, normalised) lines of a view; table rows and annex entries are one line each.

    `memo` carries normalised lines across the views of one document, which share most lines.
    """
    memo = {} if memo is None else memo
    out = []
    for line in text.splitlines():
        if not line.strip():
            continue
        if line not in memo:
            memo[line] = " ".join(tokens(line))
        out.append((line, memo[line]))
    return out


def test(view_lines: Lines, probe: Probe) -> LeakageResult:
    """fail = the view still gives the answer away; pass = it does not."""
    if not testable(probe.value):
        return LeakageResult(
            "unverified", "", f"answer {probe.value!r} is too short to test lexically"
        )
    value = normalize(probe.value)
    value_words = value.split()
    anchors = [normalize(phrase) for phrase in probe.anchor if normalize(phrase)]
    for line, normal in view_lines:
        if not _contains_value(normal, value, value_words):
            continue
        rest = _without_value(normal, value, value_words)
        if not all(_has_anchor(rest, anchor) for anchor in anchors):
            continue
        return LeakageResult("fail", line.strip()[:300], "answer still stated in this view")
    where = "near its anchor words" if anchors else "anywhere"
    return LeakageResult("pass", "", f"answer not found {where} in this view")


def test_elements(
    view_lines: Lines,
    probe: Probe,
    target: Artifact,
    related: frozenset[str],
    index: ElementIndex,
    view: View,
    cloze: bool = False,
    question: str = "",
) -> LeakageResult:
    """`test`, reading the whole view and judging each match by the element that states it.

    A question that names its target apart is not answered by a mirror element of the same
    kind: another PivotTable or defined name (the question names its own), the same comment
    on a copied sheet (the question names its sheet and cell). A formula copied to another
    sheet still states the computation, and rejects.
    """
    if not testable(probe.value):
        return LeakageResult(
            "unverified", "", f"answer {probe.value!r} is too short to test lexically"
        )
    value = normalize(probe.value)
    value_words = value.split()
    anchors = [normalize(phrase) for phrase in probe.anchor if normalize(phrase)]
    shown = f"anchors {anchors}" if anchors else "no anchors"
    here = place(target)
    context = _blank_context(question, value) if cloze else ""
    other_elements: list[str] = []
    unanchored: list[str] = []
    for line, normal in view_lines:
        if not _contains_value(normal, value, value_words):
            continue
        owner = index.owner(
            normal, value, view, lambda own: _contains_value(own, value, value_words)
        )
        where = owner.locator if owner is not None else "the body text"
        rest = _without_value(normal, value, value_words)
        if all(_has_anchor(rest, anchor) for anchor in anchors):
            if not cloze and (
                _sibling(owner, target, related)
                or _named_apart(owner, target, related, question)
                or _longer_text(owner, target, related, value)
            ):
                other_elements.append(where)
                continue
            reason = f"answer still stated in this view, by {where} ({shown})"
            return LeakageResult("fail", line.strip()[:300], reason)
        if context and f" {context} " in f" {normal} ":
            reason = f"{where} repeats the blank's phrase “{context}”"
            return LeakageResult("fail", line.strip()[:300], reason)
        if cloze and _same_slide_other_kind(owner, target, here):
            reason = f"{here.lower()}, {where} states the answer too ({shown})"
            return LeakageResult("fail", line.strip()[:300], reason)
        unanchored.append(where)
    reason = f"no line of this view states the answer with its anchors ({shown})"
    if other_elements:
        reason += f"; only other elements state it: {_listed(other_elements)}"
    if unanchored:
        reason += f"; it appears without its anchors in: {_listed(unanchored)}"
    return LeakageResult("pass", "", reason)


def _sibling(owner: Artifact | None, target: Artifact, related: frozenset[str]) -> bool:
    """A different element of the target's category, for a question about an element's property.

    Content (a cell, an equation, a formula, a link target) stated again by another element
    still gives the answer away: only properties (a size, an effect, a position) are exempt.
    """
    return (
        owner is not None
        and target.about_property
        and owner.id not in related
        and owner.category == target.category
    )


def _longer_text(
    owner: Artifact | None, target: Artifact, related: frozenset[str], value: str
) -> bool:
    """Another element of the target's kind whose own text only contains the answer, where
    the answer is the target's whole text: the title "What is a profiler tool" does not state
    the title "What is a profiler"."""
    if owner is None or owner.id in related or owner.kind != target.kind:
        return False
    mine = normalize(str(target.facts.get("plain") or target.text))
    theirs = normalize(str(owner.facts.get("plain") or owner.text))
    return mine == value and theirs != value


def _blank_context(question: str, value: str) -> str:
    """The blank of a cloze with the words around it filled in ("our volunteers planted
    young"): another passage that repeats this phrase states the missing word. Empty when the
    neighbours are too few or only stop words (the phrase would be common)."""
    found = BLANKED.search(question)
    if found is None:
        return ""
    before, after = tokens(found.group(1))[-CONTEXT_WORDS:], tokens(found.group(2))[:CONTEXT_WORDS]
    around = before + after
    if len(around) < CONTEXT_LEAST or sum(w not in STOPWORDS for w in around) < CONTEXT_CONTENT:
        return ""
    return " ".join([*before, value, *after])


def _named_apart(
    owner: Artifact | None, target: Artifact, related: frozenset[str], question: str
) -> bool:
    """Another element of the target's kind that the question's own naming rules out: the
    question names the target's sheet and cell, or the target's name, and not the owner's."""
    if owner is None or owner.id in related or owner.kind != target.kind or not question:
        return False
    asked = f" {normalize(question)} "
    mine, theirs = target.facts, owner.facts
    name, other = str(mine.get("name") or ""), str(theirs.get("name") or "")
    if name and normalize(name) != normalize(other) and f" {normalize(name)} " in asked:
        return True
    if target.kind not in ANNOTATION_KINDS:
        return False
    cell = str(mine.get("ref") or mine.get("cell") or "")
    sheet = normalize(sheet_of(target))
    return bool(cell and sheet and place(target) != place(owner)) and all(
        f" {normalize(part)} " in asked for part in (cell, sheet)
    )


def _same_slide_other_kind(owner: Artifact | None, target: Artifact, here: str) -> bool:
    """Another kind of text or table on the target's slide (notes and slide, shape and table)."""
    return (
        owner is not None
        and slide_of(target) is not None
        and owner.kind != target.kind
        and owner.modality in ("text", "table")
        and place(owner) == here
    )


def _listed(places: list[str], most: int = 3) -> str:
    unique = list(dict.fromkeys(places))
    more = f" and {len(unique) - most} more" if len(unique) > most else ""
    return ", ".join(unique[:most]) + more


def _has_anchor(line: str, anchor: str) -> bool:
    """Short anchors must appear as a phrase; long ones by a share of their content words."""
    words = content_tokens(anchor)
    if len(words) <= SHORT_ANCHOR:
        return f" {anchor} " in f" {line} "
    present = set(words) & set(line.split())
    # A cell address or number in the anchor ("… c4") is what singles the element out.
    if any(any(c.isdigit() for c in word) and word not in present for word in words):
        return False
    return len(present) >= ANCHOR_SHARE * len(set(words))
