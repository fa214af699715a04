"""Does a model's response give the reference answer? Deterministic rules first, then judges.

The deterministic pass compares canonical forms (case, whitespace, punctuation, numbers
without separators, percentages, unambiguous dates as ISO, URLs without scheme) and
decides the clear cases: an abstention, the same text, the answer value inside the
response, the same or a different number/date/URL, a yes/no of the same or opposite
sense. Everything else goes to a judge model asked, statement by statement, whether the
response satisfies that atomic statement; with a panel of up to three judge models each
statement is decided by majority. The response matches when every statement is satisfied.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

from pydantic import BaseModel

from fidelity.core.document import Candidate
from fidelity.core.llm import ModelClient
from fidelity.core.prompt import load
from fidelity.core.text import normalize

JUDGE_PROMPT = "judge-statement"
ABSTENTIONS = frozenset(
    normalize(phrase)
    for phrase in (
        "unknown",
        "not known",
        "n/a",
        "none",
        "no answer",
        "I don't know",
        "I do not know",
        "cannot be determined",
        "can't be determined",
        "cannot determine",
        "cannot tell",
        "cannot answer",
        "not stated",
        "not provided",
        "not specified",
        "not mentioned",
        "not available",
        "no information",
        "insufficient information",
    )
)
SHORT_RESPONSE = 8
BOOLEAN = {"yes": "yes", "true": "yes", "no": "no", "false": "no"}
MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}
_MONTH = "(" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_ORDINAL = r"(\d{1,2})(?:st|nd|rd|th)?"
_ISO = re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})(?:[t ][\d:.]+z?)?\b", re.IGNORECASE)
_DAY_MONTH_YEAR = re.compile(rf"\b{_ORDINAL}\s+(?:of\s+)?{_MONTH},?\s+(\d{{4}})\b", re.IGNORECASE)
_MONTH_DAY_YEAR = re.compile(rf"\b{_MONTH}\s+{_ORDINAL},?\s+(\d{{4}})\b", re.IGNORECASE)
_MONTH_YEAR = re.compile(rf"\b{_MONTH},?\s+(\d{{4}})\b", re.IGNORECASE)
_SLASHED = re.compile(r"\b(\d{1,2})[/.](\d{1,2})[/.](\d{4})\b")
_URL = re.compile(r"\b(?:(?:https?|ftp)://|mailto:|www\.)[^\s<>\"')\]]+", re.IGNORECASE)
_PERCENT_WORD = re.compile(r"(\d)\s*(?:%|per\s?cent\b)", re.IGNORECASE)
_NUMBER = re.compile(r"^[-+]?\d+(?:\.\d+)?%?$")
_DATE = re.compile(r"^\d{4}-\d{2}(?:-\d{2})?$")
_ADDRESS = re.compile(r"^(?:[\w\-]+\.)+[a-z]{2,}(?:/\S*)?$|^[^@\s]+@[\w\-]+(?:\.[\w\-]+)+$")


@dataclass
class Match:
    """The outcome of matching: matched (None = undecided), how, why, which model calls."""

    matched: bool | None
    method: str
    reason: str
    calls: list[str] = field(default_factory=list)


def _date(year: str, month: int, day: str | None = None) -> str:
    if not 1 <= month <= 12 or (day is not None and not 1 <= int(day) <= 31):
        return ""
    return f"{int(year):04d}-{month:02d}" + (f"-{int(day):02d}" if day else "")


def _dates(text: str) -> str:
    """Unambiguous dates rewritten as ISO (a d/m vs m/d date only when one part is > 12)."""

    def iso(match: re.Match[str]) -> str:
        return _date(match[1], int(match[2]), match[3]) or match[0]

    def day_month(match: re.Match[str]) -> str:
        return _date(match[3], MONTHS[match[2].lower()], match[1]) or match[0]

    def month_day(match: re.Match[str]) -> str:
        return _date(match[3], MONTHS[match[1].lower()], match[2]) or match[0]

    def month_year(match: re.Match[str]) -> str:
        return _date(match[2], MONTHS[match[1].lower()]) or match[0]

    def slashed(match: re.Match[str]) -> str:
        first, second = int(match[1]), int(match[2])
        if first > 12 >= second:
            return _date(match[3], second, match[1]) or match[0]
        if second > 12 >= first:
            return _date(match[3], first, match[2]) or match[0]
        return match[0]

    text = _ISO.sub(iso, text)
    text = _DAY_MONTH_YEAR.sub(day_month, text)
    text = _MONTH_DAY_YEAR.sub(month_day, text)
    text = _MONTH_YEAR.sub(month_year, text)
    return _SLASHED.sub(slashed, text)


def _url(match: re.Match[str]) -> str:
    url = match[0].rstrip(".,;:!?").lower()
    url = re.sub(r"^(?:(?:https?|ftp)://|mailto:)", "", url)
    url = re.sub(r"^www\.", "", url)
    return f" {url.rstrip('/')} "


def _number(token: str) -> str:
    if not _NUMBER.match(token):
        return token
    percent = token.endswith("%")
    try:
        value = Decimal(token.rstrip("%"))
    except InvalidOperation:
        return token
    text = format(value.normalize(), "f") if value else "0"
    return text + ("%" if percent else "")


def canonical(text: str) -> str:
    """The comparable form of an answer: normalised, with numbers, dates and URLs canonical."""
    text = _URL.sub(_url, text)
    text = _dates(text)
    text = _PERCENT_WORD.sub(r"\1%", text)
    return " ".join(_number(token) for token in normalize(text).split())


def _kind(token: str) -> str:
    """'date', 'number' or 'url' for a canonical token of that type, else ''."""
    if _DATE.match(token):
        return "date"
    if _NUMBER.match(token):
        return "number"
    return "url" if _ADDRESS.match(token) else ""


def _scalar(token: str) -> str:
    """A number compares with or without its percent sign (21.7% states 21.7)."""
    return token.rstrip("%")


def abstains(said: str) -> bool:
    """A canonical response that declines to answer."""
    if said in ABSTENTIONS:
        return True
    return len(said.split()) <= SHORT_RESPONSE and any(_contains(said, a) for a in ABSTENTIONS)


def _contains(haystack: str, needle: str) -> bool:
    return f" {needle} " in f" {haystack} "


def deterministic(response: str, candidate: Candidate) -> Match | None:
    """A decision when normalisation settles it, else None (the judge decides)."""
    said = canonical(response)
    value = canonical(candidate.probe.value)
    if said and (said == value or any(said == canonical(s) for s in candidate.answer)):
        return Match(True, "normalized:exact", "the response is the reference answer")
    if not said or abstains(said):
        return Match(False, "normalized:abstained", "the response gives no answer")
    if value in BOOLEAN:
        first = BOOLEAN.get(said.split()[0])
        if first is not None:
            same = first == BOOLEAN[value]
            return Match(same, "normalized:yes-no", f"the response starts with {said.split()[0]!r}")
        return None
    kind = _kind(value) if len(value.split()) == 1 else ""
    if kind:
        found = [token for token in said.split() if _kind(token) == kind]
        if _scalar(value) in {_scalar(token) for token in found}:
            return Match(True, f"normalized:{kind}", f"the response states the {kind} {value}")
        if found and len(said.split()) <= 12:
            return Match(False, f"normalized:{kind}", f"the response states {', '.join(found[:3])}")
        return None
    if len(value.replace(" ", "")) >= 3 and _contains(said, value):
        return Match(True, "normalized:contains", "the response contains the answer value")
    return None


class JudgeVerdict(BaseModel):
    satisfied: bool
    reason: str


class Matcher:
    """Deterministic matching, then a judge (or a majority of a panel) for what is left."""

    def __init__(self, client: ModelClient, judges: list[str] | None = None) -> None:
        self.client = client
        self.prompt = load(JUDGE_PROMPT)
        self.roles = ["judge"]
        if judges:  # each panel member gets a role of its own, naming its model
            self.roles = [f"judge:{model}" for model in judges]
            for role, model in zip(self.roles, judges, strict=True):
                client.settings.roles.setdefault(role, model)

    def match(self, candidate: Candidate, response: str) -> Match:
        decided = deterministic(response, candidate)
        if decided is not None:
            return decided
        calls: list[str] = []
        notes: list[str] = []
        method = self._method(0, 0)  # a candidate without statements: all (none) satisfied
        for number, s in enumerate(candidate.answer, 1):
            votes = [self._ask(role, candidate.question, response, s) for role in self.roles]
            calls.extend(call for _, _, call in votes if call)
            cast = [(yes, why) for yes, why, _ in votes if yes is not None]
            method = self._method(len([y for y, _ in cast if y]), len(cast))
            if not cast:
                return Match(None, method, "no judge could decide: " + votes[0][1], calls)
            satisfied = sum(1 for yes, _ in cast if yes) * 2 > len(cast)
            why = next(reason for yes, reason in cast if yes == satisfied)
            said = "satisfied" if satisfied else "not satisfied"
            notes.append(f"statement {number} {said}: {why}")
            if not satisfied:
                return Match(False, method, "; ".join(notes), calls)
        return Match(True, method, "; ".join(notes), calls)

    def _method(self, yes: int, cast: int) -> str:
        if len(self.roles) == 1:
            return f"judge:{self.client.model_for(self.roles[0])}"
        return f"panel:{yes}/{cast}"

    def _ask(
        self, role: str, question: str, response: str, statement: str
    ) -> tuple[bool | None, str, str]:
        """(satisfied or None when the call failed, reason, record id)."""
        reply = self.client.complete(
            role,
            self.prompt.messages(question=question, response=response, statement=statement),
            JudgeVerdict,
            stage="filter",
        )
        if not reply.ok:
            return None, reply.error, reply.record_id
        verdict: JudgeVerdict = reply.parsed
        return verdict.satisfied, " ".join(verdict.reason.split()), reply.record_id
