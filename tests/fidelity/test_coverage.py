"""Coverage targets: configuration, kept / target / gap / unused artifacts, coverage.md and CLI."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from fidelity.cli import main as cli
from fidelity.core.config import Config, CoverageConfig
from fidelity.core.store import open_store
from fidelity.coverage import below_target, compute, markdown, record_override
from fidelity.pipeline import build
from tests.support.page_counts import DECLARED_PAGES

pytestmark = pytest.mark.slow  # whole builds: not in make test-quick


@pytest.fixture(scope="module")
def run(corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("coverage")
    inputs = base / "in"
    inputs.mkdir()
    for name in ("Comment015.docx", "notes.docx"):  # comments asked by their text
        shutil.copy(corpus / "word" / name, inputs / name)
    out = base / "out"
    build([inputs], out, Config(extra=DECLARED_PAGES))
    return out


def test_targets_parse_cells_app_wide_default_and_buckets(tmp_path: Path) -> None:
    path = tmp_path / "fidelity.toml"
    path.write_text(
        "[coverage]\ndefault = 2\n"
        '[coverage.targets.word]\nComment = 10\n"*" = 4\n'
        "Table = { total = 9, Small = 3, Long = 2 }\n"
        "[coverage.targets.powerpoint]\nSection = 15\n"
    )
    targets = Config.load(path).coverage
    assert targets.target("word", "Comment") == 10
    assert targets.target("word", "Footnote") == 4
    assert targets.target("powerpoint", "Section") == 15
    assert targets.target("excel", "Formula") == 2
    assert targets.target("word", "Table") == 9
    assert targets.buckets("word", "Table") == {"Small": 3, "Long": 2}


@pytest.mark.parametrize(
    "section",
    [
        "[coverage.targets.word]\nComments = 3\n",
        "[coverage.targets.keynote]\nSlide = 3\n",
        "[coverage.targets.word]\nTable = { total = 3, Huge = 1 }\n",
        "[coverage]\ntarget = 3\n",
    ],
)
def test_bad_targets_are_clear_errors(tmp_path: Path, section: str) -> None:
    path = tmp_path / "fidelity.toml"
    path.write_text(section)
    with pytest.raises(ValueError):
        Config.load(path)


def test_cells_count_kept_target_gap_and_unused_artifacts(run: Path) -> None:
    store = open_store(run)
    try:
        targets = CoverageConfig(targets={"word": {"Comment": 50, "Metadata": 1}})
        cells = compute(store, targets)
        documents = list(store.documents())
        rows = store.candidates()
    finally:
        store.close()
    comment = cells[("word", "Comment")]
    kept = sum(1 for c, status, _, _ in rows if c.category == "Comment" and status != "rejected")
    assert comment.kept == kept > 0
    assert (comment.target, comment.gap) == (50, 50 - kept)
    asked = {(c.file_sha, c.artifact_id) for c, _, _, _ in rows}
    metadata = [
        (d.sha256, a.id) for d in documents for a in d.artifacts if a.category == "Metadata"
    ]
    assert cells[("word", "Metadata")].artifacts == len(metadata)
    assert cells[("word", "Metadata")].unused == sum(1 for key in metadata if key not in asked)
    assert cells[("word", "Metadata")].unused > 0
    assert cells[("word", "Metadata")].gap == 0
    short = {(c.app, c.category) for c in below_target(cells)}
    assert ("word", "Comment") in short and ("word", "Metadata") not in short


def test_coverage_markdown_keeps_old_columns_and_adds_targets(run: Path) -> None:
    store = open_store(run)
    try:
        text = markdown(store, CoverageConfig(targets={"word": {"Comment": 50}}))
        short = markdown(store, CoverageConfig(targets={"word": {"Comment": 50}}), only_short=True)
    finally:
        store.close()
    assert "| app | category | artifacts | candidates | kept | unverified | target | gap" in text
    row = next(line for line in text.splitlines() if line.startswith("| word | Comment |"))
    cells = [part.strip() for part in row.strip("|").split("|")]
    assert cells[6] == "50" and int(cells[7]) == 50 - int(cells[4])
    table_rows = [line for line in short.splitlines() if line.startswith("| word ")]
    assert [line.split("|")[2].strip() for line in table_rows] == ["Comment"]


def test_regen_override_is_remembered_and_cli_prints_it(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "copy"
    shutil.copytree(run, out)
    store = open_store(out)
    try:
        record_override(store, [("word", "Footnote")], 99)
    finally:
        store.close()
    assert cli(["coverage", str(out), "--below"]) == 0
    printed = capsys.readouterr().out
    row = next(line for line in printed.splitlines() if line.startswith("| word | Footnote |"))
    assert "| 99 |" in row
    assert cli(["coverage", str(tmp_path / "nothing")]) == 2


def _table(text: str, heading: str) -> dict[tuple[str, str], list[str]]:
    """The rows of the Markdown table under `heading`, keyed by (app, category)."""
    section = text.split(heading, 1)[1]
    rows = {}
    for line in section.splitlines():
        cells = [part.strip() for part in line.strip().strip("|").split("|")]
        if line.startswith("| ") and len(cells) > 2 and cells[0] not in {"app", "---"}:
            rows[(cells[0], cells[1])] = cells[2:]
        elif rows and not line.startswith("|"):
            break
    return rows


def test_corpus_md_counts_the_artifacts_coverage_md_counts(run: Path) -> None:
    corpus_rows = _table((run / "corpus.md").read_text(), "## Coverage")
    coverage_rows = _table((run / "coverage.md").read_text(), "# Coverage")
    store = open_store(run)
    try:
        documents = store.snapshot().documents
    finally:
        store.close()
    assert "Counted from the extracted documents" in (run / "corpus.md").read_text()
    assert corpus_rows and set(corpus_rows) <= set(coverage_rows)
    for (app, category), (files, elements, _status) in corpus_rows.items():
        holders = [
            d
            for d in documents
            if d.app == app and any(a.category == category for a in d.artifacts)
        ]
        assert int(elements) == int(coverage_rows[(app, category)][0]), (app, category)
        assert int(files) == len(holders), (app, category)
    assert any(int(row[1]) for row in corpus_rows.values())
