"""LibreOffice servers: a stalled start is replaced; none outlives a build killed by SIGKILL."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ingest.uno_env import server_python
from ingest.unoserver_pool import Converter, _live_members

pytestmark = pytest.mark.needs("libreoffice")
ROOT = Path(__file__).resolve().parents[2]
# Starts a pool, says its server's process group, then waits to be killed.
POOL_OWNER = """
import sys, time
from pathlib import Path
from ingest.unoserver_pool import Converter
pool = Converter(root=Path(sys.argv[1]), start_timeout=120)
pool.start()
print(pool.pids[0], flush=True)
time.sleep(600)
"""


def processes_mentioning(text: str) -> list[int]:
    """Live (not zombie) processes whose command line contains `text`."""
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if text in command and state != "Z":
            found.append(int(entry.name))
    return found


def wait_until_gone(pgid: int, text: str, timeout: float = 30.0) -> list[int]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        left = set(_live_members(pgid)) | set(processes_mentioning(text))
        if not left:
            return []
        time.sleep(0.25)
    return sorted(left)


def test_a_stalled_start_is_killed_and_replaced(tmp_path: Path) -> None:
    marker = tmp_path / "stalled.pid"
    wrapper = tmp_path / "stalls-once"
    wrapper.write_text(
        "#!/bin/sh\n"
        f'if [ ! -e "{marker}" ]; then echo $$ > "{marker}"; exec sleep 600; fi\n'
        f'exec "{server_python()}" "$@"\n'
    )
    wrapper.chmod(0o755)
    pool = Converter(root=tmp_path / "profiles", start_timeout=10, python=wrapper)
    try:
        pool.start()
        assert pool.restarts == 1 and len(pool.pids) == 1
        stalled = int(marker.read_text())
        assert stalled not in processes_mentioning("sleep 600"), "the stalled server is killed"
        pdf = pool.convert(b"{\\rtf1 hello}", to="pdf")
        assert pdf.startswith(b"%PDF")
    finally:
        pool.close()


def test_a_server_that_never_starts_is_given_up_after_bounded_attempts(tmp_path: Path) -> None:
    wrapper = tmp_path / "dies"
    wrapper.write_text("#!/bin/sh\nexit 3\n")
    wrapper.chmod(0o755)
    pool = Converter(root=tmp_path / "profiles", start_timeout=5, python=wrapper, start_attempts=3)
    assert not pool.available
    assert pool.restarts == 2 and "3 starts failed" in (pool.unavailable_reason or "")
    assert not list((tmp_path / "profiles").glob("profile-*")), "profiles are removed"


def test_no_libreoffice_even_a_hung_one_outlives_a_build_killed_by_sigkill(tmp_path: Path) -> None:
    root = tmp_path / "killed-build-profiles"
    owner = subprocess.Popen(
        [sys.executable, "-c", POOL_OWNER, str(root)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        pgid = int(owner.stdout.readline())
        office = [
            pid
            for pid in _live_members(pgid)
            if "soffice" in Path(f"/proc/{pid}/cmdline").read_text(errors="replace")
        ]
        assert office, "LibreOffice runs in the server's process group"
        for pid in _live_members(pgid):  # LibreOffice hangs: it cannot act on a polite SIGTERM
            if pid != pgid:
                os.kill(pid, signal.SIGSTOP)
    finally:
        os.kill(owner.pid, signal.SIGKILL)
        owner.wait()
    assert wait_until_gone(pgid, str(root)) == []


def test_no_libreoffice_outlives_a_launcher_killed_by_sigkill(tmp_path: Path) -> None:
    """A Ray worker SIGKILLs its children (the launchers) as it exits while the build lives
    on: soffice.bin, which no parent-death signal reaches, must still end with its group."""
    root = tmp_path / "killed-launcher-profiles"
    pool = Converter(root=root, start_timeout=120)
    try:
        pool.start()
        (pgid,) = pool.pids
        office = [
            pid
            for pid in _live_members(pgid)
            if "soffice" in Path(f"/proc/{pid}/cmdline").read_text(errors="replace")
        ]
        assert office, "LibreOffice runs in the server's process group"
        os.kill(pgid, signal.SIGKILL)  # the launcher leads its group
        assert wait_until_gone(pgid, str(root), timeout=10.0) == []
    finally:
        pool.close()


def test_a_worn_server_is_started_afresh_and_the_old_one_ends(tmp_path: Path) -> None:
    """LibreOffice keeps memory from each conversion: after `recycle_after` conversions its
    server is replaced before the next one, and the old LibreOffice is gone."""
    pool = Converter(root=tmp_path / "profiles", start_timeout=120, recycle_after=2)
    try:
        pool.start()
        (first,) = pool.pids
        assert pool.convert(b"{\\rtf1 one}", to="pdf").startswith(b"%PDF")
        assert pool.pids == [first] and pool.recycled == 0
        assert pool.convert(b"{\\rtf1 two}", to="pdf").startswith(b"%PDF")
        (second,) = pool.pids
        assert second != first and pool.recycled == 1 and pool.restarts == 0
        assert not _live_members(first), "the worn LibreOffice has ended"
        assert pool.convert(b"{\\rtf1 three}", to="pdf").startswith(b"%PDF")
        assert pool.conversions == 3
    finally:
        pool.close()
