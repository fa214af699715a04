"""The offline guessability check on real corpus files: defaults, giveaways, system names, ids."""

from __future__ import annotations

from fidelity.core.document import Candidate, Document
from filters import guessability
from filters.groundedness import check_document
from generators.draft import candidate
from generators.rules import generate


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
    assert outcome.status == "rejected" and outcome.rejected_by == guessability.CHECK
    assert [d.check for d, _ in outcome.decisions] == [guessability.CHECK]
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
