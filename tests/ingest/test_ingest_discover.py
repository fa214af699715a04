"""Discovery: stable order, lock files and text files left out, links out of the input,
looping, dangling or to a folder refused with a reason code."""

from __future__ import annotations

import os
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
    ((code, reason),) = refused([inputs]).values()
    assert list(refused([inputs])) == [inputs / "out.docx"] and "outside the input" in reason
    assert code == "outside_input"


def test_every_link_the_walk_meets_is_read_or_refused_with_a_reason(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "real.docx").write_bytes(b"x")
    (tmp_path / "loop.docx").symlink_to(tmp_path / "loop.docx")
    (tmp_path / "ping.docx").symlink_to(tmp_path / "pong.docx")
    (tmp_path / "pong.docx").symlink_to(tmp_path / "ping.docx")
    (tmp_path / "dangling.docx").symlink_to(tmp_path / "gone.docx")
    (tmp_path / "folder.docx").symlink_to(tmp_path / "sub")
    os.mkfifo(tmp_path / "pipe.docx")
    assert discover([tmp_path]) == [tmp_path / "sub" / "real.docx"]
    codes = {path.name: code for path, (code, _) in refused([tmp_path]).items()}
    assert codes == {
        "dangling.docx": "link_dangling",
        "folder.docx": "link_directory",
        "loop.docx": "link_loop",
        "ping.docx": "link_loop",
        "pong.docx": "link_loop",
        "pipe.docx": "not_regular",
    }
