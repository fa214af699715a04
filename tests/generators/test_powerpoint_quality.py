"""PowerPoint questions a curator rejects on unseen decks (issue 30), on built and corpus decks:
text that states its own answer, ambiguous targets, defaults and one-colour gradients."""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from PIL import Image
from pptx import Presentation
from pptx.dml.color import RGBColor
from pptx.enum.lang import MSO_LANGUAGE_ID
from pptx.enum.shapes import MSO_SHAPE
from pptx.util import Inches

from extractors import extract_file as extract
from fidelity.core.document import Candidate, Document
from filters import guessability
from generators.rules import generate


def load(path: Path, media: Path) -> Document:
    document = Document(sha256="6" * 64, app="powerpoint", format="pptx", source=str(path))
    return extract(path, document, media)


def asked(path: Path, tmp_path: Path) -> tuple[Document, list[Candidate]]:
    document = load(path, tmp_path / "media" / path.stem)
    return document, generate(document)


def of_type(candidates: list[Candidate], question_type: str) -> list[Candidate]:
    return [c for c in candidates if c.question_type == question_type]


def test_a_hidden_slide_whose_text_says_hidden_is_not_asked(tmp_path: Path) -> None:
    def deck(words: str) -> Path:
        made = Presentation()
        made.slides.add_slide(made.slide_layouts[5]).shapes.title.text = "Harvest plan"
        hidden = made.slides.add_slide(made.slide_layouts[5])
        hidden.shapes.title.text = words
        hidden._element.set("show", "0")
        path = tmp_path / f"{len(words)}.pptx"
        made.save(path)
        return path

    _, said = asked(deck("Backup slide (hidden)"), tmp_path)
    assert not of_type(said, "hidden-slides")
    _, silent = asked(deck("Budget details for the board"), tmp_path)
    (hidden,) = of_type(silent, "hidden-slides")
    assert hidden.probe.value == "slide 2"


@pytest.fixture(scope="module")
def shapes_deck(tmp_path_factory: pytest.TempPathFactory) -> Path:
    made = Presentation()
    slide = made.slides.add_slide(made.slide_layouts[6])
    red = slide.shapes.add_shape(MSO_SHAPE.OVAL, Inches(1), Inches(1), Inches(2), Inches(1))
    red.text = "Red alert zone"
    red.name = "Alert"
    red.fill.solid()
    red.fill.fore_color.rgb = RGBColor(0xE0, 0x10, 0x10)
    star = slide.shapes.add_shape(
        MSO_SHAPE.STAR_5_POINT, Inches(4), Inches(1), Inches(2), Inches(2)
    )
    star.text = "Star performer"
    star.name = "Prize"
    fade = slide.shapes.add_shape(MSO_SHAPE.CHEVRON, Inches(1), Inches(4), Inches(3), Inches(1))
    fade.text = "Next quarter"
    fade.name = "Arrow ahead"
    fade.fill.gradient()
    stops = fade.fill.gradient_stops
    stops[0].color.rgb = RGBColor(0x10, 0x30, 0xC0)
    stops[1].color.rgb = RGBColor(0xFF, 0xFF, 0xFF)
    second = made.slides.add_slide(made.slide_layouts[6])
    oval = second.shapes.add_shape(MSO_SHAPE.OVAL, Inches(1), Inches(1), Inches(2), Inches(1))
    oval.text = "Oval"
    path = tmp_path_factory.mktemp("pptx") / "shapes.pptx"
    made.save(path)
    return path


def test_text_that_states_its_shape_s_colour_or_geometry_is_not_asked(
    shapes_deck: Path, tmp_path: Path
) -> None:
    _, said = asked(shapes_deck, tmp_path)
    fills = {c.question for c in of_type(said, "shape-fill")}
    assert not any("Red alert zone" in q for q in fills)  # its text says red
    kinds = {c.question for c in of_type(said, "shape-type")}
    assert not any("Star performer" in q for q in kinds)  # its text says star
    assert any("Red alert zone" in q for q in kinds)  # the oval is not named by its text
    # a shape reading its own geometry's name is no question about its text
    assert not [c for c in of_type(said, "shape-text") if c.probe.value == "Oval"]


def test_a_gradient_fill_is_asked_as_a_gradient_never_one_colour(
    shapes_deck: Path, tmp_path: Path
) -> None:
    document, said = asked(shapes_deck, tmp_path)
    style = next(
        a
        for a in document.artifacts
        if a.kind == "shape-style" and a.facts["shape_name"] == "Arrow ahead"
    )
    assert style.facts["fill_name"] is None
    assert style.facts["fill"].startswith("gradient (") and " to " in style.facts["fill"]
    assert not [c for c in of_type(said, "shape-fill") if "Next quarter" in c.question]
    (gradient,) = of_type(said, "shape-gradient")
    assert "Next quarter" in gradient.question and "gradient fill" in gradient.answer[0]


def test_a_picture_among_several_is_not_the_picture(tmp_path: Path) -> None:
    image = tmp_path / "dot.png"
    Image.new("RGB", (8, 8), (200, 30, 30)).save(image)

    def deck(pictures: int) -> Path:
        made = Presentation()
        slide = made.slides.add_slide(made.slide_layouts[6])
        for n in range(pictures):
            picture = slide.shapes.add_picture(str(image), Inches(1 + 3 * n), Inches(1))
            picture._element.nvPicPr.cNvPr.set("descr", f"Volunteers planting row {n + 1}")
        path = tmp_path / f"pictures{pictures}.pptx"
        made.save(path)
        return path

    _, one = asked(deck(1), tmp_path)
    (alt,) = of_type(one, "image-alt-text")
    assert "the picture on slide 1" in alt.question
    _, two = asked(deck(2), tmp_path)
    assert not [c for c in of_type(two, "image-alt-text") if "the picture" in c.question]


def test_a_layout_named_like_the_slide_title_is_not_asked(tmp_path: Path) -> None:
    made = Presentation()
    made.slides.add_slide(made.slide_layouts[0]).shapes.title.text = "Garden review"
    titled = made.slides.add_slide(made.slide_layouts[5])  # the "Title Only" layout
    titled.shapes.title.text = "Title only"
    other = made.slides.add_slide(made.slide_layouts[5])
    other.shapes.title.text = "Volunteer hours"
    path = tmp_path / "layouts.pptx"
    made.save(path)
    _, said = asked(path, tmp_path)
    layouts = {c.question: c.probe.value for c in of_type(said, "slide-layout")}
    assert "Which slide layout does slide 2 use?" not in layouts
    assert layouts["Which slide layout does slide 3 use?"] == "Title Only"


def test_built_in_layouts_are_defaults_in_the_deck_s_language(
    corpus: Path, extracted: Callable[[Path], Document]
) -> None:
    document = extracted(corpus / "powerpoint" / "002.pptx")
    layouts = [c for c in generate(document) if c.question_type == "slide-layout"]
    first = next(c for c in layouts if "slide 1 " in c.question)
    assert first.probe.value == "Титульный слайд"
    verdicts = {c.probe.value: guessability.check(document, c).verdict for c in layouts}
    assert verdicts["Титульный слайд"] == "fail"
    assert verdicts["Заголовок и объект"] == "fail"


def test_the_only_shape_an_animation_could_target_is_not_asked(
    corpus: Path, extracted: Callable[[Path], Document]
) -> None:
    document = extracted(corpus / "powerpoint" / "customGeo.pptx")
    firsts = {c.question for c in generate(document) if c.question_type == "animation-first"}
    assert "Which shape does the first animation on slide 48 apply to?" not in firsts
    assert "Which shape does the first animation on slide 6 apply to?" in firsts


def test_a_footer_some_slides_do_not_show_is_asked_of_one_slide(tmp_path: Path) -> None:
    fixture = Path(__file__).resolve().parents[2] / "fixtures" / "garden_review.pptx"
    _, said = asked(fixture, tmp_path)
    footers = {c.probe.value: c.question for c in of_type(said, "footer-text")}
    # slide 6 shows another footer: the deck-wide one is asked of a slide that shows it
    assert footers["Riverside Community Garden"] in {
        f"What footer text is shown on slide {n}?" for n in (1, 2, 3, 4, 5, 7)
    }
    assert footers["Committee only"] == "What footer text is shown on slide 6?"
    (date,) = of_type(said, "date-time-text")
    assert date.question == "What date/time text do the slides of this deck show?"


def test_equal_creation_and_modification_properties_are_one_question(tmp_path: Path) -> None:
    made = Presentation()
    made.slides.add_slide(made.slide_layouts[5]).shapes.title.text = "Garden review"
    when = datetime.datetime(2021, 3, 4, 5, 6, 7)
    props = made.core_properties
    props.author = props.last_modified_by = "Dana Reyes"
    props.created = props.modified = when
    path = tmp_path / "props.pptx"
    made.save(path)
    _, said = asked(path, tmp_path)
    types = {c.question_type for c in said}
    assert "metadata-modified" not in types and "metadata-lastModifiedBy" not in types
    (created,) = of_type(said, "metadata-created")
    assert "created, and when was it last modified" in created.question
    assert len(created.answer) == 2
    (author,) = of_type(said, "metadata-creator")
    assert "who last modified it" in author.question and len(author.answer) == 2


def test_a_run_s_language_needs_letters_and_a_script_that_does_not_give_it(
    corpus: Path, extracted: Callable[[Path], Document]
) -> None:
    document = extracted(corpus / "powerpoint" / "stress013.pptx")
    runs = [c for c in generate(document) if c.question_type == "run-language"]
    assert not [c for c in runs if "“β”" in c.question]  # one Greek letter: no question
    deck = extracted(corpus / "powerpoint" / "autoshape-case017_slide-number.pptx")
    (language,) = [c for c in generate(deck) if c.question_type == "deck-language"]
    assert language.probe.value == "ru-RU"
    decision = guessability.check(deck, language)
    assert decision.verdict == "fail" and "cyrillic script" in decision.reason


def test_the_fill_every_new_shape_gets_is_not_asked(
    corpus: Path, extracted: Callable[[Path], Document]
) -> None:
    document = extracted(corpus / "powerpoint" / "group-shapes-nested.pptx")
    styles = {a.facts["shape_name"]: a.facts for a in document.artifacts if a.kind == "shape-style"}
    pentagon = styles["Regular Pentagon 12"]  # fill from its style reference: accent 1
    assert pentagon["fill_from_style"] and pentagon["fill_theme"] == "accent1"
    fills = [c for c in generate(document) if c.question_type == "shape-fill"]
    assert not [c for c in fills if "“J”" in c.question]


def test_an_answer_quotes_a_shape_s_text_as_the_question_does(
    corpus: Path, extracted: Callable[[Path], Document]
) -> None:
    document = extracted(corpus / "powerpoint" / "aascu.org_hbcu_leadershipsummit_cooper_.pptx")
    placed = [c for c in generate(document) if c.question_type == "shape-position"]
    quoted = [c for c in placed if "“" in c.question]
    assert quoted
    for item in quoted:
        asked = re.findall(r"“[^”]*”", item.question)
        assert re.findall(r"“[^”]*”", item.answer[0]) == asked, item.answer


def test_a_chart_is_never_named_by_its_placeholder_title(
    corpus: Path, extracted: Callable[[Path], Document]
) -> None:
    document = extracted(corpus / "powerpoint" / "013.pptx")
    titles = {a.facts.get("title") for a in document.artifacts if a.kind == "chart"}
    assert "Title text" in titles
    assert not [c for c in generate(document) if "“Title text”" in c.question]


def test_a_highlight_on_part_of_a_word_is_not_quoted(
    corpus: Path, extracted: Callable[[Path], Document], tmp_path: Path
) -> None:
    document = extracted(corpus / "powerpoint" / "highlight-test-case.pptx")
    parts = {a.facts["text"] for a in document.artifacts if a.kind == "text-highlight"}
    assert "ighl" in parts  # the run boundary cuts "highlight"
    assert not [c for c in generate(document) if c.category == "Text Highlight"]
    fixture = Path(__file__).resolve().parents[2] / "fixtures" / "garden_review.pptx"
    _, said = asked(fixture, tmp_path)
    assert [c for c in said if c.category == "Text Highlight"]  # whole words still asked


def test_a_run_cut_out_of_a_word_is_not_asked_for_its_language(tmp_path: Path) -> None:
    made = Presentation()
    slide = made.slides.add_slide(made.slide_layouts[6])
    first = slide.shapes.add_textbox(Inches(1), Inches(1), Inches(8), Inches(1))
    paragraph = first.text_frame.paragraphs[0]
    for text, language in (
        ("R", MSO_LANGUAGE_ID.ENGLISH_US),
        ("eduction scenario", MSO_LANGUAGE_ID.GERMAN),
        (" for the coastal region until the year after next", MSO_LANGUAGE_ID.ENGLISH_US),
    ):
        run = paragraph.add_run()
        run.text, run.font.language_id = text, language
    second = slide.shapes.add_textbox(Inches(1), Inches(3), Inches(8), Inches(1))
    run = second.text_frame.paragraphs[0].add_run()
    run.text, run.font.language_id = "Guten Morgen", MSO_LANGUAGE_ID.GERMAN
    path = tmp_path / "runs.pptx"
    made.save(path)
    _, said = asked(path, tmp_path)
    quoted = {c.question for c in of_type(said, "run-language")}
    assert any("“Guten Morgen”" in q for q in quoted)
    assert not any("eduction" in q for q in quoted)


def test_a_link_named_by_its_target_slides_title_is_not_asked(tmp_path: Path) -> None:
    from pptx.opc.constants import RELATIONSHIP_TYPE
    from pptx.oxml.ns import qn

    made = Presentation()
    start = made.slides.add_slide(made.slide_layouts[5])
    start.shapes.title.text = "Contents"
    target = made.slides.add_slide(made.slide_layouts[5])
    target.shapes.title.text = "Budget overview"
    box = start.shapes.add_textbox(Inches(1), Inches(2), Inches(6), Inches(2)).text_frame
    box.text = "Budget overview"
    box.add_paragraph().text = "See the numbers"
    rel = start.part.relate_to(target.part, RELATIONSHIP_TYPE.SLIDE)
    for paragraph in box.paragraphs:
        link = paragraph.runs[0]._r.get_or_add_rPr().add_hlinkClick(rel)
        link.set("action", "ppaction://hlinksldjump")
        assert link.get(qn("r:id")) == rel
    path = tmp_path / "links.pptx"
    made.save(path)
    _, said = asked(path, tmp_path)
    (link,) = of_type(said, "hyperlink-slide")
    assert "See the numbers" in link.question and link.probe.value == "slide 2"


def test_properties_the_slides_print_and_boxes_printing_properties_are_not_asked(
    tmp_path: Path,
) -> None:
    made = Presentation()
    cover = made.slides.add_slide(made.slide_layouts[0])
    cover.shapes.title.text = "Dairy cattle fertility trends"
    cover.placeholders[1].text = "H.D. NORMAN and J. WRIGHT"
    for text in ("Spring survey report 2024", "Calving intervals by herd"):
        body = made.slides.add_slide(made.slide_layouts[6])
        box = body.shapes.add_shape(MSO_SHAPE.OVAL, Inches(1), Inches(1), Inches(5), Inches(2))
        box.text_frame.text = text
    made.core_properties.author = "D. Norman"
    made.core_properties.subject = "Spring survey report 2024"
    made.core_properties.last_modified_by = "Dana Whitfield"
    path = tmp_path / "printed.pptx"
    made.save(path)
    _, said = asked(path, tmp_path)
    types = {c.question_type for c in said}
    assert "metadata-creator" not in types and "metadata-lastModifiedBy" in types
    assert "metadata-subject" not in types  # the box prints it
    texts = {c.probe.value for c in of_type(said, "shape-text")}
    assert "Spring survey report 2024" not in texts and "Calving intervals by herd" in texts


def test_a_language_quote_never_joins_runs_the_slide_shows_apart(tmp_path: Path) -> None:
    made = Presentation()
    made.core_properties.language = "en-US"
    slide = made.slides.add_slide(made.slide_layouts[6])
    frame = slide.shapes.add_textbox(Inches(1), Inches(1), Inches(7), Inches(2)).text_frame
    paragraph = frame.paragraphs[0]
    for text, language in (
        ("（ＧＨＱ）本部", MSO_LANGUAGE_ID.JAPANESE),
        (" and then some other text: ", MSO_LANGUAGE_ID.ENGLISH_US),
        ("東京の会議", MSO_LANGUAGE_ID.JAPANESE),
    ):
        run = paragraph.add_run()
        run.text = text
        run.font.language_id = language
    path = tmp_path / "tags.pptx"
    made.save(path)
    _, said = asked(path, tmp_path)
    quoted = {c.question.split("“")[1].split("”")[0] for c in of_type(said, "run-language")}
    assert quoted and quoted <= {"（ＧＨＱ）本部", "東京の会議"}


def test_a_lone_hidden_slide_a_paired_blank_and_an_unlabelled_point_are_not_asked(
    tmp_path: Path,
) -> None:
    from pptx.chart.data import CategoryChartData
    from pptx.enum.chart import XL_CHART_TYPE

    made = Presentation()
    slide = made.slides.add_slide(made.slide_layouts[5])
    slide.shapes.title.text = "Ambulatory care at the eastern centre"
    slide._element.set("show", "0")
    box = slide.shapes.add_textbox(Inches(1), Inches(2), Inches(8), Inches(1)).text_frame
    box.text = "We can also write subscripts in formulas and superscript in footnotes today."
    data = CategoryChartData()
    data.categories = ["North", "", "South", "West"]
    data.add_series("Visits", (40.0, 5.0, 30.0, 25.0))
    slide.shapes.add_chart(
        XL_CHART_TYPE.COLUMN_CLUSTERED, Inches(1), Inches(3), Inches(6), Inches(3), data
    )
    path = tmp_path / "lone.pptx"
    made.save(path)
    _, said = asked(path, tmp_path)
    assert not of_type(said, "hidden-slides")  # one slide: "which one" answers itself
    assert all(c.probe.value != "superscript" for c in said)  # "subscripts … and ____"
    charted = [c for c in said if c.category == "Chart"]
    assert charted  # the chart is asked about, but its unlabelled point is named by nothing
    assert all("“2”" not in " ".join(c.answer) and "“”" not in " ".join(c.answer) for c in charted)
    extremes = [c for c in charted if c.question_type in ("chart-extreme", "chart-second")]
    assert all("lowest" not in c.question for c in extremes)


def test_copies_samples_media_and_x_y_charts_are_asked_as_a_reader_sees_them(
    tmp_path: Path,
) -> None:
    from pptx.chart.data import CategoryChartData, XyChartData
    from pptx.enum.chart import XL_CHART_TYPE

    made = Presentation()
    made.core_properties.title = "Presentation"
    for _copy in range(2):  # a copied slide: the same boxes in the same colours
        slide = made.slides.add_slide(made.slide_layouts[6])
        for row, (label, colour) in enumerate((("Level 1", "CCFFFF"), ("Level 2", "00FFFF"))):
            box = slide.shapes.add_shape(
                MSO_SHAPE.ROUNDED_RECTANGLE, Inches(1), Inches(1 + row), Inches(3), Inches(0.8)
            )
            box.text_frame.text = label
            box.fill.solid()
            box.fill.fore_color.rgb = RGBColor.from_string(colour)
        pie = CategoryChartData()
        pie.categories = ["1st Qtr", "2nd Qtr", "3rd Qtr"]
        pie.add_series("Sales", (8.2, 3.2, 1.4))
        slide.shapes.add_chart(XL_CHART_TYPE.PIE, Inches(5), Inches(1), Inches(4), Inches(3), pie)
    slide = made.slides.add_slide(made.slide_layouts[6])
    points = XyChartData()
    series = points.add_series("Readings")
    for x, y in ((1.2, 4.0), (2.6, 8.0), (3.1, 5.5), (4.4, 7.1)):
        series.add_data_point(x, y)
    chart = slide.shapes.add_chart(
        XL_CHART_TYPE.XY_SCATTER_LINES, Inches(1), Inches(1), Inches(6), Inches(4), points
    ).chart
    for ser in chart.plots[0].series:
        ser.format.line.fill.background()  # the line switched off: markers only
    path = tmp_path / "copies.pptx"
    made.save(path)
    document, said = asked(path, tmp_path)
    assert not of_type(said, "shape-fill")  # the copy on the other slide states each colour
    assert not [c for c in said if c.category == "Chart" and "Sales" in " ".join(c.answer)]
    kinds = [c.probe.value for c in of_type(said, "chart-type")]
    assert kinds and all("lines" not in kind for kind in kinds)
    assert not [c for c in said if c.question_type in ("chart-value", "chart-extreme")]
    placed = [c.question for c in of_type(said, "shape-position")]
    assert not [q for q in placed if "chart" in q and "slide 3" not in q]  # both slides say it
    (title,) = of_type(said, "metadata-title")  # "Presentation": the kind of file, no title
    assert guessability.check(document, title).verdict == "fail"


def test_the_nth_point_of_a_slides_one_bulleted_list_is_asked(typical) -> None:
    points = {c.question: c for c in generate(typical) if c.question_type == "slide-bullet"}
    assert points and all("slide 12" not in q for q in points)  # three lists there: which one?
    for question, item in points.items():
        slide = int(question.split("slide ")[1].split(",")[0])
        body = next(
            a
            for a in typical.artifacts
            if a.kind == "slide-text"
            and a.facts.get("slide") == slide
            and a.facts.get("role") == "body"
        )
        listed = [p["text"] for p in body.facts["paragraphs"] if p["level"] == 0 and p["bullet"]]
        ordinal = question.split("the ")[1].split(" ")[0]
        assert listed.index(item.probe.value) == ["first", "second", "third", "fourth"].index(
            ordinal
        )


def test_numbered_titles_automatic_dates_and_a_blanked_point_are_not_asked(tmp_path: Path) -> None:
    made = Presentation()
    for number, layout in ((1, "Comparison"), (2, "Two Content")):
        slide = made.slides.add_slide(made.slide_layouts[1])
        slide.shapes.title.text = f"Slide {number} ({layout})"
        body = slide.placeholders[1].text_frame
        body.text = "Harbour pilots from Ostrava guide every tanker into the inner basin"
        for point in ("Tugs wait beyond the breakwater", "Pilots board at the outer buoy"):
            body.add_paragraph().text = point
    path = tmp_path / "numbered.pptx"
    made.save(path)
    _, said = asked(path, tmp_path)
    assert not of_type(said, "slide-title")  # "Slide 2 (…)" on slide 2 names itself
    clozes = [c.question for c in of_type(said, "slide-text-cloze")]
    for point in of_type(said, "slide-bullet"):
        assert not any(point.probe.value.split()[-1] in q for q in clozes)


def test_an_automatic_date_on_the_slides_is_not_asked_by_its_cached_text(tmp_path: Path) -> None:
    from lxml import etree
    from pptx.oxml.ns import qn

    made = Presentation()
    slide = made.slides.add_slide(made.slide_layouts[0])
    slide.shapes.title.text = "Ambulatory care at the eastern centre"
    date = next(p for p in slide.slide_layout.placeholders if p.placeholder_format.type == 16)
    frame = slide.shapes.clone_placeholder(date) or slide.placeholders[date.placeholder_format.idx]
    paragraph = frame.text_frame.paragraphs[0]._p
    field = etree.SubElement(paragraph, qn("a:fld"), id="{B5D6E1A2-0000-4000-8000-000000000001}")
    field.set("type", "datetime1")
    etree.SubElement(field, qn("a:t")).text = "12/03/26"
    path = tmp_path / "dated.pptx"
    made.save(path)
    _, said = asked(path, tmp_path)
    assert not of_type(said, "date-time-text")
