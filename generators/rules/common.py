"""Rules and helpers shared by the per-application rule modules.

Deterministic picks, table cells, the alt-text filter, and the rules whose body is the
same in every application: chart questions and document properties.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from extractors.chart import formatted_points
from fidelity.model import Artifact, Candidate, Document
from fidelity.text import normalize
from generators.draft import candidate, quote

Rule = Callable[[Document, Artifact], list[Candidate]]

MAX_CELLS = 3
# Built-in properties that make poor questions: counts, timings, versions, tool names.
NOISY_PROPERTIES = frozenset(
    {
        "Template",
        "TotalTime",
        "Pages",
        "Words",
        "Slides",
        "Notes",
        "HiddenSlides",
        "AppVersion",
        "revision",
        "lastPrinted",
        "language",
        "Application",
    }
)
# Custom properties written by tools rather than people (flags, sensitivity labels, sync add-ins).
NOISY_CUSTOM = re.compile(
    r"^(AppVersion|DocSecurity|HyperlinksChanged|LinksUpToDate|ScaleCrop|ShareDoc"
    r"|MSIP_.*|Offisync.*|_.*)$"
)
# Alt text an application fills in by itself ("Picture 3", a file name) describes nothing.
GENERIC_ALT = re.compile(
    r"^(picture|image|graphic|chart|figure|ink)\s*\d*$|\.(png|jpe?g|gif|emf|wmf|bmp|tiff?)$", re.I
)
# Multiplies the per-artifact caps (cells per table, sentences per chunk); `regen` raises it.
_widen: ContextVar[int] = ContextVar("widen", default=1)


def cap(limit: int) -> int:
    """A per-artifact cap as the current generation pass allows it (see `widened`)."""
    return limit * _widen.get()


@contextmanager
def widened(factor: int) -> Iterator[None]:
    """Rules called inside draw up to `factor` times more candidates per artifact.

    The extra candidates extend the default ones (same picks first), so a wider
    pass returns a superset of a normal one.
    """
    token = _widen.set(max(1, factor))
    try:
        yield
    finally:
        _widen.reset(token)


def pick(key: str, count: int) -> int:
    """A stable pseudo-random index in range(count) derived from `key`."""
    return int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) % max(1, count)


def table_cells(
    rows: list[list[str]], key: str, limit: int = MAX_CELLS
) -> list[tuple[str, str, str]]:
    """(row header, column header, value) for a few unambiguous cells of a grid.

    The first row is taken as column headers and the first column as row headers;
    a cell qualifies when its row and column headers are unique and non-empty and
    it is not itself a header-like repeat.
    """
    if len(rows) < 2 or len(rows[0]) < 2:
        return []
    header = rows[0]
    row_headers = [row[0] for row in rows[1:] if row]
    candidates = []
    for row in rows[1:]:
        if len(row) != len(header) or not row[0] or row_headers.count(row[0]) > 1:
            continue
        for column in range(1, len(header)):
            name, value = header[column], row[column]
            if not name or not value or header.count(name) > 1 or value in (name, row[0]):
                continue
            candidates.append((row[0], name, value))
    chosen: list[tuple[str, str, str]] = []
    while candidates and len(chosen) < cap(limit):
        chosen.append(candidates.pop(pick(f"{key}:{len(chosen)}", len(candidates))))
    return chosen


def described(alt: str) -> bool:
    """True when an alt text is an author's description, not a default name or file name."""
    return len(alt) >= 8 and not GENERIC_ALT.search(alt.strip())


def chart_questions(document: Document, artifact: Artifact) -> list[Candidate]:
    """Title, type and one data point of a chart (Word and PowerPoint charts)."""
    facts = artifact.facts
    title = facts.get("title")
    name = f"the chart titled “{quote(title, 60)}”" if title else artifact.locator
    out = []
    if title:
        out.append(
            candidate(
                document,
                artifact,
                "chart-title",
                f"What is the title of {artifact.locator}?",
                [f"The chart's title is “{title}”."],
                value=title,
                anchor=["chart title"],
            )
        )
    if facts.get("type_label"):
        out.append(
            candidate(
                document,
                artifact,
                "chart-type",
                f"What type of chart is {name}?",
                [f"It is a {facts['type_label']}."],
                value=facts["type_label"],
                anchor=["chart type"],
            )
        )
    for series in facts.get("series", [])[:1]:
        points = [(c, v) for c, v in formatted_points(series) if c and v]
        if not points or not series.get("name"):
            continue
        category, value = points[pick(artifact.id, len(points))]
        out.append(
            candidate(
                document,
                artifact,
                "chart-value",
                f"In {name}, what value does the series “{series['name']}” show for “{category}”?",
                [f"The series “{series['name']}” shows {value} for “{category}”."],
                value=str(value),
                anchor=[str(series["name"]), str(category)],
            )
        )
    return out


def metadata_rule(noun: str, value_question: Callable[[str], str]) -> Rule:
    """The document-property rule for an application whose files are called `noun`.

    `value_question(label)` asks for a property that is neither a person nor a date.
    """

    def metadata(document: Document, artifact: Artifact) -> list[Candidate]:
        facts = artifact.facts
        key, label, value = facts["key"], facts["label"], facts["value"]
        if len(normalize(value).replace(" ", "")) < 3 or normalize(value) in ("true", "false"):
            return []
        if facts["source"] == "custom":
            if NOISY_CUSTOM.match(key):
                return []
            question = f"What value does the custom document property “{label}” hold?"
        elif key in NOISY_PROPERTIES:
            return []
        elif key in ("creator", "lastModifiedBy", "Manager"):
            question = f"Who is recorded as the {noun}'s {label.lower()} in its properties?"
        elif key in ("created", "modified"):
            question = f"When was the {noun} {label.lower()}, according to its properties?"
        else:
            question = value_question(label)
        return [
            candidate(
                document,
                artifact,
                f"metadata-{key}",
                question,
                [f"The document property “{label}” is {value}."],
                value=value,
                anchor=[label],
            )
        ]

    return metadata
