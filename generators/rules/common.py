"""Rules and helpers shared by the per-application rule modules.

Deterministic picks, table cells, the alt-text filter, and the rules whose body is the
same in every application: chart questions and document properties.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from difflib import SequenceMatcher

from fidelity.core.document import Artifact, Candidate, Document
from fidelity.core.text import normalize
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
# A description Office wrote by itself ("A picture containing text. Description automatically
# generated"): no author's words, low value.
MACHINE_ALT = re.compile(
    r"automatically generated|generated with (?:very )?(?:high|medium|low) confidence", re.I
)
# One token with digits, underscores or inner capitals ("clip_image001", "meeting2",
# "PowerPointFront"): a file or object name, not a description.
IDENTIFIER_ALT = re.compile(r"^\S*(\d|_|[a-z][A-Z])\S*$")
# Labels a table reader does not see: positional stand-ins and bare enumerators ("1.", "b)").
POSITIONAL_LABEL = re.compile(
    r"^(row|column|col)\s*\d+$|^\(?(\d{1,3}|[a-z]|[ivxlc]{1,4})[.)]$|^\W*$", re.I
)
GUID = re.compile(r"^\{?[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}\}?$", re.I)
WORDS = re.compile(r"[^\W\d_]+")
SENTENCE_END = re.compile(r"[.!?…][”\"')\]]*$")
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


@dataclass(frozen=True)
class TableCell:
    """What one question about a table asks: a row label, its column header (None in a
    two-column key–value table) and every value that header covers in the row."""

    row: str
    column: str | None
    values: tuple[str, ...]

    @property
    def value(self) -> str:
        return "; ".join(self.values)


MAX_VALUE_CHARS = 120
ORDINAL_WORDS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")


def table_cells(
    rows: list[list[str]], key: str, limit: int = MAX_CELLS, header: bool = True
) -> list[TableCell]:
    """A few unambiguous cells of a grid (merged cells repeated over their span).

    The first column holds row labels; with `header` the first row holds column headers.
    A header merged over several columns (the same text repeated side by side) covers
    all their values, which the cell then lists in order. A two-column grid is read as
    label–value pairs, with no column header asked. Rows whose label repeats, labels a
    reader does not see ('row 2', a bare '1.') and values that repeat the labels or run
    longer than a short answer are left out.
    """
    rows = _without_title_row([row for row in rows if row]) if header else rows
    width = max((len(row) for row in rows), default=0)
    if len(rows) < 2 or width < 2:
        return []
    pairs = width == 2
    body = rows[1:] if header else rows
    if all(cell_number(cell) is not None for row in body for cell in row if cell):
        return []  # a grid of numbers only: no row is labelled, every cell is guessable
    labels = [row[0] for row in body]
    columns = _header_spans(rows[0]) if header and not pairs else []
    candidates = []
    for row in body:
        if len(row) != width or not labelled(row[0]) or labels.count(row[0]) > 1:
            continue
        if row[1] == row[0] and rows[0][1] != rows[0][0]:  # label spans columns the header splits
            continue
        if pairs:
            value = row[1]
            if (
                value
                and value != row[0]
                and len(value) <= MAX_VALUE_CHARS
                and not GUID.match(value)
            ):
                candidates.append(TableCell(row[0], None, (value,)))
            continue
        for name, first, last in columns:
            values = tuple(dict.fromkeys(v for v in row[first : last + 1] if v))
            if not labelled(name) or not values or len("; ".join(values)) > MAX_VALUE_CHARS:
                continue
            if any(v in (name, row[0]) or GUID.match(v) for v in values):
                continue
            candidates.append(TableCell(row[0], name, values))
    chosen: list[TableCell] = []
    while candidates and len(chosen) < cap(limit):
        chosen.append(candidates.pop(pick(f"{key}:{len(chosen)}", len(candidates))))
    return chosen


def table_cell_question(
    document: Document, artifact: Artifact, where: str, cell: TableCell
) -> Candidate:
    """The question on one TableCell of the table `where` names ('table 3 (under “…”)')."""
    label = quote(cell.row, 50)
    row = (
        f"the row beginning with “{label}”"
        if cell_number(cell.row) is not None
        else f"the row “{label}”"
    )
    if cell.column is None:
        return candidate(
            document,
            artifact,
            "table-cell",
            f"In {where}, what value is given for “{label}”?",
            [f"{where[0].upper()}{where[1:]} gives {cell.value} for “{cell.row}”."],
            value=cell.value,
            anchor=[cell.row],
        )
    column = quote(cell.column, 50)
    if len(cell.values) == 1:
        return candidate(
            document,
            artifact,
            "table-cell",
            f"In {where}, what is the value in {row} under the column “{column}”?",
            [f"The value in row “{cell.row}”, column “{cell.column}” is {cell.value}."],
            value=cell.value,
            anchor=[cell.row],
        )
    return candidate(
        document,
        artifact,
        "table-merged-header",
        f"In {where}, which values does {row} show under the merged column header "
        f"“{column}” (from left to right)?",
        [
            f"The {ORDINAL_WORDS[i] if i < len(ORDINAL_WORDS) else f'#{i + 1}'} value under "
            f"“{column}” in {row} is {v}."
            for i, v in enumerate(cell.values)
        ],
        value=cell.values[0],
        anchor=[cell.row],
        notes=[f"the header “{cell.column}” spans {len(cell.values)} values in this row"],
    )


NUMBER_CELL = re.compile(r"^[-+(]?[$€£]?\s*[\d,]*\.?\d+\s*%?\)?$")


def cell_number(text: str) -> float | None:
    """The number a table cell shows ('1,234', '$7.50', '12%', '(3)'), or None."""
    text = text.strip()
    if not NUMBER_CELL.match(text):
        return None
    sign = -1 if text.startswith(("-", "(")) else 1
    digits = re.sub(r"[^\d.]", "", text)
    try:
        return sign * float(digits)
    except ValueError:
        return None


def table_comparison(
    document: Document, artifact: Artifact, where: str, rows: list[list[str]], header: bool = True
) -> list[Candidate]:
    """The extreme of a numeric column (see `table_extreme`) and the comparisons beyond it
    (see `table_families`)."""
    return (
        table_extreme(document, artifact, where, rows, header)
        + table_families(document, artifact, where, rows, header)
        + rows_with(document, artifact, where, rows, header)
    )


def table_extreme(
    document: Document, artifact: Artifact, where: str, rows: list[list[str]], header: bool = True
) -> list[Candidate]:
    """Which row holds the highest (or lowest) value of a numeric column, and that value.

    The column is one whose every body cell is a number (three rows or more) under a
    header seen once; ties make the question ambiguous and skip it.
    """
    rows = _without_title_row([row for row in rows if row]) if header else rows
    width = max((len(row) for row in rows), default=0)
    if width < 2 or len(rows) < (4 if header else 3):
        return []
    body = [row for row in (rows[1:] if header else rows) if len(row) == width]
    labels = [row[0] for row in body]
    if len(set(labels)) != len(labels) or not all(labelled(label) for label in labels):
        return []
    if all(cell_number(label) is not None for label in labels):  # a data column, not labels
        return []
    columns: list[tuple[str | None, int]] = [(None, 1)] if width == 2 and not header else []
    if header:
        columns = [(name, first) for name, first, last in _header_spans(rows[0]) if first == last]
    out = []
    for name, column in columns:
        numbers = [cell_number(row[column]) for row in body]
        if len(body) < 3 or any(n is None for n in numbers):
            continue
        highest = pick(f"{artifact.id}:extreme:{column}", 2) == 0
        target = max(numbers) if highest else min(numbers)  # type: ignore[type-var]
        hits = [row for row, n in zip(body, numbers, strict=True) if n == target]
        if len(hits) != 1:
            continue
        word = "highest" if highest else "lowest"
        label, value = hits[0][0], hits[0][column]
        under = f" in the column “{quote(name, 50)}”" if name else ""
        out.append(
            candidate(
                document,
                artifact,
                "table-extreme",
                f"In {where}, which row has the {word} value{under}, and what is that value?",
                [f"The row “{label}” has the {word} value{under}.", f"That value is {value}."],
                value=value,
                anchor=[label],
            )
        )
        if len(out) >= cap(1):
            break
    return out


# A row that sums or averages the others: comparisons over the rows would count it as one.
TOTAL_LABEL = re.compile(
    r"\b(total|totals|sum|subtotal|overall|average|mean|gesamt|summe|insgesamt|somme|suma"
    r"|totale|итого|всего)\b",
    re.I,
)
# Column headers over numbers that are codes, not quantities: summing or subtracting them
# means nothing.
CODE_HEADER = re.compile(
    r"\b(year|years|date|no|nr|number|id|code|phone|zip|postcode|rank|ranking|#|page|ref)\b\.?",
    re.I,
)
# Headers over amounts a reader adds up (counts, money, time, people); other measures
# (distances, rates, test statistics) have no meaningful sum.
ADDITIVE_HEADER = re.compile(
    r"\b(count|counts|amount|amounts|cost|costs|price|sales|revenue|revenues|budget|units|"
    r"quantity|qty|hours|days|students|people|persons|members|votes|spend|spending|expenses|"
    r"expense|income|sold|orders|visits|visitors|employees|staff|cases|participants|"
    r"responses|respondents|items|pieces|stock|fee|fees|funding|grant|grants|pay|payment|"
    r"payments|salary|deaths|births|patients|users|sessions|downloads|tickets|seats)\b",
    re.I,
)
MAX_LISTED = 4
MAX_CATEGORY = 30
SHARES_AT_MOST = 100.5
MAX_SUMMED = 12


@dataclass(frozen=True)
class NumericColumn:
    """A table column whose every body cell is a number, with the rows' labels."""

    name: str | None
    labels: tuple[str, ...]
    texts: tuple[str, ...]
    numbers: tuple[float, ...]


def labelled_columns(
    rows: list[list[str]], header: bool = True
) -> list[tuple[str | None, tuple[str, ...], tuple[str, ...]]]:
    """(header, row labels, cells) of each column of a grid whose first column labels its
    rows (each label seen once, a reader sees it), three body rows or more, under headers
    seen once."""
    rows = _without_title_row([row for row in rows if row]) if header else rows
    width = max((len(row) for row in rows), default=0)
    if width < 2 or len(rows) < (4 if header else 3):
        return []
    body = [row for row in (rows[1:] if header else rows) if len(row) == width]
    labels = tuple(row[0] for row in body)
    if len(body) < 3 or len(set(labels)) != len(labels):
        return []
    if not all(labelled(label) for label in labels):
        return []
    if all(cell_number(label) is not None for label in labels):  # a data column, not labels
        return []
    columns: list[tuple[str | None, int]] = [(None, 1)] if width == 2 and not header else []
    if header:
        columns = [(name, first) for name, first, last in _header_spans(rows[0]) if first == last]
    return [(name, labels, tuple(row[column].strip() for row in body)) for name, column in columns]


def numeric_columns(rows: list[list[str]], header: bool = True) -> list[NumericColumn]:
    """The columns of `labelled_columns` whose every cell is a number."""
    out = []
    for name, labels, texts in labelled_columns(rows, header):
        numbers = [cell_number(text) for text in texts]
        if all(n is not None for n in numbers):
            out.append(
                NumericColumn(name, labels, texts, tuple(n for n in numbers if n is not None))
            )
    return out


def rows_with(
    document: Document, artifact: Artifact, where: str, rows: list[list[str]], header: bool = True
) -> list[Candidate]:
    """A list answer over a column of categories ("Yes"/"No", a status, a region): every row
    that shows a value stated in the question, the value held by two to four rows and not
    by all. The column is named by its header; its cells are short words, not numbers."""
    for name, labels, texts in labelled_columns(rows, header):
        if (
            not name
            or not labelled(name)
            or any(
                not text or len(text) > MAX_CATEGORY or cell_number(text) is not None
                for text in texts
            )
        ):
            continue
        options = sorted(
            {text for text in texts if 2 <= texts.count(text) <= MAX_LISTED} - set(labels) - {name}
        )
        options = [text for text in options if texts.count(text) < len(texts) - 1]
        if not options:
            continue
        value = options[pick(f"{artifact.id}:{name}:with", len(options))]
        hits = [label for label, text in zip(labels, texts, strict=True) if text == value]
        column = quote(name, 50)
        return [
            candidate(
                document,
                artifact,
                "table-rows-with",
                f"In {where}, which rows show “{value}” in the column “{column}”?",
                [f"The row “{label}” shows “{value}” under “{name}”." for label in hits]
                + [f"No other row shows “{value}” there."],
                value=hits[0],
                anchor=[value],
                notes=[f"list answer: all {len(hits)} rows with this value"],
            )
        ]
    return []


def _quantities(column: NumericColumn) -> bool:
    """True for a column of quantities a reader would add or subtract: no total row among
    the rows, no year, code or rank header, not the sequence 1, 2, 3…"""
    if any(TOTAL_LABEL.search(label) for label in column.labels):
        return False
    if column.name and CODE_HEADER.search(column.name):
        return False
    if list(column.numbers) == [float(i) for i in range(1, len(column.numbers) + 1)]:
        return False
    if _subtotals(column.numbers):
        return False
    if all(t.endswith("%") for t in column.texts) and sum(column.numbers) > SHARES_AT_MOST:
        return False  # shares adding up past the whole: some rows hold the others' subtotal
    return not all(n.is_integer() and 1900 <= n <= 2100 for n in column.numbers)


def _subtotals(numbers: tuple[float, ...]) -> bool:
    """True when a row's value is the sum of two or more rows right below it (a group's
    subtotal above its members, 1% rounding allowed)."""
    for first, value in enumerate(numbers):
        running = 0.0
        for below in numbers[first + 1 :]:
            running += below
            if running > value * 1.01 + 1e-9:
                break
            if below != running and abs(running - value) <= abs(value) * 0.01 + 1e-9:
                return True
    return False


def _decimals(text: str) -> int:
    digits = re.sub(r"[^\d.]", "", text)
    return len(digits.split(".", 1)[1]) if "." in digits else 0


def shown_like(value: float, like: Iterable[str]) -> str:
    """A computed number written as the cells it comes from write theirs: the same
    currency sign, percent sign, decimals and thousands separator."""
    like = [text.strip() for text in like]
    decimals = max((_decimals(text) for text in like), default=0)
    grouped = any("," in text for text in like)
    body = f"{abs(value):,.{decimals}f}" if grouped else f"{abs(value):.{decimals}f}"
    sign = "-" if round(value, decimals) < 0 else ""
    currency = next((c for c in "$€£" if all(c in text for text in like)), "")
    percent = "%" if all(text.endswith("%") for text in like) else ""
    return f"{sign}{currency}{body}{percent}"


def _under(column: NumericColumn) -> str:
    return f" in the column “{quote(column.name, 50)}”" if column.name else ""


def table_families(
    document: Document,
    artifact: Artifact,
    where: str,
    rows: list[list[str]],
    header: bool = True,
    rounded: bool = False,
) -> list[Candidate]:
    """Comparisons beyond the extreme over a table's numeric columns: the second highest
    row, the difference between two named rows, the rows above a stated value (a list
    answer), and the column's sum when neither the table nor the text states it.

    With `rounded` the cells show numbers a format may have rounded (a worksheet's): only
    what rounding keeps is asked, the order of rows, and the rows above a named row whose
    shown value no other row shares; no difference or sum of shown values.
    """
    out: list[Candidate] = []
    families = (_second, _above_row) if rounded else (_second, _difference, _above, _column_sum)
    for column in numeric_columns(rows, header):
        if not _quantities(column) or (column.name and cell_number(column.name) is not None):
            continue  # a column headed "1" or "2020" is a point of a scale, not a quantity
        key = f"{artifact.id}:{column.name}"
        for family in families:
            if (made := family(document, artifact, where, column, key)) is not None:
                out.append(made)
        if out:
            break
    return out


def stated_anywhere(document: Document, value: str) -> bool:
    """True when the body or any element of the document writes the value (as whole words)."""
    said = " ".join([document.body, *(a.text for a in document.artifacts)])
    return f" {normalize(value)} " in f" {normalize(said)} "


def _probe(value: str, label: str) -> tuple[str, list[str]]:
    """(probe value, anchors) for an answer of a label and its value: the value near the
    label, or the label near the value when the value is too short to look for ("85")."""
    if len(normalize(value).replace(" ", "")) >= 3 or len(normalize(label)) < 3:
        return value, [label]
    return label, [value]


def said_elsewhere(document: Document, artifact: Artifact, label: str, value: str) -> bool:
    """True when another element writes the value on a line with the label (a table that
    repeats a chart's figures, a sentence quoting a cell): a computed answer from the pair
    is no longer the target's alone."""
    label, value = f" {normalize(label)} ", f" {normalize(value)} "
    return any(
        label in f" {normalize(line)} " and value in f" {normalize(line)} "
        for other in document.artifacts
        if other.id != artifact.id
        for line in other.text.splitlines()
    )


def _ranked(numbers: tuple[float, ...], highest: bool) -> list[int]:
    return sorted(range(len(numbers)), key=lambda i: -numbers[i] if highest else numbers[i])


def _second(
    document: Document, artifact: Artifact, where: str, column: NumericColumn, key: str
) -> Candidate | None:
    """Which row holds the second highest (or lowest) value; four rows or more, no tie
    among the first three."""
    if len(column.numbers) < 4:
        return None
    highest = pick(f"{key}:second", 2) == 0
    order = _ranked(column.numbers, highest)
    first, second, third = (column.numbers[i] for i in order[:3])
    if len({first, second, third}) != 3:
        return None
    word = "second highest" if highest else "second lowest"
    label, value = column.labels[order[1]], column.texts[order[1]]
    under = _under(column)
    return candidate(
        document,
        artifact,
        "table-second",
        f"In {where}, which row has the {word} value{under}, and what is that value?",
        [f"The row “{label}” has the {word} value{under}.", f"That value is {value}."],
        value=_probe(value, label)[0],
        anchor=_probe(value, label)[1],
        notes=[f"ranked among {len(column.numbers)} rows"],
    )


def _difference(
    document: Document, artifact: Artifact, where: str, column: NumericColumn, key: str
) -> Candidate | None:
    """How much higher one named row's value is than another's (two distinct values)."""
    options = [
        (i, j)
        for i in range(len(column.numbers))
        for j in range(len(column.numbers))
        if column.numbers[i] > column.numbers[j]
    ]
    if not options:
        return None
    i, j = options[pick(f"{key}:difference", len(options))]
    texts = (column.texts[i], column.texts[j])
    if all(said_elsewhere(document, artifact, column.labels[k], column.texts[k]) for k in (i, j)):
        return None
    gap = shown_like(column.numbers[i] - column.numbers[j], texts)
    if gap.endswith("%"):
        gap = f"{gap[:-1]} percentage points"
    high, low = quote(column.labels[i], 50), quote(column.labels[j], 50)
    under = _under(column)
    return candidate(
        document,
        artifact,
        "table-difference",
        f"In {where}, by how much does the value of the row “{high}” exceed that of the row "
        f"“{low}”{under}?",
        [
            f"The row “{column.labels[i]}” shows {texts[0]} and the row “{column.labels[j]}” "
            f"shows {texts[1]}{under}.",
            f"The difference is {gap}.",
        ],
        value=gap,  # both rows are named in the question: a text stating the gap leaks it
        anchor=[column.labels[i]],
        notes=["computed: the difference of two cells"],
    )


def _above(
    document: Document, artifact: Artifact, where: str, column: NumericColumn, key: str
) -> Candidate | None:
    """Every row whose value exceeds another row's value, stated in the question: a list
    answer of one to four rows, with at least two rows below."""
    distinct = sorted(set(column.numbers), reverse=True)
    options = [
        v
        for v in distinct[1 : MAX_LISTED + 1]
        if sum(n < v for n in column.numbers) >= 2
        and sum(n > v for n in column.numbers) <= MAX_LISTED
    ]
    if not options:
        return None
    bound = options[pick(f"{key}:above", len(options))]
    threshold = column.texts[column.numbers.index(bound)]
    hits = [i for i, n in enumerate(column.numbers) if n > bound]
    if len(hits) > MAX_LISTED:
        return None
    under = _under(column)
    labels = [column.labels[i] for i in hits]
    return candidate(
        document,
        artifact,
        "table-above",
        f"In {where}, which rows show a value greater than {threshold}{under}?",
        [f"The row “{column.labels[i]}” shows {column.texts[i]}." for i in hits]
        + [f"No other row shows more than {threshold}."],
        value=_probe(column.texts[hits[0]], labels[0])[0],
        anchor=_probe(column.texts[hits[0]], labels[0])[1],
        notes=[f"list answer: all {len(hits)} rows above {threshold}"],
    )


def _above_row(
    document: Document, artifact: Artifact, where: str, column: NumericColumn, key: str
) -> Candidate | None:
    """Every row whose shown value is higher than a named row's (a list answer of one to
    four rows, at least two rows below), the named row's value shown by no other row."""
    options = [
        i
        for i, v in enumerate(column.numbers)
        if column.numbers.count(v) == 1
        and 1 <= sum(n > v for n in column.numbers) <= MAX_LISTED
        and sum(n < v for n in column.numbers) >= 2
    ]
    if not options:
        return None
    named = options[pick(f"{key}:above", len(options))]
    hits = [i for i, n in enumerate(column.numbers) if n > column.numbers[named]]
    label, under = column.labels[named], _under(column)
    return candidate(
        document,
        artifact,
        "table-above",
        f"In {where}, which rows show a higher value than the row “{quote(label, 50)}”{under}?",
        [
            f"The row “{column.labels[i]}” shows {column.texts[i]}, more than the "
            f"{column.texts[named]} of “{label}”."
            for i in hits
        ]
        + [f"No other row shows more than “{label}”."],
        value=_probe(column.texts[hits[0]], column.labels[hits[0]])[0],
        anchor=_probe(column.texts[hits[0]], column.labels[hits[0]])[1],
        notes=[f"list answer: all {len(hits)} rows above “{label}”"],
    )


def _column_sum(
    document: Document, artifact: Artifact, where: str, column: NumericColumn, key: str
) -> Candidate | None:
    """The sum of a short column of amounts (money, or a header naming what is counted; no
    percentages) when no cell of the table and no line of the document states it."""
    if len(column.numbers) > MAX_SUMMED or any(text.endswith("%") for text in column.texts):
        return None
    money = all(any(c in text for c in "$€£") for text in column.texts)
    if not column.name or not (money or ADDITIVE_HEADER.search(column.name)):
        return None
    total = shown_like(sum(column.numbers), column.texts)
    if total in column.texts or stated_anywhere(document, total):
        return None
    return candidate(
        document,
        artifact,
        "table-sum",
        f"In {where}, what do the values in the column “{quote(column.name, 50)}” add up to "
        f"over its {len(column.numbers)} rows?",
        [f"The {len(column.numbers)} values in the column “{column.name}” add up to {total}."],
        value=total,
        anchor=[column.name],
        notes=["computed: the table states no total"],
    )


def _without_title_row(rows: list[list[str]]) -> list[list[str]]:
    """Drop a first row merged across the whole table (a title, not column headers)."""
    if len(rows) > 2 and len(set(rows[0])) == 1 and len(rows[0]) > 2:
        return rows[1:]
    if len(rows) > 2 and len(set(rows[0][1:])) == 1 and len(rows[0]) > 3:
        return rows[1:]
    return rows


def _header_spans(header: list[str]) -> list[tuple[str, int, int]]:
    """(header text, first column, last column) of each column header after the first;
    a header merged over several columns is one span. Headers that appear in two places
    are left out (a reader could not tell which is meant)."""
    spans: list[tuple[str, int, int]] = []
    for column, name in enumerate(header):
        if column == 0:
            continue
        if spans and spans[-1][0] == name and spans[-1][2] == column - 1:
            spans[-1] = (name, spans[-1][1], column)
        else:
            spans.append((name, column, column))
    names = [name for name, _, _ in spans]
    return [span for span in spans if span[0] and names.count(span[0]) == 1]


def described(alt: str) -> bool:
    """True when an alt text is an author's description, not a default name or file name."""
    alt = alt.strip()
    return (
        len(alt) >= 8
        and not GENERIC_ALT.search(alt)
        and not IDENTIFIER_ALT.match(alt)
        and not MACHINE_ALT.search(alt)
    )


def labelled(label: str) -> bool:
    """True when a row or column label is one a reader sees, not 'row 3' or a bare '1.'."""
    return bool(label.strip()) and not POSITIONAL_LABEL.match(label.strip())


CLOZE_SENTENCE = re.compile(r"(?<=[.!?])\s+")
CLOZE_NUMBER = re.compile(r"(?<![\w.])\d[\d,.]*\d%?(?![\w])|(?<![\w.])\d{2,}%?(?![\w])")
CLOZE_WORD = re.compile(r"[^\W\d_]{7,}")
# Long words a sentence's grammar or a stock phrase supplies ("Regardless of", "For example",
# "according to"): a blank on them tests English, not the file.
STOCK_WORDS = frozenset(
    "however therefore regardless although additionally furthermore moreover nevertheless "
    "otherwise meanwhile including following according whether because between through "
    "without within another example examples important especially different several instead "
    "usually actually probably perhaps certain general generally overall possible together "
    "various whatever whenever wherever whereas already against towards further thereby "
    "respectively particular specific anything everything something nothing everyone someone "
    "everybody somebody themselves yourself ourselves".split()
)
# The shortest stem two words share for one to give the other away ("script").
PAIRED_STEM = 6
# Separators of a run of fragments ("Poly, Inv, F1a, F1b, idem, …").
FRAGMENT_SEPARATOR = re.compile(r"[,;:]")


# What a cloze blanks in one sentence: (span, "number" or "word"), or None for no blank.
ClozeChoice = Callable[[str], tuple[str, str] | None]


def cloze(
    sentences: Iterable[str], choose: ClozeChoice, limit: int, shortest: int
) -> list[tuple[str, str, str]]:
    """(sentence with a blank, blanked span, "number" or "word") for up to `cap(limit)` real
    sentences (see `is_sentence`) of `shortest` to 300 characters; `choose` picks each span.

    The one cloze rule of every application: they differ only in how they cut sentences
    and choose the span.
    """
    out: list[tuple[str, str, str]] = []
    for sentence in sentences:
        if len(out) >= cap(limit):
            break
        if not shortest <= len(sentence) <= 300 or not is_sentence(sentence):
            continue
        choice = choose(sentence)
        if choice is not None and (choice[1] != "word" or blankable(choice[0], sentence)):
            span, noun = choice
            out.append((sentence.replace(span, "____", 1), span, noun))
    return out


def blankable(word: str, sentence: str) -> bool:
    """A word worth blanking: not a stock word, not the sentence's first word (which its
    stock phrase or capital gives away: "____ makes perfect"), not repeated in the sentence."""
    first = WORDS.search(sentence)
    return (
        word.casefold() not in STOCK_WORDS
        and (first is None or first.group(0) != word or first.start() > 2)
        and len(re.findall(rf"\b{re.escape(word)}\b", sentence, re.IGNORECASE)) == 1
        and not _paired(word, sentence)
    )


def named_in(sentence: str, word: str) -> bool:
    """A name inside the sentence (capitalised, not its first word): what the file says, not
    what English or a stock phrase gives ("electronic identity ____", "a ____ in A4")."""
    return word[:1].isupper() and not sentence.lstrip("“\"'(←→ ").startswith(word)


def _paired(word: str, sentence: str) -> bool:
    """Another word of the sentence shares a long stem with the blank ("subscripts and
    ____" for "superscript"): the pairing fills it."""
    lowered = word.casefold()
    for other in WORDS.findall(sentence):
        other = other.casefold()
        if other == lowered or len(other) < PAIRED_STEM:
            continue
        match = SequenceMatcher(None, lowered, other).find_longest_match()
        if match.size >= PAIRED_STEM:
            return True
    return False


def cloze_spans(text: str, limit: int = 2) -> list[tuple[str, str]]:
    """(sentence with a blank, blanked span): numbers first, else a long distinctive word.

    Only real sentences are blanked (see `is_sentence`): a list item or a line of
    keywords gives no context to fill the blank from.
    """
    sentences = (
        " ".join(sentence.split())
        for line in text.splitlines()
        for sentence in CLOZE_SENTENCE.split(line.strip())
    )

    def choose(sentence: str) -> tuple[str, str] | None:
        tokens = f" {normalize(sentence)} "
        numbers = [n for n in CLOZE_NUMBER.findall(sentence) if f" {normalize(n)} " in tokens]
        if numbers:
            return max(numbers, key=len), "number"
        words = [
            w
            for w in CLOZE_WORD.findall(sentence)
            if text.count(w) == 1
            and f" {normalize(w)} " in tokens
            and blankable(w, sentence)
            and named_in(sentence, w)
        ]
        return (max(words, key=len), "word") if words else None

    return [(blanked, span) for blanked, span, _ in cloze(sentences, choose, limit, 30)]


def is_sentence(text: str) -> bool:
    """True for a real sentence: six words or more, ending as a sentence ends (or running to
    ten words or more), not a list of fragments separated by commas, not the lower-case tail
    of a sentence cut at an abbreviation ("… software, e.g. for aircraft avionics")."""
    words = WORDS.findall(text)
    if len(words) < 6 or text.rstrip().endswith((",", ";", "-", "–")):
        return False
    if text.lstrip("“\"'(")[:1].islower():
        return False
    if _fragments(text):
        return False
    return bool(SENTENCE_END.search(text.strip())) or len(words) >= 10


def _fragments(text: str) -> bool:
    """A run of short fragments between commas, semicolons or colons (a keyword list, a list
    item trailing off in "…"), not a sentence."""
    parts = [part.strip() for part in FRAGMENT_SEPARATOR.split(text)]
    if len(parts) < 3:
        return False
    if not WORDS.search(parts[-1]):  # "Vector DBs, specialized data prep vendors, …"
        return True
    short = sum(1 for part in parts if len(WORDS.findall(part)) <= 3)
    return short >= 0.75 * len(parts)


# Words of the title a chart gets before its author names it ("Chart Title", "Title text",
# "Diagrammtitel", "Titre du graphique").
PLACEHOLDER_TITLE_WORDS = frozenset(
    "chart title text diagrammtitel diagrammtitle titre du graphique título del gráfico "
    "titolo grafico название диаграммы".split()
)


def sample_data(facts: dict) -> bool:
    """True for a chart that still holds the data Office fills a freshly inserted chart
    with (the chart parser's `sample_data`): nothing about it is the author's."""
    return bool(facts.get("sample_data"))


def _chart_place(document: Document, artifact: Artifact) -> str | None:
    """Where a reader finds a chart without its title: its slide, or its place in the file."""
    slide = artifact.facts.get("slide")
    if slide is None:
        return artifact.locator
    charts = [a for a in document.artifacts if a.kind == "chart" and a.facts.get("slide") == slide]
    return f"the chart on slide {slide}" if len(charts) <= 1 else None


def categorical(facts: dict) -> bool:
    """A chart whose points stand over categories (not a scatter or bubble chart of x values)."""
    return not any(group.get("type") in ("scatter", "bubble") for group in facts.get("types", []))


def chart_title_and_type(
    document: Document,
    artifact: Artifact,
    title: str | None,
    place: str,
    name: str,
    unique: Callable[[str], bool] = lambda _: True,
) -> list[Candidate]:
    """A chart's title (asked of its `place`, when it has one and `unique` says no other
    chart states it) and its type (asked of its `name`: its title or its place)."""
    out = []
    if title and unique(title):
        out.append(
            candidate(
                document,
                artifact,
                "chart-title",
                f"What is the title of {place}?",
                [f"The chart's title is “{' '.join(title.split())}”."],
                value=title,
                anchor=["chart title"],
            )
        )
    kind = artifact.facts.get("type_label")
    if kind and unique(kind):
        out.append(
            candidate(
                document,
                artifact,
                "chart-type",
                f"What type of chart is {name}?",
                [f"It is a {kind}."],
                value=kind,
                anchor=["chart type"],
            )
        )
    return out


def chart_questions(document: Document, artifact: Artifact) -> list[Candidate]:
    """Title, type, one data point and the highest or lowest point of a chart (Word and
    PowerPoint charts)."""
    facts = artifact.facts
    title = facts.get("title")
    if title and set(normalize(title).split()) <= PLACEHOLDER_TITLE_WORDS:
        title = None  # "Chart Title", "Title text": the placeholder, not a name
    place = _chart_place(document, artifact)
    name = f"the chart titled “{quote(title, 60)}”" if title else place
    if name is None or sample_data(facts):
        return []
    out = chart_title_and_type(document, artifact, title if place else None, place or "", name)
    if not categorical(facts):
        return out  # an X-Y chart has x values, no categories to ask a value "for"
    for series in facts.get("series", [])[:1]:
        points = [(c, v) for c, v in series.get("points", []) if c and v and c != v]
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
    return out + chart_extremes(document, artifact, name) + chart_families(document, artifact, name)


def chart_extremes(document: Document, artifact: Artifact, name: str) -> list[Candidate]:
    """Which category holds the highest (or lowest) value of a chart's first named series,
    and that value; a tie makes the question ambiguous and skips it."""
    for series in artifact.facts.get("series", [])[:1]:
        shown = [(c, v) for c, v in series.get("points", [])]
        raw = [v for v in series.get("values", []) if v is not None]
        if not series.get("name") or len(shown) < 3 or len(raw) != len(shown):
            continue
        try:
            numbers = [float(v) for v in raw]
        except (TypeError, ValueError):
            continue
        highest = pick(f"{artifact.id}:extreme", 2) == 0
        target = max(numbers) if highest else min(numbers)
        hits = [point for point, n in zip(shown, numbers, strict=True) if n == target]
        categories = [c for c, _ in shown]
        if len(hits) != 1 or len(set(categories)) != len(categories) or not all(categories):
            continue  # a tie, a category shown twice, or one without a label
        category, value = hits[0]
        word = "highest" if highest else "lowest"
        series_name = series["name"]
        return [
            candidate(
                document,
                artifact,
                "chart-extreme",
                f"In {name}, which category has the {word} value in the series “{series_name}”, "
                "and what is that value?",
                [
                    f"“{category}” has the {word} value of the series “{series_name}”.",
                    f"That value is {value}.",
                ],
                value=str(value),
                anchor=[str(series_name), str(category)],
            )
        ]
    return []


def _plotted(series: dict) -> list[tuple[str, str, float]] | None:
    """(category, shown value, shown number) of each point of a named series whose shown
    values are the numbers it plots, unrounded (a fraction may show as its percentage; no
    blank point), with categories seen once; None otherwise."""
    shown = list(series.get("points", []))
    raw = list(series.get("values", []))
    if not series.get("name") or len(shown) < 3 or len(raw) != len(shown):
        return None
    out = []
    for (category, text), value in zip(shown, raw, strict=True):
        try:
            number = float(value)
        except (TypeError, ValueError):
            return None
        shown_number = cell_number(str(text))
        if str(text).strip().endswith("%") and shown_number is not None:
            shown_number /= 100  # a fraction shown as a percentage: 0.217 as "21.7%"
        if not category or shown_number is None or abs(shown_number - number) > 1e-9:
            return None
        out.append((str(category), str(text), cell_number(str(text)) or 0.0))
    categories = [c for c, _, _ in out]
    return out if len(set(categories)) == len(categories) else None


def chart_families(document: Document, artifact: Artifact, name: str) -> list[Candidate]:
    """Comparisons beyond the extreme over a chart's data: the category with the second
    highest (or lowest) value of its first series, and the gap between the first two
    series at one category. The probes anchor on the category alone, so a table that
    states the same figures by the same categories is found to give the answer away."""
    series = [s for s in artifact.facts.get("series", []) if s.get("name")]
    plotted = [(s["name"], p) for s in series if (p := _plotted(s)) is not None]
    if not plotted or len(plotted) != len(series):
        return []
    first_name, first = plotted[0]
    out = []
    numbers = tuple(n for _, _, n in first)
    highest = pick(f"{artifact.id}:second", 2) == 0
    order = _ranked(numbers, highest)
    if len(numbers) >= 4 and len({numbers[i] for i in order[:3]}) == 3:
        word = "second highest" if highest else "second lowest"
        category, text, _ = first[order[1]]
        out.append(
            candidate(
                document,
                artifact,
                "chart-second",
                f"In {name}, which category has the {word} value in the series "
                f"“{first_name}”, and what is that value?",
                [
                    f"“{category}” has the {word} value of the series “{first_name}”.",
                    f"That value is {text}.",
                ],
                value=_probe(text, category)[0],
                anchor=_probe(text, category)[1],
            )
        )
    if len(plotted) >= 2:
        (a_name, a), (b_name, b) = plotted[:2]
        if [c for c, _, _ in a] != [c for c, _, _ in b] or a_name == b_name:
            return out
        options = [i for i in range(len(a)) if a[i][2] != b[i][2]]
        if not options:
            return out
        i = options[pick(f"{artifact.id}:gap", len(options))]
        (high_name, high), (low_name, low) = (
            ((a_name, a[i]), (b_name, b[i]))
            if a[i][2] > b[i][2]
            else ((b_name, b[i]), (a_name, a[i]))
        )
        if all(said_elsewhere(document, artifact, high[0], point[1]) for point in (high, low)):
            return out  # a table states both figures: the gap is not the chart's alone
        gap = shown_like(high[2] - low[2], (high[1], low[1]))
        if gap.endswith("%"):
            gap = f"{gap[:-1]} percentage points"
        out.append(
            candidate(
                document,
                artifact,
                "chart-difference",
                f"In {name}, for “{high[0]}”, by how much does the series “{high_name}” exceed "
                f"the series “{low_name}”?",
                [
                    f"For “{high[0]}”, “{high_name}” shows {high[1]} and “{low_name}” shows "
                    f"{low[1]}.",
                    f"The difference is {gap}.",
                ],
                value=gap,
                anchor=[high[0]],
                notes=["computed: the difference of two plotted values"],
            )
        )
    return out


# A later property the file often leaves equal to an earlier one (saved once, by its author).
PAIRED_PROPERTIES = {"modified": "created", "lastModifiedBy": "creator"}


def _property(document: Document, key: str) -> Artifact | None:
    return next(
        (
            a
            for a in document.artifacts
            if a.kind == "metadata"
            and a.facts.get("key") == key
            and a.facts.get("source") != "custom"
        ),
        None,
    )


def _same_value(document: Document, key: str, value: str) -> Artifact | None:
    """The property `key` when it holds the same value (normalised), else None."""
    other = _property(document, key)
    if other is None or normalize(str(other.facts.get("value"))) != normalize(value):
        return None
    return other


def metadata_rule(noun: str, value_question: Callable[[str], str]) -> Rule:
    """The document-property rule for an application whose files are called `noun`.

    `value_question(label)` asks for a property that is neither a person nor a date.
    When the file's last save left "Modified" equal to "Created" (or "Last modified by"
    equal to the author), either property states the other: one question asks both.
    """

    def metadata(document: Document, artifact: Artifact) -> list[Candidate]:
        facts = artifact.facts
        key, label, value = facts["key"], facts["label"], facts["value"]
        if len(normalize(value).replace(" ", "")) < 3 or normalize(value) in ("true", "false"):
            return []
        answer, notes = [f"The document property “{label}” is {value}."], []
        if facts["source"] == "custom":
            if NOISY_CUSTOM.match(key):
                return []
            question = f"What value does the custom document property “{label}” hold?"
        elif key in NOISY_PROPERTIES:
            return []
        elif key in PAIRED_PROPERTIES and _same_value(document, PAIRED_PROPERTIES[key], value):
            return []  # asked together with its pair
        elif other := next(
            (
                same
                for later, earlier in PAIRED_PROPERTIES.items()
                if earlier == key and (same := _same_value(document, later, value))
            ),
            None,
        ):
            question = (
                f"When was the {noun} created, and when was it last modified, according to its "
                "properties?"
                if key == "created"
                else f"Who is recorded as the {noun}'s {label.lower()}, and who last modified "
                "it, according to its properties?"
            )
            answer.append(f"The document property “{other.facts['label']}” is {value}.")
            notes.append(f"“{label}” and “{other.facts['label']}” hold the same value")
        elif key == "lastModifiedBy":
            question = f"Who last modified the {noun}, according to its properties?"
        elif key in ("creator", "Manager"):
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
                answer,
                value=value,
                anchor=[label],
                notes=notes,
            )
        ]

    return metadata
