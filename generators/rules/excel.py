"""Offline question rules for Excel artifacts, one per artifact kind, from typed facts.

Each probe's value is the answer span; its anchor holds the words that identify
the thing asked about as the artifact text writes them (a cell reference, a row
label, "Chart title"…), so the leakage test judges whether a view still states it.
"""

from __future__ import annotations

from fidelity.model import Artifact, Candidate, Document
from generators.draft import candidate, quote
from generators.rules.common import Rule

ORDINALS = {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth"}


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
    same_state = [
        a for a in document.artifacts if a.kind == "sheet" and a.facts.get("state") == state
    ]
    if state != "visible" and len(same_state) == 1:
        out.append(
            candidate(
                document,
                artifact,
                "sheet-visibility",
                f"Which sheet of this workbook is {state}?",
                [f"The sheet '{name}' is {state}."],
                value=name,
                anchor=[state],
            )
        )
    position, count = facts["position"], facts["count"]
    if count >= 2 and position in ORDINALS:
        out.append(
            candidate(
                document,
                artifact,
                "sheet-order",
                f"What is the name of the {ORDINALS[position]} sheet (in tab order) "
                "of this workbook?",
                [f"The {ORDINALS[position]} sheet is named '{name}'."],
                value=name,
                anchor=[f"Sheet {position} of {count}"],
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
    for item in artifact.facts.get("lookups", [])[:2]:
        out.append(
            candidate(
                document,
                artifact,
                "cell-lookup",
                f"In {where} on {_on(artifact)}, what is the value in the row "
                f"'{quote(item['row_label'], 50)}' under the column "
                f"'{quote(item['column_header'], 50)}'?",
                [
                    f"The value for '{item['row_label']}' under '{item['column_header']}' "
                    f"is {item['value']} (cell {item['cell']})."
                ],
                value=item["value"],
                anchor=[item["row_label"]],
            )
        )
    return out


def tlr(document: Document, artifact: Artifact) -> list[Candidate]:
    return _lookups(document, artifact, f"the table-like range {artifact.facts['range']}")


def table(document: Document, artifact: Artifact) -> list[Candidate]:
    facts = artifact.facts
    name = facts["name"]
    out = _lookups(document, artifact, f"the table '{name}'")
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
    for pair in artifact.facts.get("pairs", [])[:2]:
        out.append(
            candidate(
                document,
                artifact,
                "labelled-value",
                f"On {_on(artifact)}, what value is shown in cell {pair['cell']}, next to "
                f"the label '{quote(pair['label'], 60)}'?",
                [f"Cell {pair['cell']} shows {pair['value']}."],
                value=pair["value"],
                anchor=[pair["cell"]],
            )
        )
    if not out:
        for item in artifact.facts.get("cells", [])[:1]:
            if len(item["text"].strip()) >= 4:
                out.append(
                    candidate(
                        document,
                        artifact,
                        "cell-text",
                        f"What does cell {item['cell']} on {_on(artifact)} contain?",
                        [f"Cell {item['cell']} contains '{item['text']}'."],
                        value=item["text"],
                        anchor=[item["cell"]],
                    )
                )
    return out


def formula(document: Document, artifact: Artifact) -> list[Candidate]:
    facts = artifact.facts
    if not facts.get("ask"):
        return []
    where = f"cell {facts['cell']} of {_on(artifact)}"
    out = [
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
    if facts.get("sheets"):
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


def pivot(document: Document, artifact: Artifact) -> list[Candidate]:
    facts = artifact.facts
    name = facts["name"]
    out = []
    for data_field in facts.get("data_fields", [])[:1]:
        if not _unique(document, artifact, data_field["aggregation"], _pivot_values):
            continue
        out.append(
            candidate(
                document,
                artifact,
                "pivot-aggregation",
                f"Which aggregation does the PivotTable '{name}' apply to the field "
                f"'{data_field['field']}'?",
                [f"It shows the {data_field['aggregation']} of {data_field['field']}."],
                value=data_field["aggregation"],
                anchor=["Value field", data_field["name"]],
            )
        )
    fields = ", ".join(facts.get("row_fields", []))
    if fields and _unique(document, artifact, fields, _pivot_values):
        out.append(
            candidate(
                document,
                artifact,
                "pivot-row-fields",
                f"Which field(s) does the PivotTable '{name}' use as row fields?",
                [f"The row fields of '{name}' are {fields}."],
                value=fields,
                anchor=["Row fields"],
            )
        )
    if facts.get("source") and _unique(document, artifact, str(facts["source"]), _pivot_values):
        out.append(
            candidate(
                document,
                artifact,
                "pivot-source",
                f"What is the source data of the PivotTable '{name}'?",
                [f"The PivotTable '{name}' is built from {facts['source']}."],
                value=facts["source"],
                anchor=["Source data"],
            )
        )
    return out


def chart(document: Document, artifact: Artifact) -> list[Candidate]:
    facts = artifact.facts
    where = f"the chart placed over {facts.get('anchor_range', '')} on {_on(artifact)}"
    out = []

    def unique(value: str) -> bool:
        return _unique(document, artifact, value, _chart_values)

    if facts.get("title") and not facts.get("title_automatic") and unique(facts["title"]):
        out.append(
            candidate(
                document,
                artifact,
                "chart-title",
                f"What is the title of {where}?",
                [f"The chart's title is '{facts['title']}'."],
                value=facts["title"],
                anchor=["Chart title"],
            )
        )
    if unique(facts["type_label"]):
        out.append(
            candidate(
                document,
                artifact,
                "chart-type",
                f"What type of chart is {where}?",
                [f"It is a {facts['type_label']}."],
                value=facts["type_label"],
                anchor=["Chart type"],
            )
        )
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
    return out


def image(document: Document, artifact: Artifact) -> list[Candidate]:
    facts = artifact.facts
    if not facts.get("description"):
        return []
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
    if facts.get("name") and facts.get("shape_type") not in ("rectangle", "freeform"):
        out.append(
            candidate(
                document,
                artifact,
                "shape-type",
                f"What kind of shape is the drawing object '{facts['name']}' on {_on(artifact)}?",
                [f"'{facts['name']}' is a {facts['shape_type']} shape."],
                value=facts["shape_type"],
                anchor=[facts["name"]],
            )
        )
    return out


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
    if facts.get("author"):
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
    return out


def hyperlink(document: Document, artifact: Artifact) -> list[Candidate]:
    facts = artifact.facts
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


def conditional_format(document: Document, artifact: Artifact) -> list[Candidate]:
    facts = artifact.facts
    first = str(facts["sqref"]).split()[0]
    where = f"{first} on {_on(artifact)}"
    if facts.get("visual"):
        question = f"What kind of conditional formatting is applied to {where}?"
        answer, value = f"The range shows values as a {facts['effect']}.", facts["effect"]
    else:
        question = f"What condition triggers the conditional formatting applied to {where}?"
        answer = f"The rule applies when: {facts['condition']} ({facts['effect']})."
        value = facts["condition"]
    return [
        candidate(
            document,
            artifact,
            "conditional-format",
            question,
            [answer],
            value=value,
            anchor=["Conditional formatting", first],
        )
    ]


def defined_name(document: Document, artifact: Artifact) -> list[Candidate]:
    facts = artifact.facts
    return [
        candidate(
            document,
            artifact,
            "defined-name",
            f"What does the defined name '{facts['name']}' refer to?",
            [f"'{facts['name']}' refers to {facts['refers_to']}."],
            value=facts["refers_to"],
            anchor=[facts["name"], "Defined name"],
        )
    ]


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
}
