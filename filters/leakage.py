"""The lexical answer-leakage test: can the reference answer still be read from a view?

It looks for the answer value in a paragraph of the view that also carries most of
the question's anchor words (the passage, cell headers or property a question is
about), so a property question is judged on whether the view still *states* the
property, not on whether the answer's words occur somewhere in the body.
"""

from __future__ import annotations

from dataclasses import dataclass

from filters.normalize import content_tokens, normalize, tokens
from fidelity.model import Probe, Verdict

MATCH = "lexical-leakage"
ANCHOR_SHARE = 0.6
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


def paragraphs(text: str) -> list[str]:
    """Lines of the view; table rows and annex entries are one line each."""
    return [line for line in text.splitlines() if line.strip()]


def test(view_text: str, probe: Probe) -> LeakageResult:
    """fail = the view still gives the answer away; pass = it does not."""
    if not testable(probe.value):
        return LeakageResult(
            "unverified", "", f"answer {probe.value!r} is too short to test lexically"
        )
    value = normalize(probe.value)
    value_words = value.split()
    anchor = set()
    for phrase in probe.anchor:
        anchor.update(content_tokens(phrase))
    for line in paragraphs(view_text):
        normal = " ".join(tokens(line))
        if not _contains_value(normal, value, value_words):
            continue
        if anchor:
            present = anchor & set(normal.split())
            if len(present) < ANCHOR_SHARE * len(anchor):
                continue
        return LeakageResult("fail", line.strip()[:300], "answer still stated in this view")
    where = "near its anchor words" if anchor else "anywhere"
    return LeakageResult("pass", "", f"answer not found {where} in this view")
