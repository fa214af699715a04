"""Objects attached to a worksheet: formal tables, pivot tables, comments, drawings.

Each reader returns plain dicts of typed facts (no rendering); the extractor turns
them into artifacts. Parts are found through the worksheet's relationships.
"""

from __future__ import annotations

from typing import Any

from lxml import etree

from extractors.excel.sheet import cell_ref, parse_range
from extractors.excel.workbook import _rich_text, is_true, local, rid
from fidelity.core.xmlsafe import Package

A = "http://schemas.openxmlformats.org/drawingml/2006/main"
AGGREGATIONS = {
    "sum": "Sum",
    "count": "Count",
    "average": "Average",
    "max": "Max",
    "min": "Min",
    "product": "Product",
    "countNums": "Count Numbers",
    "stdDev": "StdDev",
    "stdDevp": "StdDevp",
    "var": "Var",
    "varp": "Varp",
}


def related(package: Package, part: str, kind: str) -> list[str]:
    """Internal parts of one relationship type from `part`, in relationship-id order."""
    out = []
    for _, (rel_kind, target, mode) in sorted(package.rels(part).items()):
        if rel_kind == kind and mode != "External":
            resolved = Package.resolve(part, target)
            if resolved in package.names:
                out.append(resolved)
    return out


def tables(package: Package, sheet_part: str) -> list[dict[str, Any]]:
    out = []
    for part in related(package, sheet_part, "table"):
        root = package.xml(part)
        if root is None:
            continue
        ref = root.get("ref", "")
        try:
            box = parse_range(ref)
        except ValueError:
            continue
        style = root.find("{*}tableStyleInfo")
        columns = []
        for column in root.iterfind("{*}tableColumns/{*}tableColumn"):
            columns.append(
                {
                    "name": column.get("name", ""),
                    "formula": column.findtext("{*}calculatedColumnFormula"),
                    "totals_function": column.get("totalsRowFunction"),
                    "totals_label": column.get("totalsRowLabel"),
                }
            )
        auto_filter = root.find("{*}autoFilter")
        out.append(
            {
                "part": part,
                "name": root.get("displayName") or root.get("name", ""),
                "ref": ref,
                "box": box,
                "header_rows": int(root.get("headerRowCount", "1") or 1),
                "totals_rows": int(root.get("totalsRowCount", "0") or 0),
                "style": style.get("name") if style is not None else None,
                "banded_rows": style is not None and is_true(style.get("showRowStripes")),
                "columns": columns,
                "filter": auto_filter is not None,
                "comment": root.get("comment"),
            }
        )
    return out


def _cache(package: Package, part: str) -> dict[str, Any]:
    definitions = related(package, part, "pivotCacheDefinition")
    if not definitions:
        return {"fields": [], "source": None}
    root = package.xml(definitions[0])
    if root is None:
        return {"fields": [], "source": None}
    source = root.find("{*}cacheSource/{*}worksheetSource")
    described = None
    if source is not None:
        if source.get("name"):
            described = source.get("name")
        elif source.get("ref"):
            sheet = source.get("sheet")
            described = f"'{sheet}'!{source.get('ref')}" if sheet else source.get("ref")
    elif (cache_source := root.find("{*}cacheSource")) is not None:
        described = f"{cache_source.get('type', 'external')} source"
    fields = [f.get("name", "") for f in root.iterfind("{*}cacheFields/{*}cacheField")]
    return {"fields": fields, "source": described, "cache_part": definitions[0]}


def pivots(package: Package, sheet_part: str) -> list[dict[str, Any]]:
    out = []
    for part in related(package, sheet_part, "pivotTable"):
        root = package.xml(part)
        if root is None:
            continue
        cache = _cache(package, part)
        names = cache["fields"]
        pivot_fields = list(root.iterfind("{*}pivotFields/{*}pivotField"))

        def field_name(index: str | None, names: list[str] = names) -> str:
            if index is None:
                return "?"
            number = int(index)
            if number == -2:
                return "Values"
            return names[number] if 0 <= number < len(names) else f"field {number}"

        location = root.find("{*}location")
        ref = location.get("ref", "") if location is not None else ""
        try:
            box = parse_range(ref) if ref else None
        except ValueError:
            box = None
        data_fields = []
        for data in root.iterfind("{*}dataFields/{*}dataField"):
            aggregation = data.get("subtotal", "sum")
            data_fields.append(
                {
                    "name": data.get("name") or field_name(data.get("fld")),
                    "field": field_name(data.get("fld")),
                    "aggregation": AGGREGATIONS.get(aggregation, aggregation),
                    "show_as": data.get("showDataAs"),
                }
            )
        page_fields = [
            field_name(p.get("fld")) for p in root.iterfind("{*}pageFields/{*}pageField")
        ]
        style = root.find("{*}pivotTableStyleInfo")
        out.append(
            {
                "part": part,
                "name": root.get("name", ""),
                "location": ref,
                "box": box,
                "source": cache["source"],
                "row_fields": [
                    field_name(f.get("x")) for f in root.iterfind("{*}rowFields/{*}field")
                ],
                "column_fields": [
                    field_name(f.get("x")) for f in root.iterfind("{*}colFields/{*}field")
                ],
                "page_fields": page_fields,
                "data_fields": data_fields,
                "fields": names,
                "field_count": len(pivot_fields),
                "style": style.get("name") if style is not None else None,
                "grand_totals_rows": root.get("rowGrandTotals", "1") not in ("0", "false"),
                "grand_totals_columns": root.get("colGrandTotals", "1") not in ("0", "false"),
            }
        )
    return out


def comments(package: Package, sheet_part: str, persons: dict[str, str]) -> list[dict[str, Any]]:
    """Legacy notes and threaded comments (with replies) anchored to cells of the sheet."""
    out: list[dict[str, Any]] = []
    threaded_cells: set[str] = set()
    for part in related(package, sheet_part, "threadedComment"):
        root = package.xml(part)
        if root is None:
            continue
        by_id: dict[str, dict[str, Any]] = {}
        for item in root.iterfind("{*}threadedComment"):
            entry: dict[str, Any] = {
                "kind": "threaded",
                "ref": item.get("ref", ""),
                "author": persons.get(item.get("personId", ""), ""),
                "text": " ".join((item.findtext("{*}text") or "").split()),
                "date": item.get("dT"),
                "replies": [],
                "resolved": is_true(item.get("done")),
            }
            parent = item.get("parentId")
            if parent and parent in by_id:
                by_id[parent]["replies"].append(entry)
            else:
                by_id[item.get("id", str(len(by_id)))] = entry
                out.append(entry)
                threaded_cells.add(entry["ref"])
    for part in related(package, sheet_part, "comments"):
        root = package.xml(part)
        if root is None:
            continue
        authors = [a.text or "" for a in root.iterfind("{*}authors/{*}author")]
        for item in root.iterfind("{*}commentList/{*}comment"):
            ref = item.get("ref", "")
            if ref in threaded_cells:
                continue
            text_element = item.find("{*}text")
            text = _rich_text(text_element) if text_element is not None else ""
            author_id = item.get("authorId", "0")
            author = (
                authors[int(author_id)]
                if author_id.isdigit() and int(author_id) < len(authors)
                else ""
            )
            out.append(
                {
                    "kind": "note",
                    "ref": ref,
                    "author": author,
                    "text": " ".join(text.split()),
                    "replies": [],
                }
            )
    return out


def persons(package: Package, workbook_part: str) -> dict[str, str]:
    out = {}
    for part in related(package, workbook_part, "person"):
        root = package.xml(part)
        if root is None:
            continue
        for person in root.iterfind("{*}person"):
            out[person.get("id", "")] = person.get("displayName", "")
    return out


def _anchor(anchor: etree._Element) -> tuple[str, tuple[int, int] | None, str | None]:
    """(anchor cell ref, (row, col), end cell ref) of a drawing anchor."""
    start = anchor.find("{*}from")
    end = anchor.find("{*}to")
    if start is None:
        return "", None, None

    def cell(node: etree._Element) -> tuple[int, int]:
        return int(node.findtext("{*}row") or 0) + 1, int(node.findtext("{*}col") or 0) + 1

    row, col = cell(start)
    end_ref = cell_ref(*cell(end)) if end is not None else None
    return cell_ref(row, col), (row, col), end_ref


def _text_body(element: etree._Element) -> str:
    paragraphs = []
    for paragraph in element.iter(f"{{{A}}}p"):
        text = "".join(t.text or "" for t in paragraph.iter(f"{{{A}}}t"))
        if text.strip():
            paragraphs.append(" ".join(text.split()))
    return " ".join(paragraphs)  # as printed: one paragraph reads on into the next


def _properties(element: etree._Element) -> dict[str, str]:
    for node in element.iter("{*}cNvPr"):
        return {
            "name": node.get("name", ""),
            "description": node.get("descr", "") or node.get("title", ""),
            "hidden": "1" if is_true(node.get("hidden")) else "",
        }
    return {"name": "", "description": "", "hidden": ""}


def _objects(element: etree._Element, rels: dict, drawing: str, group: str | None) -> list[dict]:
    """Charts, pictures and shapes inside one anchor's content (groups are walked)."""
    out: list[dict[str, Any]] = []
    for child in element:
        name = local(child)
        if name == "AlternateContent":
            choice = child.find("{*}Choice")
            fallback = child.find("{*}Fallback")
            found = _objects(choice, rels, drawing, group) if choice is not None else []
            if not found and fallback is not None:
                found = _objects(fallback, rels, drawing, group)
            out.extend(found)
        elif name == "graphicFrame":
            for chart in child.iter():
                if local(chart) == "chart" and rid(chart):
                    rel = rels.get(rid(chart) or "")
                    if rel:
                        out.append(
                            {
                                "type": "chart",
                                "part": Package.resolve(drawing, rel[1]),
                                "group": group,
                                **_properties(child),
                            }
                        )
                    break
        elif name == "pic":
            blip = next((b for b in child.iter(f"{{{A}}}blip")), None)
            embed = None
            if blip is not None:
                embed = next((v for k, v in blip.attrib.items() if k.endswith("}embed")), None)
            rel = rels.get(embed or "")
            out.append(
                {
                    "type": "image",
                    "part": Package.resolve(drawing, rel[1])
                    if rel and rel[2] != "External"
                    else None,
                    "group": group,
                    **_properties(child),
                }
            )
        elif name in ("sp", "cxnSp"):
            geometry = next(child.iter(f"{{{A}}}prstGeom"), None)
            out.append(
                {
                    "type": "shape",
                    "geometry": geometry.get("prst") if geometry is not None else "custom",
                    "connector": name == "cxnSp",
                    "text": _text_body(child),
                    "group": group,
                    **_properties(child),
                }
            )
        elif name == "grpSp":
            group_name = _properties(child)["name"] or "group"
            out.extend(_objects(child, rels, drawing, group_name))
    return out


def drawing_objects(package: Package, drawing: str) -> list[dict[str, Any]]:
    """Every chart, image and shape of a drawing part with its anchor cell."""
    root = package.xml(drawing)
    if root is None:
        return []
    rels = package.rels(drawing)
    out = []
    for anchor in root:
        if local(anchor) not in ("twoCellAnchor", "oneCellAnchor", "absoluteAnchor"):
            continue
        ref, position, end = _anchor(anchor)
        for item in _objects(anchor, rels, drawing, None):
            item.update(anchor=ref, position=position, anchor_end=end)
            out.append(item)
    return out
