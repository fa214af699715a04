"""Apply an Excel number format code to a cell value: the text Excel would display.

Covers what real workbooks use: General, fixed decimals, thousands separators,
percentages, currency and accounting layouts, sections (positive;negative;zero;text),
colours and conditions, scientific notation, simple fractions, dates and times
(1900 and 1904 systems, elapsed [h]). Unknown constructs fall back to General.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal
from functools import lru_cache

BUILTIN_FORMATS: dict[int, str] = {
    0: "General",
    1: "0",
    2: "0.00",
    3: "#,##0",
    4: "#,##0.00",
    5: '"$"#,##0_);("$"#,##0)',
    6: '"$"#,##0_);[Red]("$"#,##0)',
    7: '"$"#,##0.00_);("$"#,##0.00)',
    8: '"$"#,##0.00_);[Red]("$"#,##0.00)',
    9: "0%",
    10: "0.00%",
    11: "0.00E+00",
    12: "# ?/?",
    13: "# ??/??",
    14: "m/d/yyyy",
    15: "d-mmm-yy",
    16: "d-mmm",
    17: "mmm-yy",
    18: "h:mm AM/PM",
    19: "h:mm:ss AM/PM",
    20: "h:mm",
    21: "h:mm:ss",
    22: "m/d/yyyy h:mm",
    37: "#,##0_);(#,##0)",
    38: "#,##0_);[Red](#,##0)",
    39: "#,##0.00_);(#,##0.00)",
    40: "#,##0.00_);[Red](#,##0.00)",
    41: '_(* #,##0_);_(* \\(#,##0\\);_(* "-"_);_(@_)',
    42: '_("$"* #,##0_);_("$"* \\(#,##0\\);_("$"* "-"_);_(@_)',
    43: '_(* #,##0.00_);_(* \\(#,##0.00\\);_(* "-"??_);_(@_)',
    44: '_("$"* #,##0.00_);_("$"* \\(#,##0.00\\);_("$"* "-"??_);_(@_)',
    45: "mm:ss",
    46: "[h]:mm:ss",
    47: "mm:ss.0",
    48: "##0.0E+0",
    49: "@",
}

_DATE_TOKEN = re.compile(
    r"\[h+\]|\[m+\]|\[s+\]|am/pm|a/p|yyyy|yy|mmmmm|mmmm|mmm|mm|m|dddd|ddd|dd|d|hh|h|ss|s|\.0+",
    re.IGNORECASE,
)
_CONDITION = re.compile(r"\[(<=|>=|<>|<|>|=)\s*(-?[\d.]+(?:E[+-]?\d+)?)\]", re.IGNORECASE)
_MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
_DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def format_code(num_fmt_id: int, custom: dict[int, str]) -> str:
    """The format code for a style's numFmtId (custom codes win over built-ins)."""
    return custom.get(num_fmt_id) or BUILTIN_FORMATS.get(num_fmt_id, "General")


@lru_cache(maxsize=4096)
def split_sections(code: str) -> tuple[str, ...]:
    """Split a format code at ';' outside quotes, brackets and escapes (cached per code)."""
    sections, current, quoted, bracket, escape = [], [], False, False, False
    for char in code:
        if escape:
            current.append(char)
            escape = False
            continue
        if char == "\\" and not quoted:
            escape = True
        elif char == '"':
            quoted = not quoted
        elif char == "[" and not quoted:
            bracket = True
        elif char == "]" and not quoted:
            bracket = False
        elif char == ";" and not quoted and not bracket:
            sections.append("".join(current))
            current = []
            continue
        current.append(char)
    sections.append("".join(current))
    return tuple(sections)


def _strip_literals(section: str) -> str:
    """The section with quoted text, escapes, brackets, padding and fills removed."""
    section = re.sub(r'"[^"]*"', "", section)
    section = re.sub(r"\\.|_.|\*.", "", section)
    return re.sub(r"\[[^\]]*\]", "", section)


@lru_cache(maxsize=4096)
def is_date_format(code: str) -> bool:
    """True when the (first section of the) code formats a serial as a date or time."""
    if not code or code.lower() == "general":
        return False
    section = split_sections(code)[0]
    if re.search(r"\[(h+|m+|s+)\]", section, re.IGNORECASE):
        return True
    bare = re.sub(r"(?<=[sS])\.0+", "", _strip_literals(section))
    return bool(re.search(r"[ymdhs]", bare, re.IGNORECASE)) and not re.search(r"[0#?]", bare)


def general(value: float) -> str:
    """Excel's General format: up to 11 characters, integers without a decimal point."""
    if value == 0:
        return "0"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e11:
        return str(int(value))
    magnitude = abs(value)
    if 1e-9 <= magnitude < 1e11:
        digits = max(0, 10 - max(0, int(math.floor(math.log10(magnitude))) + 1))
        text = _rounded_repr(value, digits) or f"{_round(value, digits):f}"
        if "." in text:
            text = text.rstrip("0").rstrip(".")
        return text
    mantissa, exponent = f"{value:.5E}".split("E")
    mantissa = mantissa.rstrip("0").rstrip(".")
    sign = "-" if exponent.startswith("-") else "+"
    return f"{mantissa}E{sign}{abs(int(exponent)):02d}"


def _rounded_repr(value: float, places: int) -> str | None:
    """`_round(value, places)` as text, worked on the digits of the value's repr (the
    Decimal it rounds) when that is written without an exponent; None otherwise.

    Half up: the value moves away from zero when the first dropped digit is 5 or more.
    """
    shortest = repr(value)
    whole, point, fraction = shortest.partition(".")
    if not point or "e" in fraction:
        return None
    sign = "-" if whole.startswith("-") else ""
    if len(fraction) <= places:  # nothing dropped: only zeros added
        return shortest + "0" * (places - len(fraction))
    kept = int(whole.lstrip("-") + fraction[:places]) + (fraction[places] >= "5")
    if not places:
        return f"{sign}{kept}"
    digits = str(kept).rjust(places + 1, "0")
    return f"{sign}{digits[:-places]}.{digits[-places:]}"


def _round(value: float, places: int) -> Decimal:
    quantum = Decimal(1).scaleb(-places)
    return Decimal(repr(value)).quantize(quantum, rounding=ROUND_HALF_UP)


def _conditions(sections: tuple[str, ...]) -> tuple[tuple[str, str] | None, ...]:
    """Each section's [condition] as (operator, bound as written), None where it has none."""
    found = [_CONDITION.search(section) for section in sections]
    return tuple(None if match is None else (match.group(1), match.group(2)) for match in found)


@dataclass(frozen=True, slots=True)
class _Code:
    """What a format code's text decides, worked out once per distinct code."""

    sections: tuple[str, ...]
    conditions: tuple[tuple[str, str] | None, ...]
    conditional: bool  # whether the first or second section has a [condition]
    general: bool  # numbers are shown in General (no code, General or '@')
    text_tokens: tuple[tuple[str, str], ...] | None  # the section showing strings, if any


@lru_cache(maxsize=4096)
def _code(code: str) -> _Code:
    """The sections, conditions and text section of a format code (cached per code text)."""
    sections = split_sections(code) if code else ()
    conditions = _conditions(sections)
    text_section = next((s for s in sections if "@" in s), None)
    if text_section is None and len(sections) == 4:
        text_section = sections[3]
    return _Code(
        sections=sections,
        conditions=conditions,
        conditional=any(conditions[:2]),
        general=not code or code.strip().lower() in ("general", "@"),
        text_tokens=None if text_section is None else _tokens(text_section),
    )


def _pick_section(code: _Code, value: float) -> tuple[str, bool]:
    """(section to use, whether the value should be shown as its absolute value)."""
    sections = code.sections
    if code.conditional:
        for section, condition in zip(sections, code.conditions, strict=False):
            if condition is None:
                return section, False
            if _holds(value, condition[0], float(condition[1])):
                return section, False
        return sections[-1], False
    if len(sections) == 1 or (value > 0) or (value == 0 and len(sections) == 2):
        return sections[0], False
    if value < 0:
        return sections[1], True
    return sections[2] if len(sections) > 2 else sections[0], False


def _holds(value: float, operator: str, bound: float) -> bool:
    return {
        "<": value < bound,
        ">": value > bound,
        "=": value == bound,
        "<=": value <= bound,
        ">=": value >= bound,
        "<>": value != bound,
    }[operator]


def _escaped(section: str, index: int) -> tuple[str, int] | None:
    """A quoted string, a backslash-escaped character, or a `_x`/`*x` padding pair at
    `index`: (literal text, possibly empty, and the index after it); None otherwise."""
    char = section[index]
    if char == '"':
        end = section.find('"', index + 1)
        end = len(section) if end < 0 else end
        return section[index + 1 : end], end + 1
    if char == "\\" and index + 1 < len(section):
        return section[index + 1], index + 2
    if char in "_*" and index + 1 < len(section):
        return "", index + 2
    return None


def _tokens(section: str) -> tuple[tuple[str, str], ...]:
    """(kind, text): 'lit' literal text, 'ph' number placeholder characters, 'at' text slot."""
    out: list[tuple[str, str]] = []
    index = 0
    while index < len(section):
        char = section[index]
        escaped = _escaped(section, index)
        if escaped is not None:
            literal, index = escaped
            if literal:
                out.append(("lit", literal))
            continue
        if char == "[":
            end = section.find("]", index)
            end = len(section) if end < 0 else end
            inner = section[index + 1 : end]
            if inner.startswith("$"):
                symbol = inner[1:].split("-", 1)[0]
                out.append(("lit", symbol))
            index = end + 1
            continue
        if char == "%":
            out.append(("pct", char))
        elif char in "0#?.,/":
            out.append(("ph", char))
        elif char in "Ee" and index + 1 < len(section) and section[index + 1] in "+-":
            out.append(("ph", char + section[index + 1]))
            index += 2
            continue
        elif char == "@":
            out.append(("at", "@"))
        else:
            out.append(("lit", char))
        index += 1
    return tuple(out)


def _group(digits: str) -> str:
    return f"{int(digits):,}" if digits else digits


Layout = tuple[bool, int, int, str, bool, bool, int, int, int]


def _layout(tokens: tuple[tuple[str, str], ...]) -> Layout:
    """What a number section's placeholders ask for:
    (fraction, percent signs, thousands scalings, core placeholders, scientific, grouped,
    decimals, minimum decimals, minimum integer digits)."""
    placeholders = "".join(text for kind, text in tokens if kind == "ph")
    percent = sum(1 for kind, _ in tokens if kind == "pct")
    core = placeholders.replace("%", "")
    scientific = re.search(r"E[+-]", core) is not None
    thousands = 0
    while core.endswith(","):
        thousands += 1
        core = core[:-1]
    core = re.sub(r",(?=[^0#?]*$)", "", core)
    grouped = "," in core.split(".")[0]
    int_part, _, frac_part = core.replace(",", "").partition(".")
    decimals = sum(1 for c in frac_part if c in "0#?")
    return (
        "/" in placeholders,
        percent,
        thousands,
        core,
        scientific,
        grouped,
        decimals,
        frac_part.count("0"),
        int_part.count("0"),
    )


def _number(value: float, section: _Section, layout: Layout) -> str:
    fraction_, percent, thousands, core, scientific, grouped, decimals, min_decimals, min_int = (
        layout
    )
    if fraction_:
        return _fraction(value, section.tokens)
    scaled = value * (100**percent)
    for _ in range(thousands):
        scaled /= 1000
    if scientific:
        return _scientific(scaled, section.around, core)
    magnitude = abs(scaled)
    rounded = _rounded_repr(magnitude, decimals) or f"{_round(magnitude, decimals):f}"
    whole, _, fraction = rounded.partition(".")
    fraction = fraction[:decimals]
    while len(fraction) > min_decimals and fraction.endswith("0"):
        fraction = fraction[:-1]
    if whole == "0" and min_int == 0:
        whole = ""
    whole = whole.zfill(min_int) if min_int else whole
    if grouped and whole:
        whole = _group(whole)
    number = f"{whole}.{fraction}" if fraction else whole
    return _place(section.around, number, negative=scaled < 0 and float(rounded) != 0)


def _around(tokens: tuple[tuple[str, str], ...]) -> tuple[str, str, str]:
    """The literal text before the first placeholder, between placeholders, after the last."""
    first = next((i for i, (k, _) in enumerate(tokens) if k == "ph"), len(tokens))
    last = max((i for i, (k, _) in enumerate(tokens) if k == "ph"), default=-1)
    shown = ("lit", "pct")
    before = "".join(t for k, t in tokens[:first] if k in shown)
    middle = "".join(t for k, t in tokens[first : last + 1] if k in shown)
    after = "".join(t for k, t in tokens[last + 1 :] if k in shown)
    return before, middle, after


def _place(around: tuple[str, str, str], number: str, negative: bool) -> str:
    """Literals before the first placeholder, the number, literals after (in their order);
    `around` is the section's `_around`."""
    before, middle, after = around
    sign = "-" if negative else ""
    return f"{sign}{before}{number}{middle}{after}".strip()


def _scientific(value: float, around: tuple[str, str, str], core: str) -> str:
    marker = re.search(r"E([+-])", core)
    if marker is None:
        return general(value)
    mantissa_part, exponent_part, sign_style = (
        core[: marker.start()],
        core[marker.end() :],
        marker.group(1),
    )
    int_part, _, frac_part = mantissa_part.partition(".")
    decimals = len(frac_part)
    step = max(1, len(int_part)) if len(int_part) > 1 and "#" in int_part else 1
    if value == 0:
        exponent = 0
    else:
        exponent = int(math.floor(math.log10(abs(value))))
        exponent -= exponent % step
    mantissa = abs(value) / (10**exponent)
    text = f"{_round(mantissa, decimals):f}"
    if float(text) >= 10**step:
        exponent += step
        text = f"{_round(abs(value) / (10**exponent), decimals):f}"
    digits = max(len(exponent_part), 1)
    sign = "-" if exponent < 0 else ("+" if sign_style == "+" else "")
    number = f"{text}E{sign}{abs(exponent):0{digits}d}"
    return _place(around, number, negative=value < 0)


def _fraction(value: float, tokens: Sequence[tuple[str, str]]) -> str:
    placeholders = "".join(text for kind, text in tokens if kind == "ph")
    denominator_digits = len(placeholders.split("/", 1)[1].replace(",", "")) or 1
    whole = int(abs(value))
    rest = abs(value) - whole
    best = (0, 1)
    for denominator in range(1, 10**denominator_digits):
        numerator = round(rest * denominator)
        if abs(rest - numerator / denominator) < abs(rest - best[0] / best[1]) - 1e-12:
            best = (numerator, denominator)
    sign = "-" if value < 0 else ""
    if best[0] == 0:
        return f"{sign}{whole}"
    if best[0] == best[1]:
        return f"{sign}{whole + 1}"
    prefix = f"{whole} " if whole and placeholders.index("/") > placeholders.find(" ") else ""
    if not prefix and whole:
        return f"{sign}{whole * best[1] + best[0]}/{best[1]}"
    return f"{sign}{prefix}{best[0]}/{best[1]}"


def serial_to_datetime(serial: float, date1904: bool = False) -> datetime | None:
    """An Excel date serial as a datetime (None when out of range)."""
    if serial < 0 or serial > 2_958_466:
        return None
    if date1904:
        base = datetime(1904, 1, 1)
    else:
        base = datetime(1899, 12, 31) if serial < 60 else datetime(1899, 12, 30)
        if 60 <= serial < 61:
            return datetime(1900, 2, 28)
    return base + timedelta(days=serial)


def _date(value: float, section: _Section, date1904: bool) -> str:
    moment = serial_to_datetime(value, date1904)
    if moment is None:
        return general(value)
    tokens, has_ampm, fraction_digits = section.tokens, section.ampm, section.fraction_digits
    total_seconds = (
        round(value * 86400, fraction_digits) if fraction_digits else round(value * 86400)
    )
    if not fraction_digits:
        moment = serial_to_datetime(total_seconds / 86400, date1904) or moment
    out = []
    for index, (kind, text) in enumerate(tokens):
        if kind == "lit":
            out.append(text)
            continue
        lower = text.lower()
        if lower.startswith("[h"):
            out.append(str(int(total_seconds // 3600)).zfill(len(text) - 2))
        elif lower.startswith("[m"):
            out.append(str(int(total_seconds // 60)).zfill(len(text) - 2))
        elif lower.startswith("[s"):
            out.append(str(int(total_seconds)).zfill(len(text) - 2))
        elif lower in ("yyyy", "yy"):
            out.append(str(moment.year) if lower == "yyyy" else f"{moment.year % 100:02d}")
        elif lower.startswith("m"):
            if _is_minute(tokens, index):
                out.append(f"{moment.minute:0{min(len(lower), 2)}d}")
            elif lower == "mmmmm":
                out.append(_MONTHS[moment.month - 1][0])
            elif lower == "mmmm":
                out.append(_MONTHS[moment.month - 1])
            elif lower == "mmm":
                out.append(_MONTHS[moment.month - 1][:3])
            else:
                out.append(f"{moment.month:0{len(lower)}d}")
        elif lower.startswith("d"):
            if lower == "dddd":
                out.append(_DAYS[moment.weekday()])
            elif lower == "ddd":
                out.append(_DAYS[moment.weekday()][:3])
            else:
                out.append(f"{moment.day:0{len(lower)}d}")
        elif lower.startswith("h"):
            hour = moment.hour
            if has_ampm:
                hour = hour % 12 or 12
            out.append(f"{hour:0{len(lower)}d}")
        elif lower.startswith("s"):
            out.append(f"{moment.second:0{len(lower)}d}")
        elif lower.startswith("."):
            fraction = total_seconds - math.floor(total_seconds)
            out.append("." + f"{fraction:.{len(lower) - 1}f}".split(".")[1])
        elif lower == "am/pm":
            out.append("AM" if moment.hour < 12 else "PM")
        elif lower == "a/p":
            out.append("A" if moment.hour < 12 else "P")
    return "".join(out).strip()


def _tokens_date(section: str) -> list[tuple[str, str]]:
    """(kind, text): 'lit' literal text, 'tok' a date or time part ('yyyy', 'am/pm', '.00')."""
    out: list[tuple[str, str]] = []
    index = 0
    while index < len(section):
        char = section[index]
        escaped = _escaped(section, index)
        if escaped is not None:
            literal, index = escaped
            if literal:
                out.append(("lit", literal))
            continue
        match = _DATE_TOKEN.match(section, index)
        if match:
            out.append(("tok", match.group(0)))
            index = match.end()
            continue
        if char == "[":
            end = section.find("]", index)
            index = len(section) if end < 0 else end + 1
            continue
        if char == "@":
            index += 1
            continue
        out.append(("lit", char))
        index += 1
    return out


def _is_minute(tokens: Sequence[tuple[str, str]], index: int) -> bool:
    """An m/mm token right after an hour or right before a second means minutes."""
    text = tokens[index][1].lower()
    if len(text) > 2:
        return False
    for back in range(index - 1, -1, -1):
        kind, prev = tokens[back]
        if kind == "tok":
            if prev.lower().startswith(("h", "[h")):
                return True
            break
    for forward in range(index + 1, len(tokens)):
        kind, nxt = tokens[forward]
        if kind == "tok":
            return nxt.lower().startswith(("s", "[s"))
    return False


@dataclass(frozen=True, slots=True)
class _Section:
    """How one section shows a number, worked out once per distinct section text: in
    General with literals around it, as a date, as its literal text alone, or as a number
    (its tokens, their layout and the literals around the placeholders)."""

    text: str
    general: str | None = None  # the literal text, '\0' where the General number goes
    date: bool = False
    literal: str | None = None  # the text of a section without placeholders
    tokens: tuple[tuple[str, str], ...] = ()  # date tokens for a date, else `_tokens`
    ampm: bool = False  # a date section with an AM/PM or A/P part
    fraction_digits: int = 0  # a date section's digits of a second
    layout: Layout | None = None
    around: tuple[str, str, str] = ("", "", "")


@lru_cache(maxsize=4096)
def _section(section: str) -> _Section:
    """The plan of a section (cached per section text: a workbook has few formats)."""
    if _strip_literals(section).strip().lower() == "general":
        prefix_suffix = section.replace("General", "\0").replace("general", "\0")
        literal = "".join(t for k, t in _tokens(prefix_suffix) if k == "lit")
        return _Section(section, general=literal)
    if is_date_format(section):
        tokens = tuple(_tokens_date(section))
        parts = [text for kind, text in tokens if kind == "tok"]
        return _Section(
            section,
            date=True,
            tokens=tokens,
            ampm=any(part.lower() in ("am/pm", "a/p") for part in parts),
            fraction_digits=max((len(p) - 1 for p in parts if p.startswith(".")), default=0),
        )
    tokens = _tokens(section)
    if not any(kind == "ph" for kind, _ in tokens):
        literal = "".join(t for k, t in tokens if k in ("lit", "pct")).strip()
        return _Section(section, literal=literal)
    return _Section(section, tokens=tokens, layout=_layout(tokens), around=_around(tokens))


def _show(section: _Section, number: float, date1904: bool) -> str:
    """A number as its section shows it."""
    if section.general is not None:
        return section.general.replace("\0", general(number)).strip()
    if section.date:
        return _date(number, section, date1904)
    if section.layout is not None:
        return _number(number, section, section.layout)
    return section.literal or ""


def format_value(value: object, code: str, date1904: bool = False) -> str:
    """The displayed text of a cell value under a number format code."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, str):
        text_tokens = _code(code).text_tokens
        if text_tokens is None:
            return value
        rendered = "".join(
            value if kind == "at" else text for kind, text in text_tokens if kind != "ph"
        )
        return rendered.strip() or value
    if code == "General" and type(value) is int and -1e11 < value < 1e11:
        return str(value)  # General's whole number, without the float and its checks
    if not isinstance(value, int | float) or isinstance(value, float) and not math.isfinite(value):
        return str(value)
    number = float(value)
    if code == "General":  # most cells: no look-up
        return general(number)
    known = _code(code)
    if known.general:
        return general(number)
    try:
        section, absolute = _pick_section(known, number)
        if absolute:
            number = abs(number)
        return _show(_section(section), number, date1904)
    except (ValueError, ArithmeticError, IndexError, OverflowError):
        return general(number)
