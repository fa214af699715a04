"""Parse a DrawingML chart part (c:chartSpace or chartEx cx:chartSpace) into typed facts.

Shared by the Word, Excel and PowerPoint extractors. `parse_chart` reads the chart
type(s), title, series (names, categories, cached values and their source
references), axis titles, legend and data-label flags; `chart_text` renders those
facts one per line so a view (and the lexical leakage test) can see each fact alone.
"""

from __future__ import annotations

from typing import Any

from lxml import etree

from extractors.ooxml.numfmt import format_value
from extractors.ooxml.sample_chart import holds_sample_data
from fidelity.core.xmlsafe import Package

C = "http://schemas.openxmlformats.org/drawingml/2006/chart"
A = "http://schemas.openxmlformats.org/drawingml/2006/main"
CX = "http://schemas.microsoft.com/office/drawing/2014/chartex"
NS = {"c": C, "a": A, "cx": CX}

MAX_POINTS = 60

# chart element local name -> (base type, 3-D)
CHART_ELEMENTS: dict[str, tuple[str, bool]] = {
    "barChart": ("bar", False),
    "bar3DChart": ("bar", True),
    "lineChart": ("line", False),
    "line3DChart": ("line", True),
    "pieChart": ("pie", False),
    "pie3DChart": ("pie", True),
    "ofPieChart": ("pie-of-pie", False),
    "doughnutChart": ("doughnut", False),
    "areaChart": ("area", False),
    "area3DChart": ("area", True),
    "scatterChart": ("scatter", False),
    "radarChart": ("radar", False),
    "bubbleChart": ("bubble", False),
    "stockChart": ("stock", False),
    "surfaceChart": ("surface", False),
    "surface3DChart": ("surface", True),
}

GROUPING_WORDS = {
    "clustered": "clustered",
    "stacked": "stacked",
    "percentStacked": "100% stacked",
    "standard": "",
}

LEGEND_POSITIONS = {"r": "right", "l": "left", "t": "top", "b": "bottom", "tr": "top right"}

LABEL_FLAGS = {
    "showVal": "values",
    "showPercent": "percentages",
    "showCatName": "category names",
    "showSerName": "series names",
    "showLegendKey": "legend keys",
    "showBubbleSize": "bubble sizes",
}

CHARTEX_LAYOUTS = {
    "waterfall": "waterfall",
    "treemap": "treemap",
    "sunburst": "sunburst",
    "funnel": "funnel",
    "boxWhisker": "box and whisker",
    "clusteredColumn": "histogram",
    "paretoLine": "pareto",
    "regionMap": "map",
}


def _local(element: etree._Element) -> str:
    return etree.QName(element).localname


def _flag(element: etree._Element | None, default: bool = False) -> bool:
    """A CT_Boolean: present without val means true."""
    if element is None:
        return default
    return element.get("val", "1") in ("1", "true")


def _val(parent: etree._Element, path: str) -> str | None:
    found = parent.find(path, NS)
    return None if found is None else found.get("val")


def _rich_text(rich: etree._Element) -> str:
    """Text of an a:p sequence: runs joined, paragraphs separated by a space."""
    paragraphs = []
    for paragraph in rich.iter(f"{{{A}}}p"):
        text = "".join(t.text or "" for t in paragraph.iter(f"{{{A}}}t"))
        if text.strip():
            paragraphs.append(text.strip())
    return " ".join(paragraphs)


def _cache_points(cache: etree._Element | None) -> list[str | None]:
    """Cached points of a c:strCache / c:numCache, indexed by idx (gaps are None)."""
    if cache is None:
        return []
    count = int(_val(cache, "c:ptCount") or 0)
    points: dict[int, str] = {}
    for point in cache.findall("c:pt", NS):
        value = point.find("c:v", NS)
        index = int(point.get("idx", "0"))
        if value is not None and index < 100_000:
            points[index] = value.text or ""
    size = max(count, max(points, default=-1) + 1)
    return [points.get(i) for i in range(min(size, 100_000))]


def _data_source(element: etree._Element | None) -> dict[str, Any]:
    """A c:tx / c:cat / c:val / c:xVal / c:yVal: its formula reference and cached points."""
    if element is None:
        return {}
    ref = element.find("c:strRef", NS)
    if ref is None:
        ref = element.find("c:numRef", NS)
    if ref is not None:
        cache = ref.find("c:strCache", NS)
        if cache is None:
            cache = ref.find("c:numCache", NS)
        return {
            "ref": ref.findtext("c:f", default="", namespaces=NS) or None,
            "points": _cache_points(cache),
            "format_code": cache.findtext("c:formatCode", namespaces=NS)
            if cache is not None
            else None,
        }
    multi = element.find("c:multiLvlStrRef", NS)
    if multi is not None:
        levels = [_cache_points(level) for level in multi.iterfind("c:multiLvlStrCache/c:lvl", NS)]
        return {
            "ref": multi.findtext("c:f", default="", namespaces=NS) or None,
            "points": _merge_levels(levels),
            "format_code": None,
        }
    for literal in ("c:strLit", "c:numLit"):
        lit = element.find(literal, NS)
        if lit is not None:
            return {"ref": None, "points": _cache_points(lit), "format_code": None}
    value = element.findtext("c:v", namespaces=NS)
    if value is not None:
        return {"ref": None, "points": [value], "format_code": None}
    rich = element.find("c:rich", NS)
    if rich is not None:
        return {"ref": None, "points": [_rich_text(rich)], "format_code": None}
    return {}


def _merge_levels(levels: list[list[str | None]]) -> list[str | None]:
    """Multi-level category labels: innermost level first in the XML; outer labels carry over."""
    if not levels:
        return []
    inner = levels[0]
    out: list[str | None] = []
    for index, label in enumerate(inner):
        parts = []
        for level in reversed(levels[1:]):
            outer = None
            for back in range(min(index, len(level) - 1), -1, -1):
                if level[back] is not None:
                    outer = level[back]
                    break
            if outer:
                parts.append(outer)
        parts.append(label or "")
        out.append(" / ".join(p for p in parts if p) or None)
    return out


def _first(parent: etree._Element, *paths: str) -> etree._Element | None:
    for path in paths:
        found = parent.find(path, NS)
        if found is not None:
            return found
    return None


def _labels(dlbls: etree._Element | None) -> list[str]:
    if dlbls is None or _flag(dlbls.find("c:delete", NS)):
        return []
    return [word for tag, word in LABEL_FLAGS.items() if _flag(dlbls.find(f"c:{tag}", NS))]


def _series(ser: etree._Element, chart_type: str) -> dict[str, Any]:
    name = _data_source(ser.find("c:tx", NS))
    categories = _data_source(_first(ser, "c:cat", "c:xVal"))
    values = _data_source(_first(ser, "c:val", "c:yVal"))
    names = [p for p in name.get("points", []) if p]
    out: dict[str, Any] = {
        "index": int(_val(ser, "c:idx") or 0),
        "order": int(_val(ser, "c:order") or 0),
        "name": names[0] if names else None,
        "name_ref": name.get("ref"),
        "chart_type": chart_type,
        "categories": categories.get("points", []),
        "categories_ref": categories.get("ref"),
        "categories_format": categories.get("format_code"),
        "values": values.get("points", []),
        "values_ref": values.get("ref"),
        "values_format": values.get("format_code"),
        "data_labels": _labels(ser.find("c:dLbls", NS)),
    }
    bubbles = _data_source(ser.find("c:bubbleSize", NS))
    if bubbles:
        out["bubble_sizes"] = bubbles.get("points", [])
        out["bubble_sizes_ref"] = bubbles.get("ref")
    return out


def _type_label(group: dict[str, Any]) -> str:
    base = group["type"]
    if base == "bar":
        base = "column" if group.get("bar_direction") == "col" else "bar"
    words = []
    grouping = GROUPING_WORDS.get(group.get("grouping") or "", group.get("grouping") or "")
    if grouping:
        words.append(grouping)
    if group.get("three_d"):
        words.append("3-D")
    if group.get("scatter_style") in ("lineMarker", "line", "smoothMarker", "smooth"):
        words.append("scatter with lines" if base == "scatter" else base)
        return " ".join(words[:-1] + [words[-1] + " chart"]).strip()
    if group.get("of_pie_type") == "bar":
        base = "bar-of-pie"
    words.append(f"{base} chart")
    return " ".join(words)


def _scatter_style(element: etree._Element) -> str | None:
    """The scatter style a reader sees: "lineMarker" with every series' line switched off
    (a:ln/a:noFill) shows markers only."""
    style = _val(element, "c:scatterStyle")
    series = element.findall("c:ser", NS)
    if (
        style in ("lineMarker", "smoothMarker")
        and series
        and all(ser.find("c:spPr/a:ln/a:noFill", NS) is not None for ser in series)
    ):
        return "marker"
    return style


def _chart_groups(plot_area: etree._Element) -> list[dict[str, Any]]:
    groups = []
    for element in plot_area:
        name = _local(element)
        if name not in CHART_ELEMENTS:
            continue
        base, three_d = CHART_ELEMENTS[name]
        group: dict[str, Any] = {
            "element": name,
            "type": base,
            "three_d": three_d,
            "bar_direction": _val(element, "c:barDir"),
            "grouping": _val(element, "c:grouping"),
            "scatter_style": _scatter_style(element),
            "radar_style": _val(element, "c:radarStyle"),
            "of_pie_type": _val(element, "c:ofPieType"),
            "vary_colors": _flag(element.find("c:varyColors", NS)),
            "data_labels": _labels(element.find("c:dLbls", NS)),
            "axis_ids": [a.get("val") for a in element.findall("c:axId", NS)],
        }
        group = {k: v for k, v in group.items() if v is not None}
        group["label"] = _type_label(group)
        group["series"] = [_series(ser, base) for ser in element.findall("c:ser", NS)]
        groups.append(group)
    return groups


def _orientation(element: etree._Element, groups: list[dict[str, Any]]) -> str:
    """Where an axis runs: category axes follow the bar direction, value axes lie across them.

    axPos is only trusted for charts without a category axis (scatter, bubble), since
    some writers leave it at its default.
    """
    kind = _local(element)
    if kind == "serAx":
        return "depth"
    axis_id = _val(element, "c:axId")
    group = next((g for g in groups if axis_id in g.get("axis_ids", [])), None)
    across = group is not None and group.get("bar_direction") == "bar"
    if kind in ("catAx", "dateAx"):
        return "vertical" if across else "horizontal"
    if group is not None and group["type"] not in ("scatter", "bubble"):
        return "horizontal" if across else "vertical"
    return "horizontal" if (_val(element, "c:axPos") or "") in ("b", "t") else "vertical"


def _axis(element: etree._Element, orientation: str, secondary: bool) -> dict[str, Any]:
    position = _val(element, "c:axPos") or ""
    title = element.find("c:title", NS)
    scaling = element.find("c:scaling", NS)
    number_format = element.find("c:numFmt", NS)
    axis: dict[str, Any] = {
        "id": _val(element, "c:axId"),
        "kind": _local(element),
        "position": position,
        "orientation": orientation,
        "secondary": secondary,
        "deleted": _flag(element.find("c:delete", NS)),
        "title": _title_text(title) if title is not None else None,
        "number_format": number_format.get("formatCode") if number_format is not None else None,
    }
    if scaling is not None:
        for bound in ("min", "max"):
            value = _val(scaling, f"c:{bound}")
            if value is not None:
                axis[bound] = value
        axis["log_base"] = _val(scaling, "c:logBase")
        axis["reversed"] = _val(scaling, "c:orientation") == "maxMin"
    return {k: v for k, v in axis.items() if v is not None}


def _title_text(title: etree._Element) -> str | None:
    source = _data_source(title.find("c:tx", NS))
    points = [p for p in source.get("points", []) if p]
    return points[0] if points else None


def _axes(plot_area: etree._Element, groups: list[dict[str, Any]]) -> list[dict[str, Any]]:
    axes = []
    seen: dict[str, int] = {}
    for element in plot_area:
        if _local(element) not in ("catAx", "valAx", "dateAx", "serAx"):
            continue
        orientation = _orientation(element, groups)
        seen[orientation] = seen.get(orientation, 0) + 1
        axes.append(_axis(element, orientation, secondary=seen[orientation] > 1))
    return axes


def parse_chart(package: Package, part: str) -> dict[str, Any]:
    """Typed facts of the chart stored in `part` of `package` (a c: or cx: chart space)."""
    root = package.xml(part)
    if root is None:
        raise KeyError(f"{part} is not in the package")
    if etree.QName(root).namespace == CX:
        return _parse_chartex(root, part)
    chart = root.find("c:chart", NS)
    facts: dict[str, Any] = {"part": part, "format": "chart", "title": None}
    if chart is None:
        facts.update(types=[], series=[], axes=[], legend={"present": False}, data_labels=[])
        return facts
    title = chart.find("c:title", NS)
    auto_deleted = _flag(chart.find("c:autoTitleDeleted", NS))
    plot_area = chart.find("c:plotArea", NS)
    groups = _chart_groups(plot_area) if plot_area is not None else []
    series = [s for group in groups for s in group.pop("series")]
    series.sort(key=lambda s: s["order"])
    if title is not None:
        facts["title"] = _title_text(title)
        if facts["title"] is None and not auto_deleted and len(series) == 1:
            facts["title"] = series[0]["name"]
            facts["title_automatic"] = True
    legend = chart.find("c:legend", NS)
    facts["legend"] = {"present": legend is not None}
    if legend is not None:
        position = _val(legend, "c:legendPos") or "r"
        facts["legend"]["position"] = LEGEND_POSITIONS.get(position, position)
        facts["legend"]["overlay"] = _flag(legend.find("c:overlay", NS))
    labels: list[str] = []
    for group in groups:
        labels.extend(w for w in group["data_labels"] if w not in labels)
    for ser in series:
        labels.extend(w for w in ser["data_labels"] if w not in labels)
        ser["points"] = formatted_points(ser)
    facts.update(
        types=groups,
        type_label=" + ".join(dict.fromkeys(g["label"] for g in groups)) or "chart",
        three_d=any(g["three_d"] for g in groups),
        series=series,
        axes=_axes(plot_area, groups) if plot_area is not None else [],
        data_labels=labels,
        style=_val(root, "c:style"),
        sample_data=holds_sample_data(series),
    )
    return facts


def _parse_chartex(root: etree._Element, part: str) -> dict[str, Any]:
    """chartEx (Office 2016 charts): type, title and series names with their cached data."""
    chart = root.find("cx:chart", NS)
    data: dict[str, dict[str, Any]] = {}
    for item in root.iterfind("cx:chartData/cx:data", NS):
        dims: dict[str, dict[str, Any]] = {}
        for dim in item:
            kind = dim.get("type", _local(dim))
            level = dim.find("cx:lvl", NS)
            points = [] if level is None else [pt.text or "" for pt in level.iterfind("cx:pt", NS)]
            dims[kind] = {"ref": dim.findtext("cx:f", namespaces=NS), "points": points}
        data[item.get("id", "")] = dims
    title = None
    layouts: list[str] = []
    series: list[dict[str, Any]] = []
    if chart is not None:
        title_el = chart.find("cx:title", NS)
        if title_el is not None:
            title = title_el.findtext(".//cx:v", namespaces=NS) or _rich_text(title_el) or None
        for order, ser in enumerate(chart.iterfind("cx:plotArea/cx:plotAreaRegion/cx:series", NS)):
            layout = ser.get("layoutId", "")
            label = CHARTEX_LAYOUTS.get(layout, layout)
            if label not in layouts:
                layouts.append(label)
            dims = data.get(ser.findtext("cx:dataId", namespaces=NS) or "", {})
            if not dims:
                data_id = ser.find("cx:dataId", NS)
                dims = data.get(data_id.get("val", "") if data_id is not None else "", {})
            cat = dims.get("cat", {})
            val = dims.get("val") or dims.get("size") or {}
            series.append(
                {
                    "index": order,
                    "order": order,
                    "name": ser.findtext("cx:tx/cx:txData/cx:v", namespaces=NS),
                    "name_ref": ser.findtext("cx:tx/cx:txData/cx:f", namespaces=NS),
                    "chart_type": label,
                    "categories": cat.get("points", []),
                    "categories_ref": cat.get("ref"),
                    "values": val.get("points", []),
                    "values_ref": val.get("ref"),
                    "data_labels": [],
                }
            )
    for entry in series:
        entry["points"] = formatted_points(entry)
    legend = chart.find("cx:legend", NS) if chart is not None else None
    return {
        "part": part,
        "format": "chartEx",
        "title": title,
        "types": [{"type": t, "label": f"{t} chart", "three_d": False} for t in layouts],
        "type_label": " + ".join(f"{t} chart" for t in layouts) or "chart",
        "three_d": False,
        "series": series,
        "axes": [],
        "legend": {
            "present": legend is not None,
            **(
                {"position": LEGEND_POSITIONS.get(legend.get("pos", "r"), "right")}
                if legend is not None
                else {}
            ),
        },
        "data_labels": [],
        "sample_data": holds_sample_data(series),
        "note": "chartEx chart: axis titles and data labels are not read",
    }


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _number(value: str, code: str | None = None) -> str:
    """A cached number as the chart shows it: its format code applied, else General."""
    try:
        number = float(value)
    except ValueError:
        return value
    if code and code.lower() != "general":
        return format_value(number, code)
    return f"{number:.15g}".replace("e+", "E+").replace("e-", "E-")


def formatted_points(series: dict[str, Any]) -> list[tuple[str, str]]:
    """(category label, value) pairs as the chart shows them, number formats applied."""
    categories: list[str | None] = series.get("categories", [])
    values: list[str | None] = series.get("values", [])
    pairs = []
    for index, value in enumerate(values):
        if value is None:
            continue
        label = categories[index] if index < len(categories) else None
        if label:
            label = _number(label, series.get("categories_format"))
        else:  # no categories at all: the axis counts 1, 2, 3; one missing: a blank label
            label = "" if any(categories) else str(index + 1)
        pairs.append((_one_line(label), _number(value, series.get("values_format"))))
    return pairs


def _points_text(series: dict[str, Any]) -> str:
    pairs = formatted_points(series)
    text = "; ".join(f"{label}={value}" for label, value in pairs[:MAX_POINTS])
    if len(pairs) > MAX_POINTS:
        text += f"; … ({len(pairs) - MAX_POINTS} more points not shown)"
    return text


def _axis_name(axis: dict[str, Any]) -> str:
    name = {"horizontal": "Horizontal", "vertical": "Vertical", "depth": "Depth"}[
        axis["orientation"]
    ]
    return f"Secondary {name.lower()}" if axis.get("secondary") else name


def chart_text(facts: dict[str, Any]) -> str:
    """One fact per line: title, type, series with their data and sources, axes, legend, labels."""
    title = _one_line(facts.get("title") or "") or "(none)"
    lines = [f"Chart title: {title}"]
    lines.append(f"Chart type: {facts.get('type_label', 'chart')}")
    for ser in facts.get("series", []):
        name = _one_line(ser.get("name") or f"Series {ser.get('order', 0) + 1}")
        points = _points_text(ser)
        lines.append(
            f"Series '{name}': {points}" if points else f"Series '{name}': (no cached values)"
        )
        if ser.get("values_ref"):
            lines.append(f"Series '{name}' values source: {ser['values_ref']}")
        if ser.get("categories_ref"):
            lines.append(f"Series '{name}' categories source: {ser['categories_ref']}")
    for axis in facts.get("axes", []):
        if axis.get("title"):
            lines.append(f"{_axis_name(axis)} axis title: {_one_line(axis['title'])}")
        bounds = [f"{b} {axis[b]}" for b in ("min", "max") if b in axis]
        if bounds:
            lines.append(f"{_axis_name(axis)} axis bounds: {', '.join(bounds)}")
    legend = facts.get("legend", {})
    if legend.get("present"):
        lines.append(f"Legend: shown at the {legend.get('position', 'right')}")
    else:
        lines.append("Legend: none")
    labels = facts.get("data_labels", [])
    lines.append(f"Data labels: {', '.join(labels)}" if labels else "Data labels: none")
    if facts.get("note"):
        lines.append(f"Note: {facts['note']}")
    return "\n".join(lines)
