"""The offline guessability check on real corpus files: defaults, giveaways, system names, ids."""

from __future__ import annotations

from openpyxl import Workbook
from openpyxl.comments import Comment

from extractors import extract_file
from fidelity.core.document import Candidate, Document
from filters import guessability
from filters.chain import GUESSABLE
from filters.groundedness import check_document
from generators.draft import candidate
from generators.rules import common, generate


def verdicts(document: Document) -> dict[str, list[tuple[Candidate, str, str]]]:
    """question type -> (candidate, verdict, reason) of the guessability check."""
    out: dict[str, list[tuple[Candidate, str, str]]] = {}
    for item in generate(document):
        decision = guessability.check(document, item)
        out.setdefault(item.question_type, []).append((item, decision.verdict, decision.reason))
    return out


def test_first_slide_title_layout_and_en_us_are_defaults_other_layouts_are_not(typical):
    structures = {a.facts["slide"]: a for a in typical.artifacts if a.kind == "slide-structure"}

    def layout_of(slide: int) -> str:
        artifact = structures[slide]
        value = artifact.facts["layout"]
        question = f"Which slide layout does slide {slide} use?"
        made = candidate(typical, artifact, "slide-layout", question, [f"It is {value}."], value)
        return guessability.check(typical, made).verdict

    assert structures[1].facts["layout"] == "Title Slide" and layout_of(1) == "fail"
    assert structures[8].facts["layout"] == "Title and Table" and layout_of(8) == "pass"
    assert structures[2].facts["layout"] == "Title and Content" and layout_of(2) == "fail"
    found = verdicts(typical)
    assert all(verdict == "fail" for _, verdict, _ in found["deck-language"])
    assert all(verdict == "pass" for _, verdict, _ in found["animation-effect"])


def test_document_default_font_and_portrait_layout_are_defaults(corpus, extracted):
    document = extracted(corpus / "word" / "SolarOverview.docx")
    found = verdicts(document)
    body = found["font-body"]
    assert [(c.probe.value, v) for c, v, _ in body] == [("Calibri", "fail")]
    assert all(v == "fail" for _, v, _ in found["layout-orientation"])
    columns = found["layout-columns"]
    assert columns and all(v == "fail" for c, v, _ in columns if c.probe.value.startswith("1 "))
    # an emphasis question names its options in the question: that is no giveaway
    spans = found["font-span"]
    assert spans and all(v == "pass" for _, v, _ in spans)


def defined_names(document: Document) -> dict[tuple[str, str], str]:
    """(name, what it refers to) -> the guessability verdict of a question about it."""
    out = {}
    for artifact in document.artifacts:
        if artifact.id.startswith("name-"):
            name, target = artifact.facts["name"], artifact.facts["refers_to"]
            question = f"What does the defined name '{name}' refer to?"
            answer = [f"'{name}' refers to {target}."]
            made = candidate(document, artifact, "defined-name", question, answer, value=target)
            out[name, target] = guessability.check(document, made).verdict
    return out


def test_custom_view_and_broken_names_are_system_names_plain_names_are_not(corpus, extracted):
    path = corpus / "excel" / "2023-half-year-analyses-by-segment.xlsx"
    verdict_of = defined_names(extracted(path))
    hidden = [key for key in verdict_of if ".wvu." in key[0] or "#REF!" in key[1]]
    assert any(".wvu." in name for name, _ in hidden)
    assert hidden and all(verdict_of[key] == "fail" for key in hidden)
    path = (
        corpus / "excel" / "0-www-crossref-org.lib.rivier.edu_education-files_suffix-generator.xlsm"
    )
    plain = defined_names(extracted(path))
    assert plain[("prefix", "Form!$B$4")] == "pass"


def test_identifiers_alt_text_and_giveaways(typical):
    picture = next(a for a in typical.artifacts if a.kind == "image")
    title = next(a for a in typical.artifacts if a.category == "Slide Text")

    def ask(artifact, kind, question, value):
        made = candidate(typical, artifact, kind, question, [f"It is {value}."], value=value)
        return guessability.check(typical, made)

    assert ask(picture, "image-alt-text", "What alt text?", "Picture 6").verdict == "fail"
    assert ask(picture, "image-alt-text", "What alt text?", "image1.jpeg").verdict == "fail"
    assert ask(picture, "image-alt-text", "What alt text?", "PowerPointFront").verdict == "pass"
    guid = "4f13db4e-c75f-463e-90ef-05536d428e80"
    assert ask(title, "metadata-x", "Which id?", guid).verdict == "fail"
    assert ask(title, "shape-text", "Which text is in [Rectangle 7]?", "Rectangle 7").verdict == (
        "fail"
    )
    given = ask(
        title, "slide-title", "Is “Typical Presentation” the title?", "Typical Presentation"
    )
    assert given.verdict == "fail" and given.answered == "Typical Presentation"
    assert ask(title, "slide-title", "What is the title?", "Typical Presentation").verdict == "pass"
    link = "Which address does the hyperlink “www.x.org/a.html” point to?"
    assert ask(title, "hyperlink-target", link, "http://www.x.org/a.html").verdict == "fail"
    mail = "Which address does the hyperlink “jo@x.org” point to?"
    assert ask(title, "hyperlink-target", mail, "mailto:jo@x.org").verdict == "fail"
    other = "Which address does the hyperlink “our site” point to?"
    assert ask(title, "hyperlink-target", other, "http://www.x.org/").verdict == "pass"


def test_a_guessable_candidate_stops_before_any_other_check(typical):
    items = [c for c in generate(typical) if c.question_type == "deck-language"]
    outcome = check_document(typical, items)[0]
    assert outcome.status == "rejected" and outcome.rejected_by == GUESSABLE.name
    assert [d.check for d, _ in outcome.decisions] == [GUESSABLE.name]
    assert outcome.reason.startswith("guessable without the file")


def test_en_us_is_a_default_only_where_the_file_is_mostly_en_us(corpus, typical, extracted):
    british = extracted(corpus / "powerpoint" / "60810.pptx")

    def tagged(document: Document) -> str:
        deck = next(a for a in document.artifacts if a.kind == "deck-language")
        question = "Which language is the text “The benefits we are seeking” tagged with?"
        made = candidate(document, deck, "run-language", question, ["It is en-US."], "en-US")
        return f"{deck.facts['lang']}:{guessability.check(document, made).verdict}"

    assert tagged(typical) == "en-US:fail"
    assert tagged(british) == "en-GB:pass"


def ask(document: Document, kind: str, question: str, value: str, answer: str = "") -> str:
    """The guessability verdict of a question on the document's first artifact."""
    artifact = document.artifacts[0]
    said = [answer or f"It is “{value}”."]
    return guessability.check(document, candidate(document, artifact, kind, question, said, value))


def test_text_that_names_itself_or_only_repeats_the_question_is_guessable(typical):
    def verdict(kind: str, question: str, value: str, answer: str = "") -> str:
        return ask(typical, kind, question, value, answer).verdict

    footer = "What footer text do the slides of this deck show?"
    assert verdict("footer-text", footer, "FOOTER GOES HERE") == "fail"
    assert verdict("footer-text", footer, "Riverside Community Garden") == "pass"
    endnote = "What does the endnote attached to “keyword to search” say?"
    assert verdict("endnote-text", endnote, "This is the endnote.") == "fail"
    header = "What does the header of the first page say?"
    assert verdict("header-text", header, "First page header") == "fail"
    oval = "What text is written inside the oval on slide 2?"
    assert verdict("shape-text", oval, "Oval") == "fail"
    cell = "What does cell B3 of sheet 'Data' show?"
    assert verdict("cell-text", cell, "B3") == "fail"
    link = "Where does the hyperlink on the text “Hunt Institute for Leadership” lead?"
    assert verdict("hyperlink-url", link, "http://www.hunt-institute.org/") == "fail"
    other = "Where does the hyperlink on the text “Kansas Department of Education” lead?"
    assert verdict("hyperlink-url", other, "http://www.ksde.org/Default.aspx") == "pass"
    # an internal handle the answer does not state is not judged by its words
    front = "Which shape on slide 1 is frontmost?"
    assert verdict("z-order-front", front, "Title 1", "The frontmost shape is the title.") == (
        "pass"
    )


def test_default_names_in_any_language_are_guessable(typical):
    def verdict(question: str, value: str) -> str:
        answer = f"The sheet is named '{value}'."
        return ask(typical, "sheet-order", question, value, answer).verdict

    assert verdict("What is the name of the third sheet of this workbook?", "Tabelle3") == "fail"
    assert verdict("What is the name of the second sheet of this workbook?", "Feuil2") == "fail"
    assert verdict("What is the name of the first sheet of this workbook?", "Sheet1") == "fail"
    assert verdict("What is the name of the second sheet of this workbook?", "Sheet5") == "pass"
    assert verdict("What is the name of the second sheet of this workbook?", "Costs") == "pass"
    section = ask(
        typical,
        "section-of-slide",
        "Which section of the deck does slide 3 belong to?",
        "Section 1",
        "Slide 3 is in the section “Section 1”.",
    )
    assert section.verdict == "fail"
    placed = ask(
        typical, "hidden-slides", "Which slide is hidden?", "slide 1", "Slide 1 is hidden."
    )
    assert placed.verdict == "pass"  # a slide's place, not a name


def test_a_language_tag_the_script_gives_away_is_guessable(typical):
    def verdict(text: str, tag: str) -> str:
        question = f"Which language is the text “{text}” on slide 2 tagged with?"
        return ask(typical, "run-language", question, tag).verdict

    assert verdict("Καλημέρα σε όλους", "el-GR") == "fail"
    assert verdict("Доброе утро всем", "ru-RU") == "fail"
    assert verdict("こんにちは皆さん", "ja-JP") == "fail"
    assert verdict("Guten Morgen allerseits", "de-DE") == "pass"
    assert verdict("Доброе утро всем", "fr-FR") == "pass"  # a mis-tagged run is worth asking


def test_gallery_equations_machine_alt_text_counts_of_one_and_sum_are_guessable(typical):
    quadratic = r"x=\frac{-b\pm\sqrt{b^{2}-4ac}}{2a}"
    assert ask(typical, "equation", "What equation is shown?", quadratic).verdict == "fail"
    own = r"v_{t}=v_{0}\cdot e^{-kt}"
    assert ask(typical, "equation", "What equation is shown?", own).verdict == "pass"
    alt = "A picture containing text, outdoor. Description automatically generated"
    assert ask(typical, "image-alt-text", "Which alt text?", alt).verdict == "fail"
    assert not common.described(alt)
    slides = "How many slides does this presentation have?"
    assert ask(typical, "slide-count", slides, "1").verdict == "fail"
    assert ask(typical, "slide-count", slides, "12").verdict == "pass"
    hidden = "How many slides are hidden in this presentation?"
    assert ask(typical, "slide-count", hidden, "1").verdict == "pass"
    pivot = "Which aggregation does the PivotTable 'Sales' apply to the field 'Amount'?"
    assert ask(typical, "pivot-aggregation", pivot, "Sum").verdict == "fail"
    assert ask(typical, "pivot-aggregation", pivot, "Average").verdict == "pass"


def test_an_answer_every_element_of_its_kind_shares_is_stated_by_the_others(tmp_path):
    def workbook(names: list[str]) -> Document:
        book = Workbook()
        for row, name in enumerate(names, start=1):
            book.active.cell(row, 1, f"Item {row}").comment = Comment(f"Check row {row}", name)
        path = tmp_path / f"{len(set(names))}.xlsx"
        book.save(path)
        document = Document(sha256="7" * 64, app="excel", format="xlsx", source=str(path))
        return extract_file(path, document, tmp_path / "media" / path.stem)

    two = workbook(["Dana Reyes", "Ola Berg", "Dana Reyes"])
    asked = [c for c in generate(two) if c.question_type == "comment-author"]
    assert asked and {guessability.check(two, c).verdict for c in asked} == {"pass"}
    # The rules ask no author of a one-author file; asked anyway, the filter rejects it: the
    # same cells with one author throughout (the artifacts keep their ids).
    one = workbook(["Dana Reyes"] * 3)
    assert not [c for c in generate(one) if c.question_type == "comment-author"]
    dana = [c for c in asked if "Dana Reyes" in c.answer[0]]
    assert dana and {guessability.check(one, c).verdict for c in dana} == {"fail"}


def test_a_programs_template_stamp_and_name_are_not_the_files_own(tmp_path) -> None:
    from pptx import Presentation

    made = Presentation()
    slide = made.slides.add_slide(made.slide_layouts[1])  # Title and Content, first slide
    slide.shapes.title.text = "Water quality at the northern pier"
    made.core_properties.author = "Apache POI"
    made.core_properties.last_modified_by = "Dana Whitfield"
    path = tmp_path / "made.pptx"
    made.save(path)
    document = Document(sha256="4" * 64, app="powerpoint", format="pptx", source=str(path))
    found = {
        item.question_type: verdict
        for items in verdicts(extract_file(path, document, tmp_path / "media")).values()
        for item, verdict, _ in items
    }
    assert found["metadata-created"] == "fail"  # python-pptx's template, 2013-01-27
    assert found["metadata-creator"] == "fail"  # a library, not a person
    assert found["metadata-lastModifiedBy"] == "pass"
    assert found["slide-layout"] == "fail"  # the new-slide layout, even on slide 1


def test_text_naming_its_own_row_or_address_piece_is_a_giveaway_an_error_value_is_not(
    tmp_path,
) -> None:
    book = Workbook()
    sheet = book.active
    sheet["A1"] = "Checked"
    sheet["A1"].comment = Comment("comment on the top row1 of the list", "Dana")
    sheet["C5"] = "Open"
    sheet["C5"].comment = Comment("waiting for the supplier to confirm", "Dana")
    sheet["A7"], sheet["B7"] = "Ratio", "=1/0"
    sheet["A8"], sheet["A8"].hyperlink = "tika", "http://tika.apache.org"
    sheet["A9"], sheet["A9"].hyperlink = "Parser list", "http://tika.apache.org/formats.html"
    path = tmp_path / "giveaways.xlsx"
    book.save(path)
    document = Document(sha256="3" * 64, app="excel", format="xlsx", source=str(path))
    found = verdicts(extract_file(path, document, tmp_path / "media"))
    cells = {c.probe.value: v for c, v, _ in found["comment-cell"]}
    assert cells == {"Sheet!A1": "fail", "Sheet!C5": "pass"}
    links = {c.probe.value: v for c, v, _ in found.get("hyperlink-target", [])}
    assert links["http://tika.apache.org"] == "fail"
    assert links["http://tika.apache.org/formats.html"] == "pass"
    cells_artifact = next(a for a in document.artifacts if a.kind == "cells")
    question = "What value does cell B7 show?"
    shown = candidate(
        document, cells_artifact, "cell-lookup", question, ["It shows #VALUE!."], "#VALUE!"
    )
    assert guessability.check(document, shown).verdict == "pass"  # "value" is no giveaway


def test_a_data_bound_templates_fields_are_not_asked(tmp_path) -> None:
    import docx

    made = docx.Document()
    made.add_heading('Customer Id: <Content Select="./CustomerID" />', 2)
    table = made.add_table(rows=3, cols=3)
    for r, row in enumerate(
        [
            ("Product", "Order Date", "Quantity"),
            ("./ProductDescription", "./OrderDate", "./Quantity"),
            ("Harbour rope", "2024-03-02", "40 m"),
        ]
    ):
        for c, text in enumerate(row):
            table.cell(r, c).text = text
    path = tmp_path / "bound.docx"
    made.save(path)
    document = Document(sha256="2" * 64, app="word", format="docx", source=str(path))
    document = extract_file(path, document, tmp_path / "media")
    found = [
        (item, verdict)
        for items in verdicts(document).values()
        for item, verdict, _ in items
        if item.category == "Table"
    ]
    template = [v for c, v in found if "./" in c.probe.value or "<Content" in c.question]
    assert template and set(template) == {"fail"}
    cells = next(a for a in document.artifacts if a.category == "Table")
    question = (
        "In the table, what is the value in the row “./ProductDescription” under “Order Date”?"
    )
    field = candidate(
        document, cells, "table-cell", question, ["It is ./OrderDate."], "./OrderDate"
    )
    assert guessability.check(document, field).verdict == "fail"  # names its own column
    real = field.model_copy(update={"probe": field.probe.model_copy(update={"value": "40 m"})})
    assert guessability.check(document, real).verdict == "pass"


def test_untitled_alt_text_is_the_applications(typical) -> None:
    picture = next(a for a in typical.artifacts if a.modality == "visual")
    question = "What description (alt text) is given for the picture?"
    said = ["It is “untitled”."]
    made = candidate(typical, picture, "image-alt-text", question, said, "untitled")
    assert guessability.check(typical, made).verdict == "fail"


def test_the_default_slide_size_is_a_default_in_any_language(typical) -> None:
    meta = next(a for a in typical.artifacts if a.kind == "metadata")
    question = "What value does the presentation's “Presentation format” property hold?"
    for value, verdict in (("Bildschirmpräsentation (4:3)", "fail"), ("A4 Paper", "pass")):
        made = candidate(
            typical, meta, "metadata-PresentationFormat", question, [f"It is {value}."], value
        )
        assert guessability.check(typical, made).verdict == verdict
