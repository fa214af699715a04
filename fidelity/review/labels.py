"""An annotator's answers to one task, and strict parsing of what people type in.

Every reader collects its problems in a `Checker` (file, line or row, field, what is
wrong, the accepted values) and raises them all at once, so a bad file stores nothing.
Sizes are bounded: a text field over MAX_FIELD_CHARS, a line over MAX_LINE_BYTES or a
JSON file over MAX_JSON_BYTES is such a problem, and text that is not UTF-8 is named by
its line.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, NoReturn

REVIEW = "review"
ADJUDICATION = "adjudication"
ROUNDS = (REVIEW, ADJUDICATION)
ANNOTATORS = ("annotator-1", "annotator-2")
YES = ("yes", "y", "true", "1", "correct", "located", "oui", "ja")
NO = ("no", "n", "false", "0", "incorrect", "not located", "non", "nein")
ACCEPTED_YES_NO = f"yes: {', '.join(YES)}; no: {', '.join(NO)}; or empty"
RATINGS = (1, 2, 3, 4, 5)
ACCEPTED_QUALITY = "a whole number from 1 to 5, or empty"
MAX_FIELD_CHARS = 20_000  # a comment, a mark, a revised question or answer statement
MAX_LINE_BYTES = 8 * 1024 * 1024  # one exported task with its evidence, and the answers
MAX_JSON_BYTES = 256 * 1024 * 1024  # a whole Label Studio or Argilla export
NEWLINE = b"\n"
# The answer fields every format carries (revisions are optional in every format).
ANSWER_FIELDS = (
    "correct",
    "evidence_located",
    "evidence_mark",
    "quality",
    "comment",
    "revised_question",
    "revised_answer",
)


@dataclass
class Label:
    """One person's answers to one task in one round (review or adjudication).

    `revised_question` / `revised_answer` hold the person's edit of the question and of
    its answer statements (empty: no change).
    """

    task_id: str
    annotator: str
    round: str = REVIEW
    correct: bool | None = None
    evidence_located: bool | None = None
    evidence_mark: str = ""
    quality: int | None = None
    comment: str = ""
    revised_question: str = ""
    revised_answer: list[str] = field(default_factory=list)
    source: str = ""
    where: str = ""

    @property
    def answered(self) -> bool:
        """False for a row or record the person left untouched."""
        given = (self.correct, self.evidence_located, self.quality)
        texts = (self.evidence_mark, self.comment, self.revised_question, self.revised_answer)
        return any(v is not None for v in given) or any(texts)

    @property
    def revised(self) -> bool:
        return bool(self.revised_question or self.revised_answer)

    def key(self) -> tuple[str, str, str]:
        return (self.task_id, self.round, self.annotator)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class ReviewFileError(ValueError):
    """A review file that cannot be imported; `problems` says where and why, one per line."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("\n".join(problems))


class Checker:
    """Parses one file's values strictly, collecting every problem with its place."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.problems: list[str] = []

    def fail(self, where: str, name: str, message: str) -> None:
        self.problems.append(f"{self.path}: {where}: {name}: {message}")

    def done(self) -> None:
        if self.problems:
            raise ReviewFileError(self.problems)

    def refuse(self, where: str, name: str, message: str) -> NoReturn:
        """A problem that ends the reading: raised with the problems found before it."""
        self.fail(where, name, message)
        raise ReviewFileError(self.problems)

    def yes_no(self, value: Any, where: str, name: str) -> bool | None:
        """'yes'/'no' (and the spellings in YES/NO, booleans); empty is None."""
        if isinstance(value, list) and len(value) <= 1:
            value = value[0] if value else None
        if value is None or isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if not text:
            return None
        if text in YES:
            return True
        if text in NO:
            return False
        self.fail(where, name, f"{value!r} is not allowed (accepted: {ACCEPTED_YES_NO})")
        return None

    def quality(self, value: Any, where: str, name: str) -> int | None:
        """A whole 1-5 rating from a number, a numeric string or a one-element list."""
        if isinstance(value, list) and len(value) <= 1:
            value = value[0] if value else None
        if value is None or str(value).strip() == "":
            return None
        try:
            number = float(str(value).strip())
        except ValueError:
            number = 0.0
        if isinstance(value, bool) or number not in RATINGS:
            self.fail(where, name, f"{value!r} is not allowed (accepted: {ACCEPTED_QUALITY})")
            return None
        return int(number)

    def text(self, value: Any, where: str, name: str) -> str:
        if value is None:
            return ""
        if isinstance(value, str | int | float) and not isinstance(value, bool):
            text = str(value).strip()
            if len(text) > MAX_FIELD_CHARS:
                self.fail(where, name, f"{len(text)} characters, over the {MAX_FIELD_CHARS} limit")
                return ""
            return text
        self.fail(where, name, f"expected text, got {type(value).__name__}")
        return ""

    def decoded(self, data: bytes, where: str | None = None) -> str | None:
        """`data` as UTF-8 (None, with the problem, when it is not): the line is named, from
        `where` or counted in `data`, with the byte offset inside that line."""
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as error:
            start = data.rfind(b"\n", 0, error.start) + 1
            line = where or f"line {data.count(NEWLINE, 0, error.start) + 1}"
            offset = error.start - start + 1
            self.fail(line, "(whole line)", f"not valid UTF-8 (byte {offset}: {error.reason})")
            return None

    def statements(self, value: Any, where: str, name: str) -> list[str]:
        """Answer statements: a list of strings, or text with one statement per line."""
        if isinstance(value, list) and all(isinstance(item, str) for item in value):
            lines = value
        elif isinstance(value, list):
            self.fail(where, name, "expected a list of statements (text)")
            return []
        else:
            lines = self.text(value, where, name).splitlines()
        return [line.strip().lstrip("•-* ").strip() for line in lines if line.strip(" •-*")]

    def round(self, value: Any, where: str) -> str:
        text = self.text(value, where, "round") or REVIEW
        if text not in ROUNDS:
            self.fail(where, "round", f"{text!r} is not allowed (accepted: {', '.join(ROUNDS)})")
        return text


def load_json(path: Path, check: Checker) -> list[Any]:
    """A JSON file holding a list (an export); a clear error naming the line when it is broken."""
    size = path.stat().st_size
    if size > MAX_JSON_BYTES:
        check.refuse("line 1", "(file)", f"{size} bytes, over the {MAX_JSON_BYTES} limit")
    text = check.decoded(path.read_bytes())
    check.done()
    try:
        data = json.loads(text or "")
    except json.JSONDecodeError as error:
        check.refuse(f"line {error.lineno}", "(file)", f"not valid JSON ({error.msg}); truncated?")
    if not isinstance(data, list):
        check.refuse("line 1", "(file)", "expected a JSON list of tasks or records")
    return data


def describe(labels: list[Label]) -> str:
    """The annotators' answers in one readable block (shown to the adjudicator)."""
    lines = []
    for label in labels:
        parts = [
            f"correct={_word(label.correct)}",
            f"evidence located={_word(label.evidence_located)}",
            f"quality={label.quality if label.quality is not None else '?'}",
        ]
        if label.evidence_mark:
            parts.append(f"mark “{label.evidence_mark}”")
        if label.comment:
            parts.append(f"comment “{label.comment}”")
        if label.revised_question:
            parts.append(f"revised question “{label.revised_question}”")
        if label.revised_answer:
            parts.append(f"revised answer “{' / '.join(label.revised_answer)}”")
        lines.append(f"{label.annotator}: " + ", ".join(parts))
    return "\n".join(lines)


def _word(value: bool | None) -> str:
    return "?" if value is None else "yes" if value else "no"
