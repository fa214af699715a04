"""Discovery: stable order, lock files and text files beside documents left out."""

from __future__ import annotations

from pathlib import Path

from ingest.discover import discover


def test_discovery_skips_notes_and_lock_files(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    for name in ("a.docx", "b/c.xlsx", "README.md", "make.py", "~$a.docx", ".hidden.pptx", "odd"):
        (tmp_path / name).write_bytes(b"x")
    assert discover([tmp_path]) == [
        tmp_path / "a.docx",
        tmp_path / "b" / "c.xlsx",
        tmp_path / "odd",
    ]


def test_a_file_named_directly_is_always_taken(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_bytes(b"x")
    assert discover([notes]) == [notes]
