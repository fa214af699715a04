"""Read one worksheet part into cells (formula AND cached value) plus sheet-level features.

The sheet XML comes from workbook.iterparse_part: parsed whole up to its size limit,
streamed with lxml iterparse beyond it (each row dropped once read, so memory stays
bounded however many rows the sheet has). Only the first MAX_ROWS rows / MAX_CELLS
cells are kept for rendering; the rest is counted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime

from lxml import etree
from openpyxl.formula.translate import Translator
from openpyxl.utils.cell import column_index_from_string, get_column_letter

from extractors.excel.colors import resolve
from extractors.excel.display import CellDisplay
from extractors.excel.workbook import Workbook, _rich_text, iterparse_part, local, rid

MAX_ROWS = 1000
MAX_CELLS = 20_000
MAX_FEATURES = 500

_REF = re.compile(r"^\$?([A-Z]{1,3})\$?(\d+)$")

SHEET_TAGS = (
    "{*}row",
    "{*}sheetPr",
    "{*}dimension",
    "{*}pane",
    "{*}mergeCell",
    "{*}conditionalFormatting",
    "{*}dataValidation",
    "{*}hyperlink",
    "{*}drawing",
    "{*}legacyDrawing",
    "{*}tablePart",
)


_DIGITS = "0123456789"
_COLUMNS: dict[str, int] = {}  # plain column letters ("B") met so far, by their number


def parse_ref(ref: str) -> tuple[int, int]:
    """'B3' -> (row 3, column 2).

    A plain reference (column letters then digits) is split without the regular
    expression once its letters have been read: a sheet repeats its few columns on
    every row. Anything else (absolute, lower case, padded) goes through `_REF`.
    """
    letters = ref.rstrip(_DIGITS)
    col = _COLUMNS.get(letters)
    if col is not None and len(letters) < len(ref):
        return int(ref[len(letters) :]), col
    match = _REF.match(ref) or _REF.match(ref.strip().upper())  # as written, almost always
    if not match:
        raise ValueError(f"not a cell reference: {ref!r}")
    col = column_index_from_string(match.group(1))
    if match.group(1) == letters:
        _COLUMNS[letters] = col
    return int(match.group(2)), col


def parse_range(ref: str) -> tuple[int, int, int, int]:
    """'A1:C4' -> (min_row, min_col, max_row, max_col); a single cell is a 1x1 range."""
    first, _, last = ref.partition(":")
    r1, c1 = parse_ref(first)
    r2, c2 = parse_ref(last) if last else (r1, c1)
    return min(r1, r2), min(c1, c2), max(r1, r2), max(c1, c2)


def cell_ref(row: int, col: int) -> str:
    return f"{get_column_letter(col)}{row}"


def range_ref(box: tuple[int, int, int, int]) -> str:
    top, left, bottom, right = box
    first, last = cell_ref(top, left), cell_ref(bottom, right)
    return first if first == last else f"{first}:{last}"


@dataclass(slots=True)
class Cell:
    row: int
    col: int
    value: object
    display: str
    formula: str | None = None
    formula_type: str | None = None
    style: int = 0
    error: bool = False

    @property
    def ref(self) -> str:
        return cell_ref(self.row, self.col)


@dataclass
class SheetData:
    """What one worksheet holds, as far as it is kept for rendering."""

    cells: dict[tuple[int, int], Cell] = field(default_factory=dict)
    max_row: int = 0
    max_col: int = 0
    rows_seen: int = 0
    cells_seen: int = 0
    formulas_seen: int = 0
    truncated_at_row: int | None = None
    dimension: str | None = None
    tab_color: str | None = None
    frozen: str | None = None
    merged: list[tuple[int, int, int, int]] = field(default_factory=list)
    hyperlinks: list[dict[str, str]] = field(default_factory=list)
    validations: list[dict[str, object]] = field(default_factory=list)
    conditional: list[dict[str, object]] = field(default_factory=list)
    drawing_rids: list[str] = field(default_factory=list)
    legacy_drawing_rid: str | None = None
    table_rids: list[str] = field(default_factory=list)


def _parts(cell_element) -> tuple[etree._Element | None, ...]:
    """A c element's first v, f and is children (by local name, whatever the namespace)."""
    v = f = inline = None
    for child in cell_element:
        tag = child.tag
        if tag.__class__ is not str:
            continue
        name = tag[tag.rfind("}") + 1 :]
        if name == "v":
            if v is None:
                v = child
        elif name == "f":
            if f is None:
                f = child
        elif name == "is" and inline is None:
            inline = child
    return v, f, inline


def _value(
    v: etree._Element | None, inline: etree._Element | None, kind: str, workbook: Workbook
) -> tuple[object, bool]:
    """(python value, is_error) of a c element of type `kind` from its v / is child."""
    if kind == "inlineStr":
        return (_rich_text(inline) if inline is not None else ""), False
    if v is None:
        return None, False
    raw = v.text or ""
    if kind == "s":
        try:
            return workbook.strings[int(raw)], False
        except (ValueError, IndexError):
            return "", False
    if kind == "b":
        return raw.strip() in ("1", "true"), False
    if kind == "e":
        return raw, True
    if kind in ("str",):
        return raw, False
    if kind == "d":
        try:
            return datetime.fromisoformat(raw.replace("Z", "")), False
        except ValueError:
            return raw, False
    try:
        number = float(raw)
    except ValueError:
        return raw, False
    return (int(number) if number.is_integer() and abs(number) < 2**53 else number), False


def _style(index: str | None) -> int:
    """The style index of an s attribute (0 when missing or unreadable)."""
    try:
        return int(index) if index else 0
    except ValueError:
        return 0


NO_FORMULA = (None, None)


class _SharedFormulas:
    """Master formulas of shared-formula groups, translated to each dependent cell."""

    def __init__(self) -> None:
        # si -> (master formula, its cell's reference, row, column)
        self.masters: dict[str, tuple[str, str, int, int]] = {}
        self.translators: dict[str, Translator] = {}  # one per master: it tokenizes once

    def translator(self, index: str) -> Translator:
        if index not in self.translators:
            master, origin, _, _ = self.masters[index]
            self.translators[index] = Translator(f"={master}", origin=origin)
        return self.translators[index]

    def resolve(
        self, formula: etree._Element | None, row: int, col: int
    ) -> tuple[str | None, str | None]:
        if formula is None:
            return None, None
        kind = formula.get("t", "normal")
        text = formula.text or ""
        if kind == "shared":
            index = formula.get("si", "")
            if text:  # the master: its reference is the translations' origin
                self.masters[index] = (text, cell_ref(row, col), row, col)
                self.translators.pop(index, None)
            elif index in self.masters:
                _, _, origin_row, origin_col = self.masters[index]
                try:  # moved by the offset from the master (what translating to `ref` works out)
                    translator = self.translator(index)
                    text = translator.translate_formula(
                        row_delta=row - origin_row, col_delta=col - origin_col
                    )[1:]
                except Exception:  # untranslatable: the cell's own formula is unknown
                    return None, "shared-untranslated"
        if not text:
            return None, None
        return text, kind


def read_sheet(workbook: Workbook, part: str, display: CellDisplay | None = None) -> SheetData:
    """Read a worksheet part; see the module docstring for the caps. `display` formats
    the values (pass one per workbook to share its remembered formatting)."""
    data = SheetData()
    rows = _RowReader(workbook, display or CellDisplay(workbook))
    for element in iterparse_part(workbook.package, part, SHEET_TAGS):
        tag = element.tag  # a row (most elements) is told without slicing its local name
        if isinstance(tag, str) and (tag[-4:] == "}row" or tag == "row"):
            rows.read(element, data)
            continue
        name = local(element)
        if name == "sheetPr":
            tab = element.find("{*}tabColor")
            if tab is not None:
                data.tab_color = resolve(tab, workbook.theme)
        elif name == "dimension":
            data.dimension = element.get("ref")
        elif name == "pane" and element.get("state") in ("frozen", "frozenSplit"):
            data.frozen = element.get("topLeftCell")
        elif name == "mergeCell" and len(data.merged) < 10 * MAX_FEATURES:
            try:
                data.merged.append(parse_range(element.get("ref", "")))
            except ValueError:
                continue
        elif name == "hyperlink" and len(data.hyperlinks) < MAX_FEATURES:
            data.hyperlinks.append(
                {
                    "ref": element.get("ref", ""),
                    "rid": rid(element) or "",
                    "location": element.get("location", ""),
                    "display": element.get("display", ""),
                    "tooltip": element.get("tooltip", ""),
                }
            )
        elif name == "dataValidation" and len(data.validations) < MAX_FEATURES:
            data.validations.append(_validation(element))
        elif name == "conditionalFormatting" and len(data.conditional) < MAX_FEATURES:
            data.conditional.extend(_conditional(element, workbook))
        elif name == "drawing":
            data.drawing_rids.append(rid(element) or "")
        elif name == "legacyDrawing":
            data.legacy_drawing_rid = rid(element)
        elif name == "tablePart":
            data.table_rids.append(rid(element) or "")
    return data


def _position(ref: str | None) -> tuple[int, int] | None:
    """(row, column) of a cell reference; None when it is missing or unreadable."""
    if not ref:
        return None
    try:
        return parse_ref(ref)
    except ValueError:
        return None


def _column_after(refs: list[str], col_number: int) -> int:
    """The column of the last of `refs`, cells placed one after another from `col_number`
    where a reference is missing or unreadable."""
    for ref in refs:
        position = _position(ref)
        col_number = col_number + 1 if position is None else position[1]
    return col_number


# (row, column, c element, its first v, f and is children)
Placed = tuple[
    int, int, etree._Element, etree._Element | None, etree._Element | None, etree._Element | None
]

_FILLING = ("{*}v", "{*}f", "{*}is")  # the children that make a cell worth reading


def _filled_cells(element) -> list[Placed] | None:
    """The row's c children with a v, f or is child, placed by their own references.

    Found by one search of the row in lxml, so the empty cells (styled blanks, most
    of the cells of many sheets) are never made into Python elements. None when a
    filled cell's reference is missing or unreadable: such a cell is placed after the
    cell before it, which `_placed_cells` works out from every c child.
    """
    filled: list[Placed] = []
    namespace = element.tag[:-3]  # the row's, which its c and v elements share
    c_tag, v_tag = namespace + "c", namespace + "v"
    cell = v = f = inline = None
    row = col = 0
    for child in element.iter(_FILLING):
        parent = child.getparent()
        if parent is not cell:
            if parent.getparent() is not element or (parent.tag != c_tag and local(parent) != "c"):
                continue  # not a cell's own child (an extension's, an inline string's)
            if cell is not None:
                filled.append((row, col, cell, v, f, inline))
            cell, v, f, inline = parent, None, None, None
            ref = cell.get("r") or ""
            letters = ref.rstrip(_DIGITS)  # parse_ref's fast path, inlined
            known = _COLUMNS.get(letters)
            if known is not None and len(letters) < len(ref):
                row, col = int(ref[len(letters) :]), known
            else:
                position = _position(ref)
                if position is None:
                    return None
                row, col = position
        tag = child.tag
        name = "v" if tag == v_tag else tag[tag.rfind("}") + 1 :]
        if name == "v":
            if v is None:
                v = child
        elif name == "f":
            if f is None:
                f = child
        elif inline is None:
            inline = child
    if cell is not None:
        filled.append((row, col, cell, v, f, inline))
    return filled


def _placed_cells(element, row_number: int) -> list[Placed]:
    """The row's c children with any child, each placed by its reference or, without a
    readable one, after the cell before it (every c child counts)."""
    placed: list[Placed] = []
    col_number = 0
    # references of skipped cells, parsed only if a later cell needs them
    unplaced: list[str] = []
    for cell_element in element:
        tag = cell_element.tag
        if not isinstance(tag, str) or tag[tag.rfind("}") + 1 :] != "c":
            continue
        ref = cell_element.get("r") or ""
        if not len(cell_element):  # no v, is or f: nothing to keep, only its place counts
            unplaced.append(ref)
            continue
        position = _position(ref)
        if position is None:  # placed after the cell before it
            position = row_number, _column_after(unplaced, col_number) + 1
        row, col = position
        unplaced.clear()
        col_number = col
        placed.append((row, col, cell_element, *_parts(cell_element)))
    return placed


class _RowReader:
    """Reads the rows of one sheet into its SheetData.

    Each distinct (type, cached text, style) of a cell is decoded once and formatted
    once: sheets repeat their strings, numbers and styles, and decoding and formatting
    cost more than the look-up.
    """

    def __init__(self, workbook: Workbook, display: CellDisplay) -> None:
        self.workbook = workbook
        self.display = display
        self.shared = _SharedFormulas()
        # (type, cached text, s attribute) -> [value, is_error, style, shown or None]
        self.known: dict[tuple[str, str | None, str | None], list] = {}

    def read(self, element, data: SheetData) -> None:
        """One row element into `data` (counted only once past the rendering cap)."""
        data.rows_seen += 1
        try:
            row_number = int(element.get("r", "0")) or data.max_row + 1
        except ValueError:
            row_number = data.max_row + 1
        if data.truncated_at_row is not None and row_number > data.truncated_at_row:
            _count_row(element, data, row_number)
            return
        placed = _filled_cells(element)
        if placed is None:
            placed = _placed_cells(element, row_number)
        self._keep(placed, data)

    def _keep(self, placed: list[Placed], data: SheetData) -> None:
        """A row's placed cells into `data`. The counters and bounds are kept in locals
        meanwhile and stored once: attribute look-ups per cell cost more than the rest."""
        workbook, display, known = self.workbook, self.display, self.known
        resolve = self.shared.resolve
        cells = data.cells
        seen, formulas = data.cells_seen, data.formulas_seen
        max_row, max_col, truncated = data.max_row, data.max_col, data.truncated_at_row
        for row, col, cell_element, v, formula_element, inline in placed:
            formula, formula_type = (
                resolve(formula_element, row, col) if formula_element is not None else NO_FORMULA
            )
            kind = cell_element.get("t", "n")
            if v is None or kind == "inlineStr":
                value, error = _value(v, inline, kind, workbook)
                entry = None
            else:
                key = (kind, v.text, cell_element.get("s"))
                entry = known.get(key)
                if entry is None:
                    value, error = _value(v, inline, kind, workbook)
                    entry = known[key] = [value, error, _style(key[2]), None]
                else:
                    value, error = entry[0], entry[1]
            if formula is None and (value is None or value == ""):
                continue
            seen += 1
            if formula is not None:
                formulas += 1
            if row > max_row:
                max_row = row
            if col > max_col:
                max_col = col
            if truncated is None and (row > MAX_ROWS or len(cells) >= MAX_CELLS):
                truncated = row
            if truncated is not None and row >= truncated:
                continue
            if entry is None:
                style = _style(cell_element.get("s"))
                shown = "" if value is None else display(value, style)
            else:
                style, shown = entry[2], entry[3]
                if shown is None:
                    shown = entry[3] = display(value, style)
            cells[(row, col)] = Cell(row, col, value, shown, formula, formula_type, style, error)
        data.cells_seen, data.formulas_seen = seen, formulas
        data.max_row, data.max_col, data.truncated_at_row = max_row, max_col, truncated


def _count_row(element, data: SheetData, row_number: int) -> None:
    """A row past the rendering cap: only counted (no value parsing, no formula translation);
    its children with a v, f or is child are found by one lxml search, as in `_filled_cells`."""
    cell = None
    counted_formula = False
    for child in element.iter(_FILLING):
        parent = child.getparent()
        if parent is not cell:
            if parent.getparent() is not element:
                continue  # not a cell's own child
            cell = parent
            counted_formula = False
            data.cells_seen += 1
            data.max_row = max(data.max_row, row_number)
            try:
                data.max_col = max(data.max_col, parse_ref(cell.get("r", ""))[1])
            except ValueError:
                pass
        if not counted_formula and local(child) == "f":
            counted_formula = True
            data.formulas_seen += 1


def _validation(element) -> dict[str, object]:
    """A dataValidation (classic or x14 extension, whose parts are child elements)."""
    sqref = element.get("sqref") or element.findtext("{*}sqref") or ""

    def formula(tag: str) -> str | None:
        node = element.find(f"{{*}}{tag}")
        if node is None:
            return None
        inner = node.findtext("{*}f")
        return (inner if inner is not None else node.text or "").strip() or None

    return {
        "sqref": sqref.strip(),
        "type": element.get("type", "none"),
        "operator": element.get("operator"),
        "formula1": formula("formula1"),
        "formula2": formula("formula2"),
        "allow_blank": element.get("allowBlank") in ("1", "true"),
        "prompt_title": element.get("promptTitle"),
        "prompt": element.get("prompt"),
        "error_title": element.get("errorTitle"),
        "error": element.get("error"),
    }


def _conditional(element, workbook: Workbook) -> list[dict[str, object]]:
    sqref = element.get("sqref") or element.findtext("{*}sqref") or ""
    rules = []
    for rule in element.iterfind("{*}cfRule"):
        formulas = [f.text or "" for f in rule.iterfind("{*}formula")]
        formulas += [f.text or "" for f in rule.iterfind("{*}f")]
        style = workbook.styles.differential(rule.get("dxfId"))
        rules.append(
            {
                "sqref": sqref.strip(),
                "type": rule.get("type", ""),
                "operator": rule.get("operator"),
                "formulas": [f for f in formulas if f],
                "text": rule.get("text"),
                "rank": rule.get("rank"),
                "percent": rule.get("percent") in ("1", "true"),
                "bottom": rule.get("bottom") in ("1", "true"),
                "above_average": rule.get("aboveAverage", "1") not in ("0", "false"),
                "style": style,
                "visual": next(
                    (local(child) for child in rule if local(child) in _VISUAL_RULES), None
                ),
                "icon_set": next((c.get("iconSet") for c in rule if local(c) == "iconSet"), None),
            }
        )
    return rules


_VISUAL_RULES = {"colorScale", "dataBar", "iconSet"}
