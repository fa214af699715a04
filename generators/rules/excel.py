"""Offline question rules for Excel artifacts, one per artifact kind, from typed facts.

Each probe's value is the answer span; its anchor holds the words that identify
the thing asked about as the artifact text writes them (a cell reference, a row
label, "Chart title"…), so the leakage test judges whether a view still states it.
"""

from __future__ import annotations

import re

from fidelity.core.document import Artifact, Candidate, Document
from fidelity.core.office_names import PRESET_NAMES
from fidelity.core.text import content_tokens, normalize
from generators.draft import candidate, quote
from generators.rules.common import (
    Rule,
    cap,
    categorical,
    cell_number,
    chart_extremes,
    chart_families,
    chart_title_and_type,
    cloze_spans,
    described,
    labelled,
    metadata_rule,
    rows_with,
    sample_data,
    table_families,
)
from generators.rules.giveaway import (
    default_sheet_name,
    link_names_target,
    numbered_by_place,
    reads_its_address,
)
from generators.rules.restated import grounded_metadata, one_comment_author

ORDINALS = {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth"}
DISPLAYED_GEOMETRIES = frozenset(PRESET_NAMES.values()) | {"freeform"}
# Icon sets as Excel's Conditional Formatting menu names them.
ICON_SETS = {
    "3Arrows": "3 Arrows (Colored)",
    "3ArrowsGray": "3 Arrows (Gray)",
    "3Flags": "3 Flags",
    "3TrafficLights1": "3 Traffic Lights (Unrimmed)",
    "3TrafficLights2": "3 Traffic Lights (Rimmed)",
    "3Signs": "3 Signs",
    "3Symbols": "3 Symbols (Circled)",
    "3Symbols2": "3 Symbols (Uncircled)",
    "3Stars": "3 Stars",
    "3Triangles": "3 Triangles",
    "4Arrows": "4 Arrows (Colored)",
    "4ArrowsGray": "4 Arrows (Gray)",
    "4RedToBlack": "Red To Black",
    "4Rating": "4 Ratings",
    "4TrafficLights": "4 Traffic Lights",
    "5Arrows": "5 Arrows (Colored)",
    "5ArrowsGray": "5 Arrows (Gray)",
    "5Rating": "5 Ratings",
    "5Quarters": "5 Quarters",
    "5Boxes": "5 Boxes",
}
# Defined names Excel writes for itself (print areas, filters, custom views): not a reader's.
SYSTEM_NAME = re.compile(
    r"^_xlnm\.|^Z_[0-9A-F_-]+_?[._]?wvu[._]|^_|^__123Graph"
    r"|^(Print_Area|Print_Titles|Criteria|Extract|Database|Consolidate_Area|Sheet_Title"
    r"|Auto_(Open|Close|Activate|Deactivate)|FilterDatabase|OLE_LINK\d+|ExternalData_\d+)$",
    re.I,
)


def _unique(document: Document, artifact: Artifact, value: str, values) -> bool:
    """True when no other artifact of the same kind gives the same answer (else ambiguous)."""
    return all(
        value not in values(other)
        for other in document.artifacts
        if other.kind == artifact.kind and other.id != artifact.id
    )


def _chart_values(artifact: Artifact) -> list[str]:
    facts = artifact.facts
    out = [facts.get("title") or "", facts.get("type_label", "")]
    out += [axis.get("title") or "" for axis in facts.get("axes", [])]
    return out + [str(facts.get("legend", {}).get("position"))]


def _pivot_values(artifact: Artifact) -> list[str]:
    facts = artifact.facts
    out = [d["aggregation"] for d in facts.get("data_fields", [])]
    return out + [", ".join(facts.get("row_fields", [])), str(facts.get("source"))]


def _style_values(artifact: Artifact) -> list[str]:
    return [artifact.facts.get("style") or ""]


def _on(artifact: Artifact) -> str:
    return f"sheet '{artifact.facts.get('sheet', '')}'"


def sheet(document: Document, artifact: Artifact) -> list[Candidate]:
    facts = artifact.facts
    out = []
    name, state = facts["name"], facts["state"]
    hidden = [a for a in document.artifacts if a.kind == "sheet" and a.facts["state"] != "visible"]
    if hidden and hidden[0].id == artifact.id:
        single = len(hidden) == 1
        out.append(
            candidate(
                document,
                artifact,
                "sheet-visibility",
                "Which sheet of this workbook is hidden?"
                if single
                else "Which sheets of this workbook are hidden?",
                [
                    f"The sheet '{a.facts['name']}' is "
                    + ("very hidden." if a.facts["state"] == "veryHidden" else "hidden.")
                    for a in hidden
                ],
                value=name,
                anchor=[state],
                notes=[] if single else [f"list answer: all {len(hidden)} hidden sheets"],
            )
        )
    # A reader counts the tabs they see: hidden sheets take no place in the order, and a
    # default name ("Sheet3", "Tabelle3") at its own place is guessed, not read.
    visible = [a for a in document.artifacts if a.kind == "sheet" and a.facts["state"] == "visible"]
    position = 1 + visible.index(artifact) if artifact in visible else 0
    count = len(visible)
    if (
        count >= 2
        and position in ORDINALS
        and not default_sheet_name(name)
        and not numbered_by_place(name, position)
    ):
        out.append(
            candidate(
                document,
                artifact,
                "sheet-order",
                f"What is the name of the {ORDINALS[position]} sheet (in tab order) "
                + ("of this workbook?" if count == facts["count"] else "among the visible tabs?"),
                [f"The {ORDINALS[position]} sheet is named '{name}'."],
                value=name,
                anchor=[f"Sheet {facts['position']} of {facts['count']}"],
                notes=[]
                if count == facts["count"]
                else [f"ordinal among the {count} visible sheets of {facts['count']}"],
            )
        )
    if facts.get("tab_color"):
        out.append(
            candidate(
                document,
                artifact,
                "sheet-tab-colour",
                f"What colour is the tab of the sheet '{name}'?",
                [f"The tab of sheet '{name}' is {facts['tab_color']}."],
                value=facts["tab_color"],
                anchor=[name, "tab colour"],
            )
        )
    return out


def _lookups(document: Document, artifact: Artifact, where: str) -> list[Candidate]:
    out = []
    lookups = [
        item
        for item in artifact.facts.get("lookups", [])
        if labelled(item["row_label"]) and not reads_its_address(item["value"], item["cell"])
    ]
    pairs = artifact.kind == "tlr" and artifact.facts.get("columns") == 2
    for item in lookups[:2]:
        if pairs:  # a label-value range: its first row is a pair too, not column headers
            out.append(
                candidate(
                    document,
                    artifact,
                    "cell-lookup",
                    f"In {where} on {_on(artifact)}, what value is given for "
                    f"'{quote(item['row_label'], 50)}'?",
                    [
                        f"The value given for '{_flat(item['row_label'])}' is "
                        f"{_flat(item['value'])} (cell {item['cell']})."
                    ],
                    value=item["value"],
                    anchor=[item["row_label"]],
                )
            )
            continue
        out.append(
            candidate(
                document,
                artifact,
                "cell-lookup",
                f"In {where} on {_on(artifact)}, what is the value in the row "
                f"'{quote(item['row_label'], 50)}' under the column "
                f"'{quote(item['column_header'], 50)}'?",
                [
                    f"The value for '{_flat(item['row_label'])}' under "
                    f"'{_flat(item['column_header'])}' is {_flat(item['value'])} "
                    f"(cell {item['cell']})."
                ],
                value=item["value"],
                anchor=[item["row_label"]],
            )
        )
    return out


def tlr(document: Document, artifact: Artifact) -> list[Candidate]:
    # "the range", not "the table-like range": a reader sees cells, and a helper column
    # next to a table is no table of its own
    where = f"the range {artifact.facts['range']}"
    return _lookups(document, artifact, where) + _comparisons(document, artifact, where)


GRID_ROW = re.compile(r"^\| (.*) \|$")
HEADER_CELL = re.compile(r"^[A-Z]{1,3}(?:: (.*))?$")
PLACEHOLDER_MARK = re.compile(r"⟦[^⟧]+⟧")
BOLD = re.compile(r"\*\*(.*?)\*\*")


def _shown_grid(document: Document, artifact: Artifact) -> list[list[str]] | None:
    """The rows of a range as its rendered grid shows them, header first: the sheet's row
    numbers dropped, bold marks removed, a formula cell read as the value it displays;
    rows of a note (no value past the first column) left out. None when the grid is not
    whole (rows past the rendering limit, a cell that splits into two)."""
    lines = [GRID_ROW.match(line) for line in artifact.text.splitlines()]
    if any(line.startswith("(rows after") for line in artifact.text.splitlines()):
        return None
    displayed = {
        a.placeholder: str(a.facts.get("display") or "")
        for a in document.artifacts
        if a.kind == "formula" and a.placeholder
    }

    def shown(cell: str) -> str:
        cell = PLACEHOLDER_MARK.sub(lambda m: displayed.get(m.group(0), m.group(0)), cell)
        return BOLD.sub(r"\1", cell).strip()

    rows = [[shown(cell) for cell in line.group(1).split(" | ")] for line in lines if line]
    if len(rows) < 3 or not rows[0][0].startswith("Row"):
        return None
    header = [_header_text(cell) for cell in rows[0][1:]]
    body = [row[1:] for row in rows[1:]]
    if any(len(row) != len(header) for row in body) or any("⟦" in c for r in body for c in r):
        return None
    if body and not body[0][0] and all(cell_number(cell) is None for cell in body[0]):
        # a second header row under the first ("Percent" over "of Hires"): one header
        header = [" ".join(filter(None, pair)) for pair in zip(header, body.pop(0), strict=True)]
    # a header merged over columns names none of them alone: those columns go unnamed
    header = ["" if "[merged" in name else name for name in header]
    return [header] + [row for row in body if any(cell for cell in row[1:])]


def _header_text(cell: str) -> str:
    """A rendered header cell's text ("B: Percent" → "Percent"; a bare "B" has none)."""
    found = HEADER_CELL.match(cell)
    return (found.group(1) or "") if found else cell


def _comparisons(document: Document, artifact: Artifact, where: str) -> list[Candidate]:
    """Comparisons over a range's numeric columns, on the values its cells show (none where
    sub-tables with headers of their own share the columns)."""
    if not artifact.facts.get("header_row") or artifact.facts.get("sub_header_rows"):
        return []
    grid = _shown_grid(document, artifact)
    if grid is None:
        return []
    where = f"{where} on {_on(artifact)}"
    return table_families(document, artifact, where, grid, rounded=True) + rows_with(
        document, artifact, where, grid
    )


def table(document: Document, artifact: Artifact) -> list[Candidate]:
    facts = artifact.facts
    name = facts["name"]
    out = _lookups(document, artifact, f"the table '{name}'")
    out += _comparisons(document, artifact, f"the table '{name}'")
    out.append(
        candidate(
            document,
            artifact,
            "table-range",
            f"Which cell range does the Excel table '{name}' occupy on {_on(artifact)}?",
            [f"The table '{name}' occupies {facts['range']}."],
            value=facts["range"],
            anchor=[name],
        )
    )
    if facts.get("style") and _unique(document, artifact, facts["style"], _style_values):
        out.append(
            candidate(
                document,
                artifact,
                "table-style",
                f"Which table style is applied to the Excel table '{name}'?",
                [f"The table '{name}' uses the style {facts['style']}."],
                value=facts["style"],
                anchor=["Table style"],
            )
        )
    for column in facts.get("columns", []):
        column = {**column, "name": _unescaped(column["name"])}
        if column.get("formula"):
            out.append(
                candidate(
                    document,
                    artifact,
                    "table-calculated-column",
                    f"What formula computes the calculated column '{column['name']}' "
                    f"of the table '{name}'?",
                    [f"The column '{column['name']}' is calculated by ={column['formula']}."],
                    value=f"={column['formula']}",
                    anchor=["Calculated column", column["name"]],
                )
            )
            break
    return out


def cells(document: Document, artifact: Artifact) -> list[Candidate]:
    out = []
    labels = [p["label"] for p in artifact.facts.get("pairs", [])]
    pairs = [
        p
        for p in artifact.facts.get("pairs", [])
        if not _in_header_row(p)
        and labels.count(p["label"]) == 1
        and not p["label"].startswith("#")
        and labelled(p["label"])
        and len(p["label"].strip()) >= 3
        and not re.fullmatch(r"\$?[A-Z]{1,3}\$?\d+", p["label"].strip())  # a cell address
        and len(p["value"].strip()) >= 2
        and p["label"].strip() != p["value"].strip()
        and not reads_its_address(p["value"], p["cell"])
    ]
    for pair in pairs[:2]:
        out.append(
            candidate(
                document,
                artifact,
                "labelled-value",
                f"On {_on(artifact)}, what value is shown in cell {pair['cell']}, next to "
                f"the label '{quote(pair['label'], 60)}'?",
                [f"Cell {pair['cell']} shows {' '.join(pair['value'].split())}."],
                value=pair["value"],
                anchor=[pair["cell"]],
            )
        )
    return out + _label_next_to(document, artifact, pairs) + _note_clozes(document, artifact)


def _label_next_to(document: Document, artifact: Artifact, pairs: list[dict]) -> list[Candidate]:
    """Relational layout: which label sits next to a value that appears once on the sheet."""
    sheet_text = "\n".join(
        a.text for a in document.artifacts if a.facts.get("sheet") == artifact.facts["sheet"]
    )
    for pair in pairs[2:] or pairs:
        value = _flat(pair["value"])
        if not NUMERIC_VALUE.fullmatch(value):
            continue
        if len(re.findall(rf"(?<![\w.,]){re.escape(value)}(?![\w.,]|\d)", sheet_text)) != 1:
            continue
        return [
            candidate(
                document,
                artifact,
                "label-next-to-value",
                f"On {_on(artifact)}, which label sits next to the value {value}?",
                [f"The label '{_flat(pair['label'])}' sits next to {value}."],
                value=pair["label"],
                anchor=[],  # label and value are two lines of the view: look for the label
            )
        ][: cap(1)]
    return []


def _note_clozes(document: Document, artifact: Artifact) -> list[Candidate]:
    """A word or number blanked from a sentence written in a free-form cell (a note or an
    instruction on the sheet)."""
    out: list[Candidate] = []
    for item in artifact.facts.get("cells", []):
        text = _flat(re.sub(r"\*+|\[[^\]]*\]", "", item["text"]))
        if "\\" in text or "⟦" in text:  # a file path or a formula placeholder, not prose
            continue
        for blanked, span in cloze_spans(text, limit=1):
            if len(out) >= cap(1):
                return out
            out.append(
                candidate(
                    document,
                    artifact,
                    "cell-note-cloze",
                    f"On {_on(artifact)}, which word or number fills the blank in the note in "
                    f"cell {item['cell']}: “{blanked}”?",
                    [f"The missing text is “{span}”."],
                    value=span,
                    anchor=[blanked.replace("____", " ")],
                )
            )
    return out


def formula(document: Document, artifact: Artifact) -> list[Candidate]:
    facts = artifact.facts
    if not facts.get("ask"):
        return []
    where = f"cell {facts['cell']} of {_on(artifact)}"
    traced = _traced(document, artifact, where)
    if traced:  # the formula's text would state these answers: one question, not two
        return traced
    return [
        candidate(
            document,
            artifact,
            "formula-text",
            f"What formula is entered in {where}?",
            [f"{where[0].upper()}{where[1:]} contains the formula {facts['formula']}."],
            value=facts["formula"],
            anchor=[artifact.locator],
        )
    ]


def _traced(document: Document, artifact: Artifact, where: str) -> list[Candidate]:
    """What a formula reads: the other sheet, its cells, the name it uses (a reference into
    another workbook is not traced: its sheet is not in this file)."""
    facts = artifact.facts
    out: list[Candidate] = []
    if facts.get("external"):
        return out
    cells = _precedent_cells(facts)
    if facts.get("sheets") and len(cells) == 1 and cells[0][0] != facts["sheet"]:
        sheet, ref = cells[0]
        out.append(
            candidate(
                document,
                artifact,
                "formula-cross-sheet",
                f"Which sheet and cell does the formula in {where} read?",
                [f"The formula in {where} reads {_cell_or_range(ref)} of the sheet '{sheet}'."],
                value=sheet,
                anchor=[artifact.locator],
            )
        )
    elif facts.get("sheets"):
        out.append(
            candidate(
                document,
                artifact,
                "formula-cross-sheet",
                f"Which other sheet does the formula in {where} read from?",
                [f"The formula in {where} refers to the sheet '{facts['sheets'][0]}'."],
                value=facts["sheets"][0],
                anchor=[artifact.locator],
            )
        )
    elif 1 <= len(cells) <= 4 and len(cells) == len(facts.get("precedents", [])):
        out.append(
            candidate(
                document,
                artifact,
                "formula-precedents",
                f"Which cells or ranges does the formula in {where} read?"
                if len(cells) > 1
                else f"Which cell or range does the formula in {where} read?",
                [f"The formula in {where} reads {ref}." for _, ref in cells],
                value=", ".join(ref for _, ref in cells),
                anchor=[facts["cell"]],  # a note beside it naming the cell and its range says it
                notes=[f"list answer: all {len(cells)} references"] if len(cells) > 1 else [],
            )
        )
    if facts.get("names"):
        out.append(
            candidate(
                document,
                artifact,
                "formula-named-range",
                f"Which defined name does the formula in {where} use?",
                [f"The formula in {where} uses the name {facts['names'][0]}."],
                value=facts["names"][0],
                anchor=[artifact.locator],
            )
        )
    return out


NUMERIC_VALUE = re.compile(r"[-+(]?[$€£]?\s*[\d.,]+\s*%?\)?|\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}")


def _in_header_row(pair: dict) -> bool:
    """True when a text value sits next to a text label without a colon: two headers of a
    row, or two columns of a list, not a label with its value."""
    if NUMERIC_VALUE.fullmatch(pair["value"].strip()):
        return False
    return not pair["label"].strip().endswith(":")


def _flat(text: str) -> str:
    """Cell text on one line, as a sentence quotes it."""
    return " ".join(str(text).split())


def _unescaped(name: str) -> str:
    """An OOXML name with its _xHHHH_ escapes (line breaks in headers) as a reader sees it."""
    text = re.sub(r"_x([0-9A-Fa-f]{4})_", lambda m: chr(int(m.group(1), 16)), name)
    return " ".join(text.split())


def _cell_or_range(ref: str) -> str:
    return f"the range {ref}" if ":" in ref else f"cell {ref}"


def _precedent_cells(facts: dict) -> list[tuple[str, str]]:
    """(sheet, cell or range without $) of each cell reference a formula reads."""
    out = []
    for operand in facts.get("precedents", []):
        sheet, _, ref = str(operand).rpartition("!")
        if not re.fullmatch(r"\$?[A-Z]{1,3}\$?\d+(:\$?[A-Z]{1,3}\$?\d+)?", ref):
            continue
        sheet = sheet.strip("'").replace("''", "'") or facts["sheet"]
        item = (sheet, ref.replace("$", ""))
        if item not in out:
            out.append(item)
    return out


# The aggregation Excel gives a value field by itself: Sum for numbers, Count for text.
AUTOMATIC_AGGREGATIONS = frozenset({"sum", "count"})


def pivot(document: Document, artifact: Artifact) -> list[Candidate]:
    facts = artifact.facts
    shared = [
        a
        for a in document.artifacts
        if a.kind == "pivot" and a.id != artifact.id and a.facts["name"] == facts["name"]
    ]
    name = facts["name"]
    title = f"the PivotTable '{name}'"
    notes = []
    if shared:  # the same PivotTable name on several sheets: say which one
        title += f" on {_on(artifact)}"
        notes.append(f"PivotTable name '{name}' is used {len(shared) + 1} times: sheet named")
    out = []
    for data_field in facts.get("data_fields", [])[:1]:
        if str(data_field["aggregation"]).lower() in AUTOMATIC_AGGREGATIONS:
            continue  # what Excel picks by itself for a number or a text field: guessed
        if not _unique(document, artifact, data_field["aggregation"], _pivot_values):
            continue
        out.append(
            candidate(
                document,
                artifact,
                "pivot-aggregation",
                f"Which aggregation does {title} apply to the field '{data_field['field']}'?",
                [f"It shows the {data_field['aggregation']} of {data_field['field']}."],
                value=data_field["aggregation"],
                anchor=["Value field", data_field["name"]],
                notes=notes,
            )
        )
    fields = ", ".join(facts.get("row_fields", []))
    if fields and _unique(document, artifact, fields, _pivot_values):
        out.append(
            candidate(
                document,
                artifact,
                "pivot-row-fields",
                f"Which field(s) does {title} use as row fields?",
                [f"The row fields of '{name}' are {fields}."],
                value=fields,
                anchor=["Row fields"],
                notes=notes,
            )
        )
    if facts.get("source") and _unique(document, artifact, str(facts["source"]), _pivot_values):
        out.append(
            candidate(
                document,
                artifact,
                "pivot-source",
                f"What is the source data of {title}?",
                [f"The PivotTable '{name}' is built from {facts['source']}."],
                value=facts["source"],
                anchor=["Source data"],
                notes=notes,
            )
        )
    return out


def chart(document: Document, artifact: Artifact) -> list[Candidate]:
    facts = artifact.facts
    if sample_data(facts):
        return []
    sheet_charts = [
        a for a in document.artifacts if a.kind == "chart" and a.facts["sheet"] == facts["sheet"]
    ]
    if facts.get("anchor_range"):
        place = f"the chart placed over {facts['anchor_range']} on {_on(artifact)}"
    elif len(sheet_charts) == 1:
        place = f"the chart on {_on(artifact)}"
    else:
        return []

    def unique(value: str) -> bool:
        return _unique(document, artifact, value, _chart_values)

    titled = facts.get("title") and not facts.get("title_automatic") and unique(facts["title"])
    where = (
        f"the chart titled “{quote(facts['title'], 60)}” on {_on(artifact)}" if titled else place
    )
    title = facts["title"] if titled else None
    out = chart_title_and_type(document, artifact, title, place, where, unique)
    for axis in facts.get("axes", []):
        if axis.get("title") and unique(axis["title"]):
            side = "secondary " if axis.get("secondary") else ""
            label = f"{side}{axis['orientation']} axis title"
            out.append(
                candidate(
                    document,
                    artifact,
                    "chart-axis-title",
                    f"What is the {label} of {where}?",
                    [f"The {label} is '{axis['title']}'."],
                    value=axis["title"],
                    anchor=[label.capitalize()],
                )
            )
            break
    for series in facts.get("series", [])[:1]:
        if series.get("values_ref") and series.get("name"):
            out.append(
                candidate(
                    document,
                    artifact,
                    "chart-series-source",
                    f"Which cell range supplies the values of the series '{series['name']}' "
                    f"in {where}?",
                    [
                        f"The series '{series['name']}' takes its values from "
                        f"{series['values_ref']}."
                    ],
                    value=series["values_ref"],
                    anchor=["values source"],
                )
            )
    legend = facts.get("legend", {})
    if legend.get("present") and unique(str(legend.get("position"))):
        out.append(
            candidate(
                document,
                artifact,
                "chart-legend",
                f"Where is the legend of {where} positioned?",
                [f"The legend is at the {legend.get('position')}."],
                value=str(legend.get("position")),
                anchor=["Legend"],
            )
        )
    if any(series.get("values_ref") for series in facts.get("series", [])[:1]):
        return out  # its values are the cells': the cells state the highest and lowest too
    if not categorical(facts):
        return out  # an X-Y chart: no categories to compare
    return (
        out + chart_extremes(document, artifact, where) + chart_families(document, artifact, where)
    )


def image(document: Document, artifact: Artifact) -> list[Candidate]:
    facts = artifact.facts
    alone = not any(
        a.kind == "image" and a.id != artifact.id and a.facts["sheet"] == facts["sheet"]
        for a in document.artifacts
    )
    if not described(facts.get("description") or ""):
        if not alone or not facts.get("anchor"):
            return []
        return [  # a picture without a description: where it sits is what a reader can find
            candidate(
                document,
                artifact,
                "image-anchor",
                f"Which cell is the top-left corner of the picture on {_on(artifact)} anchored to?",
                [f"The picture on {_on(artifact)} is anchored at cell {facts['anchor']}."],
                value=f"placed over {facts['anchor']}",
                anchor=[f"on sheet {facts['sheet']}"],
            )
        ]
    return [
        candidate(
            document,
            artifact,
            "image-alt-text",
            f"What is the alternative text of the image placed at {facts['anchor']} on "
            f"{_on(artifact)}?",
            [f"The image's alt text is '{facts['description']}'."],
            value=facts["description"],
            anchor=["Alt text"],
        )
    ]


def shape(document: Document, artifact: Artifact) -> list[Candidate]:
    facts = artifact.facts
    out = []
    if facts.get("text"):
        out.append(
            candidate(
                document,
                artifact,
                "shape-text",
                f"What text does the {facts['shape_type']} shape placed at {facts['anchor']} "
                f"on {_on(artifact)} contain?",
                [f"The shape contains the text '{facts['text']}'."],
                value=facts["text"],
                anchor=["Shape text"],
            )
        )
    shape_type = facts.get("shape_type", "")
    same_text = [
        a
        for a in document.artifacts
        if a.kind == "shape"
        and a.id != artifact.id
        and a.facts["sheet"] == facts["sheet"]
        and a.facts.get("text") == facts.get("text")
    ]
    if facts.get("text") and not same_text and len(facts["text"]) <= 60:
        subject = f"the shape reading '{facts['text']}'"
    elif facts.get("anchor"):
        subject = f"the shape placed at {facts['anchor']}"
    else:
        return out
    # An internal name that spells the geometry ("Rounded Rectangle 3") states the answer.
    spelled = set(shape_type.split()) <= set(str(facts.get("name", "")).lower().split())
    if shape_type in DISPLAYED_GEOMETRIES and shape_type != "rectangle" and not spelled:
        out.append(
            candidate(
                document,
                artifact,
                "shape-type",
                f"What kind of shape is {subject} on {_on(artifact)}?",
                [f"It is {_a(shape_type)} shape."],
                value=shape_type,
                anchor=[facts.get("name") or "Shape"],
            )
        )
    return out


def _a(noun: str) -> str:
    """The noun with its indefinite article."""
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"


def comment(document: Document, artifact: Artifact) -> list[Candidate]:
    facts = artifact.facts
    where = f"cell {facts['ref']} of {_on(artifact)}"
    out = [
        candidate(
            document,
            artifact,
            "comment-text",
            f"What does the comment attached to {where} say?",
            [f"The comment says: {facts['text']}"],
            value=facts["text"],
            anchor=[facts["ref"]],
        )
    ]
    if facts.get("author") and not one_comment_author(document):
        out.append(
            candidate(
                document,
                artifact,
                "comment-author",
                f"Who wrote the comment attached to {where}?",
                [f"The comment was written by {facts['author']}."],
                value=facts["author"],
                anchor=[facts["ref"], "Comment"],
            )
        )
    return out + _commented_cell(document, artifact)


def _commented_value(document: Document, artifact: Artifact, text: str) -> list[Candidate]:
    """The join of a comment and its cell: what the cell carrying a comment (named by its
    text, said by no other comment) shows. Not asked of an empty cell, of one showing its
    own address or the comment's words, or of a comment mirrored on another sheet."""
    facts = artifact.facts
    value = " ".join(str(facts.get("cell_value") or "").split())
    if not value or len(value) > MAX_SHOWN or reads_its_address(value, facts["ref"]):
        return []
    words = set(content_tokens(value))
    if normalize(value) in normalize(text) or len(words & set(content_tokens(text))) * 2 >= len(
        words
    ):
        return []  # the comment restates the cell (a label's explanation): guessed, not read
    if len(AUTHOR_PREFIX.sub("", text).split()) < 3:
        return []  # "faustm: test phrase": the author's name and a word or two
    if _said_twice(document, artifact, value):
        return []  # a term the workbook states elsewhere too (a glossary sheet): read there
    return [
        candidate(
            document,
            artifact,
            "comment-cell-value",
            f"On {_on(artifact)}, what does the cell carrying the comment “{quote(text, 80)}” "
            "show?",
            [f"The comment is on cell {facts['ref']}, which shows “{value}”."],
            # the join is what only the comment gives: the cell it stands on (the grid then
            # shows the value), probed as the view writes it, next to the comment's words
            value=artifact.locator,
            anchor=["Comment", text[:60]],
            notes=["join: a comment and the value of the cell it annotates"],
        )
    ]


MAX_SHOWN = 80


def _said_twice(document: Document, artifact: Artifact, value: str) -> bool:
    """True when the workbook writes the value (its words, as a phrase) more than once,
    leaving out the comment itself."""
    plain = f" {normalize(value)} "
    texts = [document.body, *(a.text for a in document.artifacts if a.id != artifact.id)]
    return sum(f" {normalize(text)} ".count(plain) for text in texts) > 1


# The "Author:" line a legacy comment begins with.
AUTHOR_PREFIX = re.compile(r"^[^\s:]{1,40}:\s+")


def _commented_cell(document: Document, artifact: Artifact) -> list[Candidate]:
    """The reverse look-up: which cell carries a comment, named by its text (three words or
    more that no other comment of the workbook says)."""
    facts = artifact.facts
    text = " ".join(str(facts.get("text") or "").split())
    said = [
        " ".join(str(a.facts.get("text") or "").split())
        for a in document.artifacts
        if a.kind == "comment"
    ]
    if len(text.split()) < 3 or said.count(text) != 1 or len(text) > 160:
        return []
    value = " ".join(str(facts.get("cell_value") or "").split())
    if value and re.search(rf"(?<!\w){re.escape(value)}(?!\w)", text, re.IGNORECASE):
        return []  # "Bob's my best friend" on the cell reading "Bob": the text points at it
    return (
        _commented_value(document, artifact, text)
        + [
            candidate(
                document,
                artifact,
                "comment-cell",
                f"Which cell on {_on(artifact)} carries the comment “{quote(text, 80)}”?",
                [f"The comment is attached to cell {facts['ref']}."],
                value=artifact.locator,  # "Costs!B4", as the view writes it: long enough to test
                anchor=["Comment", text[:60]],
            )
        ]
    )


def hyperlink(document: Document, artifact: Artifact) -> list[Candidate]:
    facts = artifact.facts
    if link_names_target(str(facts.get("display") or ""), str(facts["target"])):
        return []  # the cell's text already names the address
    return [
        candidate(
            document,
            artifact,
            "hyperlink-target",
            f"Where does the hyperlink on cell {facts['cell']} of {_on(artifact)} point to?",
            [f"It points to {facts['target']}."],
            value=facts["target"],
            anchor=[facts["cell"], "Hyperlink"],
        )
    ]


def validation(document: Document, artifact: Artifact) -> list[Candidate]:
    facts = artifact.facts
    values = facts.get("values") or []
    if facts.get("type") != "list" or not values or len(values) > 12:
        return []
    joined = ", ".join(values)
    first = str(facts["sqref"]).split()[0]
    return [
        candidate(
            document,
            artifact,
            "validation-list",
            f"Which values does the drop-down list (data validation) on {first} of "
            f"{_on(artifact)} allow?",
            [f"The allowed values are {joined}."],
            value=joined,
            anchor=["Data validation", first],
        )
    ]


def _effect(facts: dict) -> str:
    """A visual rule as Excel names it ('a 3 Arrows (Colored) icon set', 'a color scale')."""
    if facts.get("icon_set"):
        return f"{_a(ICON_SETS.get(facts['icon_set'], 'custom'))} icon set"
    return _a(str(facts["effect"]).split(" (")[0])


LAST_ROWS = (1048576, 65536)
RANGE = re.compile(r"^\$?([A-Z]{1,3})\$?(\d+):\$?([A-Z]{1,3})\$?(\d+)$")


def _as_read(ref: str) -> str:
    """A range as a reader names it: one that runs to the sheet's last row is whole columns
    ("column D from row 2 down"), not "D2:D1048576"."""
    found = RANGE.match(ref)
    if not found or int(found.group(4)) not in LAST_ROWS:
        return ref
    first, top, last = found.group(1), int(found.group(2)), found.group(3)
    columns = f"column {first}" if first == last else f"columns {first} to {last}"
    return f"the whole of {columns}" if top == 1 else f"{columns} from row {top} down"


def conditional_format(document: Document, artifact: Artifact) -> list[Candidate]:
    """One question per formatted range, its answer covering every rule on the range."""
    facts = artifact.facts
    rules = [
        a
        for a in document.artifacts
        if a.kind == "conditional-format"
        and a.facts["sheet"] == facts["sheet"]
        and a.facts["sqref"] == facts["sqref"]
    ]
    if rules[0].id != artifact.id:
        return []
    first = str(facts["sqref"]).split()[0]
    where = f"{_as_read(first)} on {_on(artifact)}"
    answers = []
    for rule in rules:
        if rule.facts.get("visual"):
            answers.append(f"The range shows its values with {_effect(rule.facts)}.")
        else:
            condition, effect = rule.facts["condition"], rule.facts["effect"]
            answers.append(f"A rule applies {effect} when: {condition}.")
    if len(rules) == 1 and facts.get("visual"):
        question = f"What kind of conditional formatting is applied to {where}?"
        value = str(facts["effect"])
    elif len(rules) == 1:
        question = f"What condition triggers the conditional formatting applied to {where}?"
        value = facts["condition"]
    else:
        question = f"Which conditional formatting rules apply to {where}?"
        value = str(facts.get("condition") or facts["effect"])
    notes = [f"all {len(rules)} rules of the range in one answer"] if len(rules) > 1 else []
    return [
        candidate(
            document,
            artifact,
            "conditional-format",
            question,
            answers,
            value=value,
            anchor=["Conditional formatting", first],
            notes=notes,
        )
    ]


def defined_name(document: Document, artifact: Artifact) -> list[Candidate]:
    facts = artifact.facts
    name = facts["name"]
    if SYSTEM_NAME.match(name) or facts.get("hidden") or "#REF!" in facts["refers_to"]:
        return []
    scopes = [a for a in document.artifacts if a.kind == "defined-name" and a.facts["name"] == name]
    if len(scopes) > 1:  # one name defined per sheet: say which definition
        scope = f"sheet '{facts['scope']}'" if facts.get("scope") else "the whole workbook"
        question = f"What does the defined name '{name}' scoped to {scope} refer to?"
        notes = [f"the name '{name}' is defined {len(scopes)} times: scope named"]
    else:
        question = f"What does the defined name '{name}' refer to?"
        notes = []
    return [
        candidate(
            document,
            artifact,
            "defined-name",
            question,
            [f"'{name}' refers to {facts['refers_to']}."],
            value=facts["refers_to"],
            anchor=[name, "Defined name"],
            notes=notes,
        )
    ]


_metadata = grounded_metadata(
    metadata_rule(
        "workbook",
        lambda label: f"What {label.lower()} is recorded in the workbook's properties?",
    )
)


RULES: dict[str, Rule] = {
    "sheet": sheet,
    "tlr": tlr,
    "table": table,
    "cells": cells,
    "formula": formula,
    "pivot": pivot,
    "chart": chart,
    "image": image,
    "shape": shape,
    "comment": comment,
    "hyperlink": hyperlink,
    "data-validation": validation,
    "conditional-format": conditional_format,
    "defined-name": defined_name,
    "metadata": _metadata,
}
