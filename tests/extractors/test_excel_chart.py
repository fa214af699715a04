"""The shared DrawingML chart parser on real charts from Word, PowerPoint and Excel files."""

from __future__ import annotations

import zipfile
from pathlib import Path

from extractors.ooxml.chart import chart_text, parse_chart
from fidelity.core.xmlsafe import Package
from tests.support.paths import CORPUS


def facts_of(relative: str, part: str) -> dict:
    with Package(CORPUS / relative) as package:
        return parse_chart(package, part)


def test_word_line_chart_series_and_sources() -> None:
    facts = facts_of("word/SolarOverview.docx", "word/charts/chart1.xml")
    assert facts["type_label"] == "line chart"
    assert facts["title"] is None
    names = [s["name"] for s in facts["series"]]
    assert names == [
        "Average Distance (km)",
        "Perihelion (Closest) (km)",
        "Aphelion (Farthest) (km)",
    ]
    first = facts["series"][0]
    assert first["values_ref"] == "Sheet1!$B$2:$B$10"
    assert first["categories"][2] == "Earth"
    assert first["values"][2] == "149597890"
    assert facts["legend"] == {"present": True, "position": "right", "overlay": False}
    text = chart_text(facts)
    assert "Chart type: line chart" in text.splitlines()
    assert "Earth=149,597,890" in text


def test_powerpoint_clustered_column_without_title() -> None:
    facts = facts_of("powerpoint/003_chart.pptx", "ppt/charts/chart1.xml")
    assert facts["types"][0]["bar_direction"] == "col"
    assert facts["type_label"] == "clustered column chart"
    assert facts["title"] is None
    assert len(facts["series"]) == 4
    assert facts["legend"]["present"] is False


def test_powerpoint_combo_chart_lists_both_types() -> None:
    facts = facts_of("powerpoint/013.pptx", "ppt/charts/chart1.xml")
    assert facts["type_label"] == "clustered column chart + line chart"
    assert facts["title"] == "Title text"
    assert {s["chart_type"] for s in facts["series"]} == {"bar", "line"}


def test_excel_3d_pie_with_data_labels() -> None:
    facts = facts_of("excel/45544.xlsx", "xl/charts/chart1.xml")
    assert facts["type_label"] == "3-D pie chart"
    assert facts["three_d"] is True
    assert facts["title"] == "Top Six Functions - Intern"
    assert "percentages" in facts["data_labels"]
    assert facts["series"][0]["values_ref"] == "'Top Six Functions'!$B$8:$B$14"
    lines = chart_text(facts).splitlines()
    assert "Chart title: Top Six Functions - Intern" in lines
    assert "Data labels: percentages, category names" in lines


def test_excel_axis_titles_and_stacked_3d_column() -> None:
    facts = facts_of("excel/57181.xlsm", "xl/charts/chart2.xml")
    assert facts["type_label"] == "stacked 3-D column chart"
    titles = {a["orientation"]: a.get("title") for a in facts["axes"] if a.get("title")}
    assert titles == {"horizontal": "Piloten (Gerufene Dienste)", "vertical": "Zahl der Anrufe"}
    lines = chart_text(facts).splitlines()
    assert "Vertical axis title: Zahl der Anrufe" in lines
    assert all("\n" not in line for line in lines)
    assert lines[0].startswith("Chart title: Aufgliederung der für alle Piloten")


def test_excel_scatter_and_multilevel_categories() -> None:
    scatter = facts_of("excel/xlsx_01.xlsx", "xl/charts/chart1.xml")
    assert scatter["types"][0]["type"] == "scatter"
    assert scatter["series"][0]["values"][:3] == ["2", "4", "6"]
    pivot = facts_of("excel/pivot.xlsm", "xl/charts/chart1.xml")
    assert pivot["series"][0]["categories"][:2] == ["G / q3", "G / q4"]


def test_chartex_gives_type_and_title(tmp_path: Path) -> None:
    chartex = (
        b'<?xml version="1.0" encoding="UTF-8"?>'
        b'<cx:chartSpace xmlns:cx="http://schemas.microsoft.com/office/drawing/2014/chartex">'
        b'<cx:chartData><cx:data id="0"><cx:strDim type="cat"><cx:f>Sheet1!$A$2:$A$3</cx:f>'
        b'<cx:lvl ptCount="2"><cx:pt idx="0">Start</cx:pt><cx:pt idx="1">End</cx:pt></cx:lvl>'
        b'</cx:strDim><cx:numDim type="val"><cx:f>Sheet1!$B$2:$B$3</cx:f><cx:lvl ptCount="2">'
        b'<cx:pt idx="0">5</cx:pt><cx:pt idx="1">9</cx:pt></cx:lvl></cx:numDim></cx:data>'
        b"</cx:chartData><cx:chart><cx:title><cx:tx><cx:txData><cx:v>Cash bridge</cx:v>"
        b"</cx:txData></cx:tx></cx:title><cx:plotArea><cx:plotAreaRegion>"
        b'<cx:series layoutId="waterfall"><cx:tx><cx:txData><cx:v>Flow</cx:v></cx:txData></cx:tx>'
        b'<cx:dataId val="0"/></cx:series></cx:plotAreaRegion></cx:plotArea></cx:chart>'
        b"</cx:chartSpace>"
    )
    path = tmp_path / "chartex.xlsx"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("xl/charts/chartEx1.xml", chartex)
    with Package(path) as package:
        facts = parse_chart(package, "xl/charts/chartEx1.xml")
    assert facts["format"] == "chartEx"
    assert facts["title"] == "Cash bridge"
    assert facts["type_label"] == "waterfall chart"
    assert facts["series"][0]["values"] == ["5", "9"]
    assert "Series 'Flow': Start=5; End=9" in chart_text(facts)
