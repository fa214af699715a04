"""Context texts are stored once by hash as compressed line chunks: each reads back exactly,
the near-duplicate views of one document share their chunks, and a store written with whole
texts (before chunking) is converted when opened, explain and replay printing the same."""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from fidelity.cli import main as cli
from fidelity.core.config import Config
from fidelity.core.document import Decision, Document
from fidelity.core.store import RunStore
from fidelity.core.views import View, view_context, without
from fidelity.pipeline import build
from tests.support.page_counts import DECLARED_PAGES

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def shown(text: str, candidate_id: str = "q1") -> Decision:
    return Decision(
        candidate_id=candidate_id,
        check="ablation:without",
        view="without:x",
        context_hash=hashlib.sha256(text.encode()).hexdigest(),
        answered="",
        match="none",
        verdict="pass",
        reason="",
    )


def context_bytes(path: Path) -> int:
    with sqlite3.connect(path) as db:
        (size,) = db.execute(
            "SELECT (SELECT SUM(LENGTH(hash) + LENGTH(chunks)) FROM context_texts) + "
            "(SELECT SUM(LENGTH(digest) + LENGTH(data)) FROM context_chunks)"
        ).fetchone()
    return int(size)


def test_every_text_reads_back_exactly(tmp_path):
    texts = [
        "",
        "one line, no newline",
        "windows\r\nold mac\runix\n\n\nblank lines above\n",
        "accents é, symbols ✓, astral 𝔘\n" * 300 + "tail without newline",
        "\n".join(f"row {n}" for n in range(5000)),
    ]
    store = RunStore(tmp_path / "run.sqlite")
    for number, text in enumerate(texts):
        store.add_decision(shown(text, f"q{number}"), text)
        store.add_decision(shown(text, f"r{number}"), text)  # a second candidate, same view
    store.close()
    store = RunStore(tmp_path / "run.sqlite")
    assert [store.context(shown(text).context_hash) for text in texts] == texts
    assert store.context("0" * 64) is None
    with sqlite3.connect(tmp_path / "run.sqlite") as db:
        assert db.execute("SELECT COUNT(*) FROM context_texts").fetchone() == (len(texts),)


def test_a_documents_views_share_their_chunks(
    corpus: Path, extracted: Callable[[Path], Document], tmp_path
):
    """A deck's full view and its views without one artifact each: stored in less than a
    tenth of their bytes (before, each was stored whole)."""
    deck = extracted(corpus / "powerpoint" / "typical.pptx")
    views = [View("full")] + [without(f"without:{a.id}", [a.id]) for a in deck.artifacts]
    texts = {context.text for context in (view_context(deck, view) for view in views)}
    assert len(texts) > 20
    store = RunStore(tmp_path / "run.sqlite")
    for text in texts:
        store.add_decision(shown(text), text)
    assert all(store.context(shown(text).context_hash) == text for text in texts)
    store.close()
    assert context_bytes(tmp_path / "run.sqlite") < sum(len(t.encode()) for t in texts) / 10


def whole_texts(path: Path) -> None:
    """Rewrite a store's contexts the way stores written before chunking held them."""
    store = RunStore(path)
    hashes = [h for (h,) in store.db.execute("SELECT hash FROM context_texts")]
    texts = [(h, store.context(h)) for h in hashes]
    store.close()
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE contexts (hash TEXT PRIMARY KEY, text TEXT NOT NULL)")
        db.executemany("INSERT INTO contexts VALUES (?,?)", texts)
        db.execute("DROP TABLE context_texts")
        db.execute("DROP TABLE context_chunks")


def explained(out: Path, files: list[str], capsys: pytest.CaptureFixture[str]) -> list[str]:
    printed = []
    for path in files:
        assert cli(["explain", path, "-o", str(out), "--diff", "--replay"]) == 0
        printed.append(capsys.readouterr().out)
    return printed


@pytest.mark.slow
def test_a_store_of_whole_texts_is_converted_and_explains_the_same(tmp_path, capsys):
    out = tmp_path / "out"
    build([FIXTURES], out, Config(extra=DECLARED_PAGES))
    capsys.readouterr()
    with sqlite3.connect(out / "run.sqlite") as db:
        files = [p for (p, _) in db.execute("SELECT path, 1 FROM files WHERE status='done'")]
        (stored,) = db.execute("SELECT COUNT(*) FROM context_texts").fetchone()
    assert len(files) >= 5 and stored > 50
    now = explained(out, files, capsys)
    old = tmp_path / "old"
    shutil.copytree(out, old)
    whole_texts(old / "run.sqlite")
    assert explained(old, files, capsys) == now
    with sqlite3.connect(old / "run.sqlite") as db:
        tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master")}
        assert "contexts" not in tables
        assert db.execute("SELECT COUNT(*) FROM context_texts").fetchone() == (stored,)
