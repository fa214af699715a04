"""pandoc under the Word extractor: its failure or timeout is the file's reason, and no
pandoc outlives the extraction or the process that started it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from extractors import ExtractionError, extract_file
from extractors.word.pandoc_run import PandocRun, read_docx
from fidelity.core.document import Document

ROOT = Path(__file__).resolve().parents[2]
SLOW = "word/bug65649.docx"  # pandoc takes seconds on it
STARTER = """
import sys, time
from pathlib import Path
from extractors.word.pandoc_run import read_docx
run = read_docx(Path(sys.argv[1]), None)
print(run.process.pid, flush=True)
time.sleep(600)
"""


def without(source: Path, target: Path, part: str) -> Path:
    """A copy of the package at `source` without the part named `part`."""
    with zipfile.ZipFile(source) as original, zipfile.ZipFile(target, "w") as copy:
        for info in original.infolist():
            if info.filename != part:
                copy.writestr(info, original.read(info))
    return target


def word_document(path: Path) -> Document:
    return Document(sha256="7" * 64, app="word", format="docx", source=str(path))


def pandoc_children() -> list[int]:
    """This process's unreaped child processes that run pandoc (or setpriv about to become it).

    Other tests in the same worker may leave their own children (servers they share), so
    only pandoc's are counted."""
    found = []
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        for pid in (task / "children").read_text().split():
            try:
                name = Path(f"/proc/{pid}/comm").read_text().strip()
            except FileNotFoundError:
                continue
            if name in ("pandoc", "setpriv"):
                found.append(int(pid))
    return found


def running(pid: int) -> bool:
    """Whether process `pid` exists and has not ended (a zombie has ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def test_a_file_pandoc_cannot_read_fails_with_pandocs_reason(corpus: Path, tmp_path: Path) -> None:
    """Without _rels/.rels the package XML still reads, but pandoc finds no document."""
    broken = without(corpus / "word" / "notes.docx", tmp_path / "norels.docx", "_rels/.rels")
    with pytest.raises(ExtractionError, match=r"pandoc failed \(exit code \d+\): .*docx"):
        extract_file(broken, word_document(broken))
    assert pandoc_children() == []


def test_a_failure_on_the_python_side_stops_pandoc(corpus: Path, tmp_path: Path) -> None:
    broken = without(corpus / SLOW, tmp_path / "nobody.docx", "word/document.xml")
    with pytest.raises(ExtractionError, match="no word/document.xml"):
        extract_file(broken, word_document(broken))
    assert pandoc_children() == []


def test_pandoc_past_its_timeout_is_stopped_with_a_reason(corpus: Path) -> None:
    with PandocRun(["--from=docx", "--to=json", str(corpus / SLOW)], timeout=0.01) as run:
        with pytest.raises(ExtractionError, match="pandoc did not finish within 0.01 s"):
            run.text()
        assert run.process.returncode is not None
    assert pandoc_children() == []


def test_pandoc_output_and_media(corpus: Path, tmp_path: Path) -> None:
    with read_docx(corpus / "word" / "drawingml.docx", tmp_path / "media") as run:
        ast = run.ast()
    assert ast["blocks"] and ast["pandoc-api-version"][0] == 1
    assert any((tmp_path / "media").rglob("*.*"))


def test_pandoc_dies_with_the_process_that_started_it(corpus: Path) -> None:
    """A worker killed with SIGKILL (per-file timeout, memory cap) leaves no pandoc behind.

    pandoc is stopped (SIGSTOP) before its starter is killed, so it cannot end on its own.
    """
    starter = subprocess.Popen(
        [sys.executable, "-c", STARTER, str(corpus / SLOW)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        pandoc = int(starter.stdout.readline())
        while Path(f"/proc/{pandoc}/comm").read_text().strip() != "pandoc":
            time.sleep(0.01)  # setpriv sets the parent-death signal, then becomes pandoc
        os.kill(pandoc, signal.SIGSTOP)
        assert running(pandoc)
    finally:
        starter.send_signal(signal.SIGKILL)
        starter.wait()
    deadline = time.monotonic() + 30  # the kernel's signal is immediate; this bounds the wait
    while running(pandoc) and time.monotonic() < deadline:
        time.sleep(0.05)
    left_behind = running(pandoc)
    if left_behind:
        os.kill(pandoc, signal.SIGKILL)
    assert not left_behind
