"""Discovery: stable order, lock files and text files left out, links out of the input refused."""

from __future__ import annotations

from pathlib import Path

from ingest.discover import discover, refused


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


def test_a_link_leading_out_of_the_input_folder_is_refused_not_read(tmp_path: Path) -> None:
    inputs, outside = tmp_path / "in", tmp_path / "outside"
    (inputs / "sub").mkdir(parents=True)
    outside.mkdir()
    (outside / "secret.docx").write_bytes(b"x")
    (inputs / "sub" / "real.docx").write_bytes(b"x")
    (inputs / "out.docx").symlink_to(outside / "secret.docx")
    (inputs / "in.docx").symlink_to(inputs / "sub" / "real.docx")
    assert discover([inputs]) == [inputs / "in.docx", inputs / "sub" / "real.docx"]
    (reason,) = refused([inputs]).values()
    assert list(refused([inputs])) == [inputs / "out.docx"] and "outside the input" in reason
