"""OUT/report.html: written by the build, the same numbers as coverage and funnel, safe data island,
new checks and statuses picked up from the data, and (where Debian's chromium is installed) the
page loading in a headless browser with its charts, rows and filters working."""

from __future__ import annotations

import io
import json
import re
import shutil
from collections import Counter
from collections.abc import Iterator
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from lxml import html as lxml_html
from PIL import Image

from fidelity import coverage, funnel
from fidelity.cli import main as cli
from fidelity.core.config import CoverageConfig
from fidelity.core.document import KEPT_STATUSES
from fidelity.core.store import RunStore
from fidelity.report import REPORT_NAME, write_report
from fidelity.report.chart_crop import MARGIN, frames
from fidelity.report.page import PAGE_SIZE, json_island
from fidelity.report.sections import converted_to, size_words
from tests.generators.test_llm_generators_pipeline import WORD_FILE, generic_model
from tests.support.browser import launched_chromium
from tests.support.openai_stub import StubServer
from tests.support.page_counts import declared_pages_config
from tests.support.synthetic_run import HOSTILE, synthetic_store

pytestmark = pytest.mark.slow  # whole builds: not in make test-quick

ROOT = Path(__file__).resolve().parents[2]
needs_chromium = pytest.mark.needs("chromium")
# The module's build of fixtures/ renders its deck through LibreOffice.
needs_libreoffice = pytest.mark.needs("libreoffice")
HTML_PARSER = lxml_html.HTMLParser(huge_tree=True)


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A build of fixtures/; what it printed is in OUT/../build.log."""
    out = tmp_path_factory.mktemp("report") / "out"
    printed = io.StringIO()
    with redirect_stdout(printed):
        assert cli(["build", str(ROOT / "fixtures"), "-o", str(out)]) == 0
    (out.parent / "build.log").write_text(printed.getvalue())
    return out


def island(path: Path) -> dict:
    page = lxml_html.parse(str(path), HTML_PARSER).getroot()
    (script,) = page.xpath('//script[@id="report-data"]')
    return json.loads(script.text)


def page_of(path: Path) -> lxml_html.HtmlElement:
    return lxml_html.parse(str(path), HTML_PARSER).getroot()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with launched_chromium() as launched:
        yield launched


def open_page(browser: Any, path: Path, fragment: str = "", **options: Any) -> tuple[Any, list]:
    """A new tab showing the page at `path` once loaded, and what it logged or threw (the
    report writes nothing to the console when all is well)."""
    page = browser.new_page(**options)
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on("console", lambda message: problems.append(message.text))
    page.goto(path.resolve().as_uri() + fragment)
    return page, problems


def dump_dom(browser: Any, path: Path, fragment: str = "") -> lxml_html.HtmlElement:
    """The page's DOM after its scripts ran."""
    page, problems = open_page(browser, path, fragment)
    try:
        dom = lxml_html.fromstring(page.content(), parser=HTML_PARSER)
    finally:
        page.close()
    assert problems == []
    return dom


@needs_libreoffice
def test_the_build_writes_the_report_with_every_candidate(run: Path) -> None:
    data = island(run / REPORT_NAME)
    kept = (run / "questions.jsonl").read_text().splitlines()
    rejected = (run / "rejected.jsonl").read_text().splitlines()
    assert len(data["questions"]) == len(kept) + len(rejected)
    fields = data["fields"]["question"]
    strings = data["strings"]
    statuses = Counter(strings[row[fields.index("status")]] for row in data["questions"])
    assert statuses["rejected"] == len(rejected)
    assert statuses["kept"] + statuses["unverified"] == len(kept)
    page = page_of(run / REPORT_NAME)
    (policy,) = page.xpath('//meta[@http-equiv="Content-Security-Policy"]/@content')
    assert "default-src 'none'" in policy
    assert not page.xpath(
        "//link[@rel='stylesheet'] | //script[@src] | //*[@href[starts-with(., 'http')]]"
    )
    assert not re.search(
        r"https?://", "".join(page.xpath("//style/text() | //script[not(@type)]/text()"))
    )


@needs_libreoffice
def test_heatmap_tiles_are_the_coverage_cells(run: Path) -> None:
    store = RunStore(run / "run.sqlite")
    try:
        cells = coverage.compute(store, CoverageConfig())
    finally:
        store.close()
    page = page_of(run / REPORT_NAME)
    assert page.xpath('//section[@id="coverage-section"]//h3/text()') == [
        "Word",
        "Excel",
        "PowerPoint",
    ]
    for app in ("word", "excel", "powerpoint"):
        tiles = page.xpath(f'//div[@id="heatmap-{app}"]/a[@class="tile"]')
        expected = [cell for (cell_app, _), cell in cells.items() if cell_app == app]
        assert [tile.get("data-category") for tile in tiles] == [c.category for c in expected]
        for tile, cell in zip(tiles, expected, strict=True):
            # The full name, never cut, and counts in words.
            assert tile.xpath('string(.//*[@class="tile-label"])') == cell.category
            assert tile.xpath('string(.//*[@class="tile-count"])') == f"{cell.kept} kept"
            unused = tile.xpath('string(.//*[@class="tile-unused"])')
            if not cell.artifacts:
                assert unused == "no artifacts in the corpus"
            elif cell.unused:
                assert unused.startswith(f"{cell.unused} of {cell.artifacts} artifact")
            elif cell.artifacts == 1:
                assert unused == "its one artifact is asked about"
            else:
                assert unused == f"all {cell.artifacts} artifacts asked about"
            unverified = tile.xpath('string(.//*[@class="tile-unverified"])')
            assert unverified == (f"{cell.unverified} unverified" if cell.unverified else "")
            link = f"#app={app}&category={quote(cell.category)}&status=kept%20or%20unverified"
            assert tile.get("href") == link


@needs_libreoffice
def test_targets_colour_cells_and_bucket_targets_add_strips(run: Path, tmp_path: Path) -> None:
    targets = CoverageConfig.from_toml(
        {"targets": {"word": {"Table": {"total": 4, "Small": 2}, "Text": 1}}}
    )
    store = RunStore(run / "run.sqlite")
    try:
        cells = coverage.compute(store, targets)
        out = tmp_path / "copy"
        out.mkdir()
        write_report(store, out, targets)
    finally:
        store.close()
    page = page_of(out / REPORT_NAME)
    table = page.xpath('//div[@id="heatmap-word"]/a[@data-category="Table"]')[0]
    cell = cells[("word", "Table")]
    assert table.xpath('string(.//*[@class="tile-count"])') == f"{cell.kept} kept of 4"
    buckets = table.xpath('.//*[@class="tile-bucket"]/text()')
    assert f"Small files (up to 10 pages): {cell.buckets['Small'].kept} kept of 2" in buckets
    text = page.xpath('//div[@id="heatmap-word"]/a[@data-category="Text"]')[0]
    assert text.get("data-state") == "target met" and "hsl(120" in text.get("style")


@needs_libreoffice
def test_funnel_chart_draws_the_funnel_numbers(run: Path) -> None:
    store = RunStore(run / "run.sqlite")
    try:
        counts = funnel.compute(store)
    finally:
        store.close()
    page = page_of(run / REPORT_NAME)
    for name, row in [("run", counts.total), *counts.apps.items()]:
        values = page.xpath(f'//figure[@id="funnel-{name}"]//text[@class="bar-value"]/text()')
        assert [int(value) for value in values] == [row.candidates, *row.survivors(), row.kept]
    lines = page.xpath('//table[@id="funnel-cells"]/tbody/tr')
    assert len(lines) == len(counts.cells)
    for line in lines:
        app, category, *numbers = [td.text_content() for td in line.xpath("td")]
        row = counts.cells[(app, category)]
        expected = [row.candidates, *row.survivors(), row.kept, row.unverified]
        assert [int(n) for n in numbers] == expected
    views = page.xpath('//figure[@id="rejections-by-view"]//text[@class="bar-label"]/text()')
    assert sorted(views) == sorted(counts.views)


@needs_libreoffice
def test_evidence_links_pictures_and_slides_relative_to_out(run: Path) -> None:
    data = island(run / REPORT_NAME)
    fields = data["fields"]["artifact"]
    artifacts = data["artifacts"]
    tables = [a for a in artifacts if a[fields.index("html")]]
    pictures = [a[fields.index("media")] for a in artifacts if a[fields.index("media")]]
    slides = [a[fields.index("slide")] for a in artifacts if a[fields.index("slide")]]
    assert tables and pictures and slides
    for relative in pictures + slides:
        assert not Path(relative).is_absolute() and (run / relative).is_file()


@needs_libreoffice
def test_report_command_rewrites_the_page_and_refuses_a_folder_without_a_store(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (run / REPORT_NAME).unlink()
    assert cli(["report", str(run)]) == 0
    assert (run / REPORT_NAME).is_file()
    assert cli(["report", str(tmp_path)]) == 2
    assert "no run in" in capsys.readouterr().err


def test_json_island_cannot_close_its_script() -> None:
    text = json_island({"question": HOSTILE, "amp": "a & b"})
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == {"question": HOSTILE, "amp": "a & b"}


def test_new_checks_and_statuses_appear_without_code_changes(tmp_path: Path) -> None:
    store = synthetic_store(tmp_path / "run.sqlite", 40, per_file=20)
    try:
        write_report(store, tmp_path)
    finally:
        store.close()
    page = page_of(tmp_path / REPORT_NAME)
    assert len(page.xpath("//script")) == 2
    assert not page.xpath("//i") and "in/<i>odd</i>.docx" in page.xpath("//option/@value")
    assert "incomplete" in page.xpath('//select[@id="filter-status"]/option/@value')
    assert "guessability" in page.xpath('//select[@id="filter-check"]/option/@value')
    labels = page.xpath('//figure[@id="funnel-run"]//text[@class="bar-label"]/text()')
    assert "after guessability" in labels
    values = page.xpath('//figure[@id="funnel-run"]//text[@class="bar-value"]/text()')
    assert int(values[labels.index("after guessability")]) == 30
    data = island(tmp_path / REPORT_NAME)
    assert HOSTILE in [
        row[data["fields"]["question"].index("question")] for row in data["questions"]
    ]


@needs_chromium
@needs_libreoffice
def test_page_runs_in_chromium_with_charts_and_rows(run: Path, browser: Any) -> None:
    dom = dump_dom(browser, run / REPORT_NAME)
    assert len(dom.xpath('//div[@class="heatmap"]')) == 3
    assert dom.xpath('//svg[contains(@class, "funnel")]//g[contains(@class, "bar")]')
    rows = dom.xpath('//tr[@class="q-row"]')
    total = len(island(run / REPORT_NAME)["questions"])
    assert len(rows) == min(PAGE_SIZE, total)
    assert dom.xpath('string(//*[@id="question-count"])') == f"{total} of {total} candidates match"


@needs_chromium
@needs_libreoffice
def test_filtering_by_category_in_chromium_changes_the_rows(run: Path, browser: Any) -> None:
    everything = dump_dom(browser, run / REPORT_NAME)
    tables = dump_dom(browser, run / REPORT_NAME, "#category=Table")
    all_rows = everything.xpath('//tr[@class="q-row"]/@data-category')
    table_rows = tables.xpath('//tr[@class="q-row"]/@data-category')
    assert table_rows and set(table_rows) == {"Table"} and len(set(all_rows)) > 1
    shown = tables.xpath('string(//*[@id="question-count"])')
    assert (
        shown
        == f"{len(table_rows)} of {len(island(run / REPORT_NAME)['questions'])} candidates match"
    )


@needs_chromium
@needs_libreoffice
def test_opened_row_shows_evidence_and_every_check(run: Path, browser: Any) -> None:
    data = island(run / REPORT_NAME)
    fields = data["fields"]["question"]
    html_at = data["fields"]["artifact"].index("html")
    row = next(
        r for r in data["questions"] if data["artifacts"][r[fields.index("artifact")]][html_at]
    )
    ident = row[fields.index("id")]
    dom = dump_dom(browser, run / REPORT_NAME, f"#q={ident}&open={ident}")
    (detail,) = dom.xpath('//tr[@class="q-detail"]')
    checks = detail.xpath('.//table[contains(@class, "checks")]//tr[td]')
    assert len(checks) == len(row[fields.index("checks")])
    # The table once, rendered from its cells (no markup shown as text, no frame).
    (shown,) = detail.xpath('.//div[@class="evidence-table"]/table')
    assert not detail.xpath('.//iframe | .//pre[contains(., "<table")]')
    assert shown.xpath(".//td | .//th")
    statements = detail.xpath('.//ul[@class="answers"]/li/text()')
    assert statements == row[fields.index("answer")]


@needs_chromium
@needs_libreoffice
def test_screenshot_is_not_blank(run: Path, browser: Any, tmp_path: Path) -> None:
    shot = tmp_path / "shot.png"
    page, problems = open_page(browser, run / REPORT_NAME, viewport={"width": 1280, "height": 1600})
    try:
        page.screenshot(path=str(shot))
    finally:
        page.close()
    assert problems == []
    image = Image.open(shot).convert("RGB")
    colours = image.getcolors(maxcolors=1 << 20)
    assert colours is not None and len(colours) > 50
    background = max(colours)[0] / (image.width * image.height)
    assert background < 0.9


@needs_chromium
def test_hundred_thousand_questions_write_an_island_and_one_page(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    store = synthetic_store(tmp_path / "run.sqlite", 100_000)
    try:
        write_report(store, tmp_path)
    finally:
        store.close()
    page = page_of(tmp_path / REPORT_NAME)
    (script,) = page.xpath('//script[@id="report-data"]')
    assert len(json.loads(script.text)["questions"]) == 100_000
    assert page.xpath('//tbody[@id="question-rows"]/tr') == []
    # Asked in the page: its DOM holds the 29 MB data island, too big to copy out and parse.
    shown, problems = open_page(request.getfixturevalue("browser"), tmp_path / REPORT_NAME)
    try:
        rows = shown.locator('tr[class="q-row"]').count()
        info = shown.locator("#page-info").text_content()
        count = shown.locator("#question-count").text_content()
    finally:
        shown.close()
    assert problems == []
    assert rows == PAGE_SIZE
    assert info == f"page 1 of {100_000 // PAGE_SIZE}"
    assert count == "100000 of 100000 candidates match"


@needs_libreoffice
def test_regen_rewrites_the_report_with_the_new_target(run: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    shutil.copytree(run, out)
    (out / REPORT_NAME).unlink()
    assert cli(["regen", str(out), "--app", "word", "--category", "Text", "--target", "3"]) == 0
    page = page_of(out / REPORT_NAME)
    (text,) = page.xpath('//div[@id="heatmap-word"]/a[@data-category="Text"]')
    assert text.xpath('string(.//*[@class="tile-count"])').endswith(" kept of 3")


def test_model_run_shows_usage_and_the_calls_behind_each_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    with StubServer(generic_model) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-report-test-key")
        monkeypatch.chdir(tmp_path)
        settings = declared_pages_config(tmp_path)
        assert (
            cli([*settings, "build", str(WORD_FILE), "-o", str(out), "--model", "stub-model"]) == 0
        )
    store = RunStore(out / "run.sqlite")
    try:
        calls = Counter(f"{stage} / {model}" for stage, model, _ in store.model_call_usage())
    finally:
        store.close()
    page = page_of(out / REPORT_NAME)
    shown = {
        row.xpath("string(td[1])"): int(row.xpath("string(td[2])"))
        for row in page.xpath('//table[@id="usage-recorded"]/tbody/tr')
    }
    assert shown == dict(calls) and calls["generate / stub-model"] > 0
    assert any(" / stub-model (recorded)" in text for text in island(out / REPORT_NAME)["strings"])
    assert "sk-report-test-key" not in (out / REPORT_NAME).read_text()
    assert cli(["report", str(out)]) == 0
    last_run = page_of(out / REPORT_NAME).xpath('//table[@id="usage-last-run"]//td[1]/text()')
    assert "generate / stub-model" in last_run


@needs_chromium
@needs_libreoffice
def test_clicking_tiles_searching_paging_and_opening_rows(run: Path, browser: Any) -> None:
    from playwright.sync_api import expect

    store = RunStore(run / "run.sqlite")
    try:
        cells = funnel.compute(store).cells
        uranus = [  # the search below must narrow the tile's kept Word tables to these
            c.id
            for c, status, *_ in store.candidates()
            if (c.app, c.category) == ("word", "Table")
            and status in KEPT_STATUSES
            and "uranus" in " ".join([c.question, *c.answer]).lower()
        ]
    finally:
        store.close()
    page, problems = open_page(browser, run / REPORT_NAME)
    try:
        rows = page.locator("tr.q-row")
        assert rows.count() == PAGE_SIZE
        page.click("text=next ›")
        assert page.text_content("#page-info").startswith("page 2 of ")
        page.locator('#heatmap-word a[data-category="Table"]').click()
        assert "category=Table" in page.url
        expect(rows).to_have_count(cells[("word", "Table")].kept)
        assert set(rows.evaluate_all("rs => rs.map(r => r.dataset.category)")) == {"Table"}
        page.fill("#filter-q", "Uranus")
        # The search refilters 200 ms after typing and then writes the hash; the row count alone
        # may already match before it does (when every Table question names Uranus).
        expect(page).to_have_url(re.compile(r"[#&]q=Uranus"))
        expect(rows).to_have_count(len(uranus))
        assert uranus and rows.first.get_attribute("data-id") in uranus
        rows.first.click()
        detail = page.locator("tr.q-detail")
        expect(detail.locator("table.checks tr td").first).to_be_visible()  # drawn after the click
        expect(detail.locator("div.evidence-table table")).to_have_count(1)
        rows.first.click()
        expect(detail).to_have_count(0)  # closed: removed after the click
        page.click("#filter-reset")
        expect(rows).to_have_count(PAGE_SIZE)
        page.goto((run / REPORT_NAME).resolve().as_uri() + "#q=slide&open=")
        page.locator("tr.q-row").first.click()
        picture = page.locator("tr.q-detail figure.evidence-picture img").first
        picture.scroll_into_view_if_needed()
        expect(picture).to_have_js_property("complete", True)
        assert picture.evaluate("img => img.naturalWidth") > 0
    finally:
        page.close()
    assert problems == []


@needs_chromium
def test_an_empty_run_still_gets_a_page(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    store = RunStore(tmp_path / "run.sqlite")
    try:
        write_report(store, tmp_path)
    finally:
        store.close()
    assert island(tmp_path / REPORT_NAME)["questions"] == []
    dom = dump_dom(request.getfixturevalue("browser"), tmp_path / REPORT_NAME)
    assert dom.xpath('string(//*[@id="question-count"])') == "0 of 0 candidates match"
    assert dom.xpath('//tr[@class="q-empty"]')


@needs_libreoffice
def test_counts_agree_in_header_funnel_md_and_the_build_lines(run: Path) -> None:
    store = RunStore(run / "run.sqlite")
    try:
        counts = funnel.compute(store)
    finally:
        store.close()
    total = counts.total
    outcome = funnel.outcome(total)
    assert outcome.startswith(f"{total.candidates} candidates: {total.kept} kept (")
    page = page_of(run / REPORT_NAME)
    assert page.xpath('string(//*[@id="outcome"])') == outcome
    written = (run / "funnel.md").read_text()
    assert f"Outcome: {outcome}." in written
    assert f"Run: {funnel.headline(counts)}" in written
    printed = (run.parent / "build.log").read_text().splitlines()
    assert printed[0].startswith(
        f"{total.kept} questions kept ({total.unverified} of them unverified), "
        f"{total.rejected_total} rejected, {total.incomplete} incomplete"
    )
    assert f"funnel: {funnel.headline(counts)}" in printed
    # Each stage says what its number is: still in after it, and how many it rejected.
    left_after_guess = total.candidates - total.rejected["guessable"]
    assert (
        f"→ {left_after_guess} left after guessable ({total.rejected['guessable']} rejected) →"
        in printed[1]
    )
    assert not re.search(r"\d+ guessable\b", printed[1])
    assert total.kept == len((run / "questions.jsonl").read_text().splitlines())
    # The funnel's bar for that stage opens exactly the candidates it rejected.
    (link,) = page.xpath(
        '//figure[@id="funnel-run"]//g[.//text[@class="bar-label"]="after guessable"]//a/@href'
    )
    assert link == "#rejected_by=guessable"
    data = island(run / REPORT_NAME)
    fields, strings = data["fields"]["question"], data["strings"]
    stages = Counter(strings[row[fields.index("stage")]] for row in data["questions"])
    assert stages["guessable"] == total.rejected["guessable"] > 0


def test_sizes_and_conversions_are_said_in_words() -> None:
    assert size_words({"count": 1, "unit": "slides"}) == "1 slide"
    assert size_words({"count": 3, "unit": "pages"}) == "3 pages"
    assert size_words({"count": None, "unit": "pages"}) == ""
    record = {"app": "excel", "format": "xls", "converted_from": "xls", "ooxml": "c/a.xlsx"}
    assert converted_to(record) == "xlsx"
    assert converted_to({**record, "ooxml": None}) == "xlsx"  # the application's own format
    assert converted_to({**record, "converted_from": None}) == ""


@needs_libreoffice
def test_files_table_explains_und_and_counts_slides_in_words(run: Path) -> None:
    page = page_of(run / REPORT_NAME)
    rows = {
        Path(row.xpath("string(td[1])").split()[0]).name: [
            td.text_content().strip() for td in row.xpath("td")
        ]
        for row in page.xpath('//table[@id="files"]/tbody/tr')
    }
    deck = rows["SmartArt_OrgChart1.pptx"]
    assert deck[6] == "1 slide"
    assert deck[7] == "und (too little text)"
    assert "und</code> (undetermined)" in (run / REPORT_NAME).read_text()


@needs_libreoffice
def test_coverage_tiles_say_what_a_cell_needs(run: Path, tmp_path: Path) -> None:
    targets = CoverageConfig.from_toml({"default": 2})
    store = RunStore(run / "run.sqlite")
    try:
        cells = coverage.compute(store, targets)
        write_report(store, tmp_path, targets)
    finally:
        store.close()
    page = page_of(tmp_path / REPORT_NAME)
    seen = set()
    for (app, category), cell in cells.items():
        (tile,) = page.xpath(f'//div[@id="heatmap-{app}"]/a[@data-category="{category}"]')
        state = tile.get("data-state")
        if cell.kept >= cell.target:
            expected = "target met"
        elif cell.unused:
            expected = "needs generation"
        else:
            expected = "needs documents"
        assert state == expected, (app, category)
        assert tile.xpath('string(.//*[@class="tile-state"])') == expected
        seen.add((expected, bool(cell.artifacts)))
    assert {("needs documents", False), ("needs generation", True), ("target met", True)} <= seen
    legend = page.xpath('string(//section[@id="coverage-section"]//div[@class="legend"])')
    assert "needs documents" in legend and "needs generation" in legend


OVERFLOW = """() => {
  // Every element of every card ends inside its card; what may be wider (the question table,
  // an evidence table) sits in a scroller that itself fits. The page never scrolls sideways.
  const scrollers = ".table-scroll, .chart-scroll, .evidence-table";
  const found = [];
  for (const section of document.querySelectorAll("main > section")) {
    const card = section.getBoundingClientRect();
    for (const el of section.querySelectorAll("*")) {
      const holder = el.parentElement && el.parentElement.closest(scrollers);
      if (holder && section.contains(holder)) continue;
      const box = el.getBoundingClientRect();
      if (!box.width || !box.height) continue;
      if (box.right > card.right + 0.5 || box.left < card.left - 0.5) {
        found.push(section.id + " " + el.tagName + "." + el.className + " " +
          Math.round(box.left) + "-" + Math.round(box.right) + " of " +
          Math.round(card.left) + "-" + Math.round(card.right));
      }
    }
  }
  const page = document.documentElement;
  if (page.scrollWidth > page.clientWidth) found.push("page " + page.scrollWidth + " wide");
  return found;
}"""


def evidence_rows(run: Path) -> tuple[str, str]:
    """A candidate with table evidence and one with the picture of an Excel chart."""
    data = island(run / REPORT_NAME)
    q, a = data["fields"]["question"], data["fields"]["artifact"]
    artifact = [data["artifacts"][row[q.index("artifact")]] for row in data["questions"]]
    ids = [row[q.index("id")] for row in data["questions"]]
    table = next(i for i, art in zip(ids, artifact, strict=True) if art[a.index("html")])
    chart = next(
        i
        for i, art in zip(ids, artifact, strict=True)
        if art[a.index("kind")] == "chart" and art[a.index("media")]
    )
    return table, chart


@needs_chromium
@needs_libreoffice
@pytest.mark.parametrize("width", [1000, 1600])
def test_report_fits_its_cards_with_evidence_open(
    run: Path, browser: Any, tmp_path: Path, width: int
) -> None:
    from playwright.sync_api import expect

    table, chart = evidence_rows(run)
    for name, ident in (("table", table), ("chart", chart)):
        page, problems = open_page(
            browser,
            run / REPORT_NAME,
            f"#q={ident}&open={ident}",
            viewport={"width": width, "height": 1000},
        )
        try:
            detail = page.locator("tr.q-detail")
            expect(detail).to_have_count(1)
            if name == "table":
                assert detail.locator("div.evidence-table table td").count() > 0
                assert detail.locator("pre.evidence-text").count() == 0  # shown once
            else:
                img = detail.locator("figure.evidence-picture a.enlarge img")
                img.scroll_into_view_if_needed()
                expect(img).to_have_js_property("complete", True)
                natural = img.evaluate("i => i.naturalWidth")
                shown = img.evaluate("i => i.getBoundingClientRect().width")
                assert natural > 0 and shown >= 480  # readable, not a thumbnail
                caption = detail.locator("figcaption").first.inner_text()
                assert caption.startswith("the chart's area in the render of sheet Sales")
                href = detail.locator("figure.evidence-picture a.enlarge").get_attribute("href")
                assert (run / href).is_file()  # a click opens the picture itself
            shot = tmp_path / f"report-{width}-{name}.png"
            page.screenshot(path=str(shot), full_page=True)
            assert page.evaluate(OVERFLOW) == []
        finally:
            page.close()
        assert problems == []
        assert Image.open(shot).width == width


@needs_chromium
@needs_libreoffice
def test_funnel_bar_opens_exactly_the_rejected_candidates(run: Path, browser: Any) -> None:
    store = RunStore(run / "run.sqlite")
    try:
        total = funnel.compute(store).total
    finally:
        store.close()
    page, problems = open_page(browser, run / REPORT_NAME)
    try:
        page.locator('#funnel-run a[href="#rejected_by=guessable"]').click()
        count = page.text_content("#question-count")
        statuses = page.locator("tr.q-row").evaluate_all("rs => rs.map(r => r.dataset.status)")
    finally:
        page.close()
    assert problems == []
    rejected = total.rejected["guessable"]
    assert count == f"{rejected} of {total.candidates} candidates match"
    assert set(statuses) == {"rejected"} and len(statuses) == min(rejected, PAGE_SIZE)


@needs_libreoffice
def test_excel_chart_evidence_is_the_charts_area_not_the_sheet(run: Path) -> None:
    data = island(run / REPORT_NAME)
    fields = data["fields"]["artifact"]
    (chart,) = [
        a
        for a in data["artifacts"]
        if a[fields.index("kind")] == "chart" and a[fields.index("media")]
    ]
    media = run / chart[fields.index("media")]
    assert media.name.startswith("chart-")
    sheet = media.with_name("sheet-001.png")  # the sheet the fixture's chart sits on
    (frame,) = frames(sheet)
    with Image.open(media) as cut, Image.open(sheet) as whole:
        assert cut.width < whole.width and cut.size == (
            frame[2] - frame[0] + 2 * MARGIN,
            frame[3] - frame[1] + 2 * MARGIN,
        )
    assert chart[fields.index("caption")].startswith("the chart's area in the render of sheet")


@needs_libreoffice
def test_explain_on_a_dropped_file_says_why_as_the_files_table_does(
    run: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dropped = ROOT / "fixtures" / "bad" / "protected_agile.docx"
    page = page_of(run / REPORT_NAME)
    (row,) = [
        tr
        for tr in page.xpath('//table[@id="files"]/tbody/tr')
        if tr.xpath("string(td[1])").split()[0].endswith("protected_agile.docx")
    ]
    outcome, reason = row.xpath("string(td[4])").strip(), row.xpath("string(td[5])").strip()
    assert outcome == "dropped" and reason.startswith("encrypted ")
    assert cli(["explain", "-o", str(run), str(dropped)]) == 1
    said = capsys.readouterr().err
    assert f"no candidates stored for {dropped} in {run}: it was skipped (encrypted): " in said
    assert reason.split(" ", 1)[1] in said
