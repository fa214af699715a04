"""One offline build over good files, 100+ mutants of them and hostile packages: it completes.

Deterministic (a fixed seed); run in child processes without LibreOffice, so the
build's exit code and peak memory are its own. Good files must get exactly the
questions they get without the bad ones, every other file a reason (or be read
like a good one), and nothing may be written outside OUT.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.hostile_packages import dtd_in_unread_part, hostile, long_report, mutants

# builds over unreadable files; whole builds in child processes: not in make test-quick
pytestmark = [pytest.mark.skips_unreadable_files, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
SEED = 20261130
GOOD = [
    "word/notes.docx",
    "word/2010-sample1.docx",
    "word/docx-tables.docx",
    "word/Comment015.docx",
    "excel/sheet_visibility.xlsx",
    "excel/QuarterlySales.xlsx",
    "powerpoint/bug60993.pptx",
]
MUTANTS_PER_FILE = 15
MAX_RSS_MB = 1024  # the lying header alone would take 2 GB if it were inflated in one go
BUILD = "import sys; from fidelity.cli import main; sys.exit(main(sys.argv[1:]))"
# Curation lets every mutant through to extraction: none is dropped as a near-duplicate of
# its source (which could also drop the good file), as near-empty or for its language.
SETTINGS = """
[ingest]
near_duplicate_threshold = 1.01
min_text_chars = 0
min_artifacts = 0
languages = []
"""


def rows(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def snapshot(root: Path, leave_out: set[Path]) -> dict[str, tuple[int, int]]:
    """Every file under `root` (outside `leave_out`) with its size and modification time."""
    found = {}
    for path in root.rglob("*"):
        if any(path == skip or skip in path.parents for skip in leave_out):
            continue
        info = path.lstat()
        found[str(path.relative_to(root))] = (info.st_size, info.st_mtime_ns)
    return found


def start_build(inputs: Path, out: Path, home: Path, config: Path) -> subprocess.Popen:
    """`fidelity build` in its own process, its output in `home`/stderr.txt."""
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "PYTHONPATH": str(ROOT),
        "FIDELITY_CACHE_DIR": str(home / "cache"),
        "FIDELITY_UNO_PYTHON": str(home / "no-libreoffice"),  # offline, no LibreOffice
        "TQDM_DISABLE": "1",
    }
    command = [sys.executable, "-c", BUILD, "--config", str(config), "build", str(inputs)]
    command += ["-o", str(out)]
    with (home / "stderr.txt").open("w") as errors:
        return subprocess.Popen(command, cwd=home, env=env, stdout=errors, stderr=errors)


def finish_build(child: subprocess.Popen, home: Path) -> tuple[int, float, str]:
    """(exit code, peak RSS in MB, stderr) of a build `start_build` started."""
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    return child.returncode, usage.ru_maxrss / 1024, (home / "stderr.txt").read_text()


def questions_by_file(out: Path) -> dict[str, set[tuple]]:
    found: dict[str, set[tuple]] = {}
    for row in rows(out / "questions.jsonl"):
        key = (row["artifact_id"], row["question"], tuple(row["answer"]), row["status"])
        found.setdefault(Path(row["file"]).name, set()).add(key)
    return found


@pytest.fixture(scope="module")
def runs(corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    base = tmp_path_factory.mktemp("hostile")
    rng = random.Random(SEED)
    good_dir, mixed = base / "good", base / "mixed"
    good_dir.mkdir()
    mixed.mkdir()
    for name in GOOD:
        shutil.copy(corpus / name, good_dir / Path(name).name)
        shutil.copy(corpus / name, mixed / Path(name).name)
    made = [item for name in GOOD for item in mutants(corpus / name, rng, MUTANTS_PER_FILE)]
    for name, data in made:
        (mixed / name).write_bytes(data)
    expected = hostile(mixed, rng, corpus / "variants" / "parentinvguid.doc")
    deck = corpus / "powerpoint" / "bug60993.pptx"  # no slide uses layout 11
    layout = dtd_in_unread_part(deck, "ppt/slideLayouts/slideLayout11.xml")
    (mixed / "layout-dtd.pptx").write_bytes(layout)
    expected["layout-dtd.pptx"] = "DTD"
    outside = base / "outside"
    outside.mkdir()
    shutil.copy(corpus / "word" / "memo.docx", outside / "secret.docx")
    (mixed / "link-out.docx").symlink_to(outside / "secret.docx")
    expected["link-out.docx"] = "outside the input folder"
    (mixed / "link-loop.docx").symlink_to(mixed / "link-loop.docx")
    expected["link-loop.docx"] = "loops"
    (mixed / "link-dangling.docx").symlink_to(mixed / "gone.docx")
    expected["link-dangling.docx"] = "to nothing"
    (mixed / "link-folder.docx").symlink_to(outside)
    expected["link-folder.docx"] = "to a folder, not followed"

    config = base / "fidelity.toml"
    config.write_text(SETTINGS)
    homes = {name: base / f"home-{name}" for name in ("good", "mixed")}
    for home in homes.values():
        home.mkdir()
    before = snapshot(base, {base / "out-good", base / "out-mixed", *homes.values()})
    # Both builds at once: each one's own process, so its peak memory is still its own.
    good = start_build(good_dir, base / "out-good", homes["good"], config)
    both = start_build(mixed, base / "out-mixed", homes["mixed"], config)
    alone, together = finish_build(good, homes["good"]), finish_build(both, homes["mixed"])
    after = snapshot(base, {base / "out-good", base / "out-mixed", *homes.values()})
    home_files = {
        name: sorted(p.name for p in home.rglob("*") if p.name != "stderr.txt")
        for name, home in homes.items()
    }
    return {
        "alone": alone,
        "together": together,
        "out": base / "out-mixed",
        "good_out": base / "out-good",
        "mutants": [name for name, _ in made],
        "hostile": expected,
        "unchanged": before == after,
        "home_files": home_files,
    }


def test_the_build_completes_with_bounded_memory(runs: dict) -> None:
    for name in ("alone", "together"):
        code, peak, errors = runs[name]
        assert code == 0, errors[-3000:]
        print(f"{name}: peak RSS {peak:.0f} MB")
        assert peak < MAX_RSS_MB, f"{name}: peak RSS {peak:.0f} MB"
    assert len(runs["mutants"]) >= 100


def test_good_files_get_the_questions_they_get_alone(runs: dict) -> None:
    alone, together = questions_by_file(runs["good_out"]), questions_by_file(runs["out"])
    assert set(alone) == {Path(name).name for name in GOOD}
    for name, questions in alone.items():
        assert together.get(name) == questions, name


def test_every_bad_file_is_read_or_has_a_reason(runs: dict) -> None:
    out = runs["out"]
    reasons = {Path(row["file"]).name: row["reason"] for row in rows(out / "skipped.jsonl")}
    for row in rows(out / "corpus.jsonl"):
        if row["decision"] == "drop":
            reasons.setdefault(Path(row["path"]).name, row["reason"])
    read = questions_by_file(out)
    for name in runs["mutants"]:
        assert reasons.get(name) or name in read or name in _done(out), name
    for name, fragment in runs["hostile"].items():
        assert fragment.lower() in (reasons.get(name) or "").lower(), (name, reasons.get(name))
    assert all(reason.strip() for reason in reasons.values())


def _done(out: Path) -> set[str]:
    """Files the build read to the end (some damaged files simply yield no question)."""
    with sqlite3.connect(out / "run.sqlite") as db:
        paths = db.execute("SELECT path FROM files WHERE status='done'").fetchall()
    return {Path(path).name for (path,) in paths}


def test_nothing_is_written_outside_out(runs: dict) -> None:
    assert runs["unchanged"], "files outside OUT changed"
    assert runs["home_files"] == {"good": [], "mixed": []}


def test_the_same_input_built_into_differently_named_folders_decides_the_same(
    corpus: Path, tmp_path: Path
) -> None:
    """OUT given by a relative path, under two names: every decision (context hashes over
    the pictures a view places included) and every corpus row is the same byte for byte."""
    inputs = tmp_path / "in"
    inputs.mkdir()
    for name in ("word/complex0.docx", "word/memo.docx", "powerpoint/bug60993.pptx"):
        shutil.copy(corpus / name, inputs / Path(name).name)
    config = tmp_path / "fidelity.toml"
    config.write_text("")
    home = tmp_path / "home"
    home.mkdir()
    first, second = home / "out", home / "another-output-folder"
    for out in (first, second):  # given relative to the build's working folder
        code, _, errors = finish_build(start_build(inputs, Path(out.name), home, config), home)
        assert code == 0, errors[-3000:]
    assert rows(first / "questions.jsonl")
    assert any(str(image).startswith("media/") for image in _images(first))
    for name in ("questions.jsonl", "rejected.jsonl", "skipped.jsonl", "corpus.jsonl"):
        assert (first / name).read_bytes() == (second / name).read_bytes(), name


def _images(out: Path) -> list[str]:
    """The media paths stored on the run's documents."""
    with sqlite3.connect(out / "run.sqlite") as db:
        documents = [text for (text,) in db.execute("SELECT document FROM files") if text]
    found = []
    for text in documents:
        data = json.loads(text)
        found += [a["media"] for a in data.get("artifacts", []) if a.get("media")]
    return found


def test_a_file_over_the_memory_limit_is_memory_not_cached_and_retried(tmp_path: Path) -> None:
    """A valid 1.5 MB document under a 3 MB limit (counted from the worker's baseline) is
    dropped as `memory`, with no verdict cached under OUT/ingest; the next build, with the
    default limit, reads it."""
    inputs, home, out = tmp_path / "in", tmp_path / "home", tmp_path / "out"
    inputs.mkdir()
    home.mkdir()
    (inputs / "long.docx").write_bytes(long_report(15_000))
    tight, default = tmp_path / "tight.toml", tmp_path / "default.toml"
    tight.write_text('[run]\nworker_memory = "3MB"\n')
    default.write_text("")

    code, _, errors = finish_build(start_build(inputs, out, home, tight), home)
    assert code == 0, errors[-3000:]
    (skipped,) = rows(out / "skipped.jsonl")
    assert skipped["reason_code"] == "memory" and skipped["error_type"] == "MemoryError"
    (row,) = rows(out / "corpus.jsonl")
    assert row["decision"] == "drop" and row["reason_code"] == "memory"
    assert not list((out / "ingest").glob(f"{row['sha256']}.json"))

    code, _, errors = finish_build(start_build(inputs, out, home, default), home)
    assert code == 0, errors[-3000:]
    assert rows(out / "skipped.jsonl") == []
    assert _done(out) == {"long.docx"}  # read and extracted (its repeated text asks nothing)
    (row,) = rows(out / "corpus.jsonl")
    assert row["decision"] == "keep" and row["reason_code"] == ""
