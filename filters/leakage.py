"""The lexical answer-leakage test: can the reference answer still be read from a view?

It looks for the answer value in a line of the view that also carries each of the
question's anchors (a short anchor as a phrase, a long one by most of its content
words: the passage, row header or property a question is about), so a property
question is judged on whether the view still *states* the property, not on whether
the answer's words occur somewhere in the body.
"""

from __future__ import annotations

from dataclasses import dataclass

from fidelity.model import Probe, Verdict
from fidelity.text import content_tokens, normalize, tokens

MATCH = "lexical-leakage"
ANCHOR_SHARE = 0.6
SHORT_ANCHOR = 4
SHINGLE_SHARE = 0.8
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
    if len(value_words) < 6:
        return f" {value} " in f" {paragraph} "
    wanted = _shingles(value_words)
    return len(wanted & _shingles(paragraph.split())) >= SHINGLE_SHARE * len(wanted)


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
        rest = f" {normal} ".replace(f" {value} ", " ", 1)
        if not all(_has_anchor(rest, anchor) for anchor in anchors):
            continue
        return LeakageResult("fail", line.strip()[:300], "answer still stated in this view")
    where = "near its anchor words" if anchors else "anywhere"
    return LeakageResult("pass", "", f"answer not found {where} in this view")


def _has_anchor(line: str, anchor: str) -> bool:
    """Short anchors must appear as a phrase; long ones by a share of their content words."""
    words = content_tokens(anchor)
    if len(words) <= SHORT_ANCHOR:
        return f" {anchor} " in f" {line} "
    present = set(words) & set(line.split())
    return len(present) >= ANCHOR_SHARE * len(set(words))
