"""LibreOffice conversions through a pool of unoserver processes the project starts itself.

`Converter.convert(source, to="docx"|"xlsx"|"pptx"|"pdf", filter_options=[...])`
returns the converted bytes. Each server is one unoserver (XML-RPC, one request
at a time) plus its LibreOffice, on its own port pair and private profile,
started in its own process group so stopping it ends LibreOffice too. Servers
start lazily: the first on the first conversion, another only when a conversion finds
every running one busy (up to the pool's size), so a run that converts one file starts
one LibreOffice. A server is ready once it answers `info`.

Every conversion has a timeout (enforced by unoserver, which then ends
LibreOffice, and by the client socket). A server that crashed or hung is killed
and replaced; a crashed conversion is retried once on the fresh server, a timed
out one is not. A server also stops by itself when the process that started it
dies, so no LibreOffice outlives the run.

LibreOffice keeps memory from each conversion it makes (one server rendering a pool's
files grew from 0.3 GB after 10 to 1 GB after 130, about 5 MB a conversion), so a server
that has made `recycle_after` conversions is started afresh before it takes the next one.
"""

from __future__ import annotations

import atexit
import http.client
import os
import queue
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import xmlrpc.client
from collections.abc import Sequence
from pathlib import Path

from fidelity.core.apps import APPLICATIONS
from ingest.uno_env import LibreOfficeUnavailable, cache_dir, server_python

# Runs unoserver's own entry point so that no LibreOffice outlives the build, even when
# the build is killed with SIGKILL: the kernel sends SIGUSR1 when the build dies (a
# parent-death signal), a watcher thread checks the parent as a fallback, and either
# kills the server's whole process group (unoserver, oosplash, soffice.bin) at once.
# Every process unoserver starts also gets a parent-death SIGKILL of its own. Should the
# launcher itself be SIGKILLed (a Ray worker SIGKILLs its children as it exits), a watchdog
# in the group kills the group: soffice.bin, oosplash's child, gets no parent-death signal.
LAUNCHER = """
import ctypes, os, select, signal, subprocess, sys, threading, time
PR_SET_PDEATHSIG = 1
libc = ctypes.CDLL(None, use_errno=True)
build = int(sys.argv.pop(1))
# The watchdog: a fork (no threads yet, no parent-death signal) that sleeps until the
# launcher ends, however it ends, then kills the group, so soffice.bin dies with it.
launcher = os.pidfd_open(os.getpid())
if os.fork() == 0:
    select.select([launcher], [], [])
    os.killpg(0, signal.SIGKILL)
# A Ray worker starts it with SIGINT blocked, and so blocked unoserver does not exit on
# SIGTERM (it is killed after the grace period): start from an empty signal mask.
signal.pthread_sigmask(signal.SIG_SETMASK, [])
def end_group(*_):
    if os.getppid() != build:
        os.killpg(0, signal.SIGKILL)
signal.signal(signal.SIGUSR1, end_group)
libc.prctl(PR_SET_PDEATHSIG, signal.SIGUSR1)
end_group()
def die_with_parent():
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
popen_init = subprocess.Popen.__init__
def popen(self, *args, **kwargs):
    kwargs.setdefault("preexec_fn", die_with_parent)
    popen_init(self, *args, **kwargs)
subprocess.Popen.__init__ = popen
def watch():
    while True:
        end_group()
        time.sleep(0.5)
threading.Thread(target=watch, daemon=True).start()
# unoserver gives LibreOffice a fixed 5 s to start (a sleep in its main thread; its server
# thread then retries the connection anyway): end that wait once LibreOffice listens.
uno_port = "%04X" % int(sys.argv[sys.argv.index("--uno-port") + 1])
def uno_listening():
    with open("/proc/net/tcp") as table:
        rows = [line.split() for line in table.readlines()[1:]]
    return any(row[1].endswith(":" + uno_port) and row[3] == "0A" for row in rows)
class Clock:
    def __init__(self):
        self.first = True
    def __getattr__(self, name):
        return getattr(time, name)
    def sleep(self, seconds):
        if not (self.first and threading.current_thread() is threading.main_thread()):
            return time.sleep(seconds)
        self.first = False
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and not uno_listening():
            time.sleep(0.05)
import unoserver.server
unoserver.server.time = Clock()
sys.argv[0] = "unoserver"
sys.exit(unoserver.server.main())
"""

CLIENT_MARGIN = 5.0  # seconds the client waits beyond the conversion timeout
CRASH_MARKERS = ("DisposedException", "disposed", "RuntimeException", "TimeoutError")
RECYCLE_AFTER = 100  # conversions one LibreOffice makes before it is started afresh


class ConversionError(Exception):
    """A conversion that failed; the message is the reason recorded for the file."""


class _Crashed(Exception):
    """The server died or stopped answering during a call."""


class _Transport(xmlrpc.client.Transport):
    def __init__(self, timeout: float) -> None:
        super().__init__()
        self.timeout = timeout

    def make_connection(self, host: tuple[str, dict[str, str]] | str) -> http.client.HTTPConnection:
        connection = super().make_connection(host)
        connection.timeout = self.timeout
        return connection


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class UnoServer:
    """One unoserver process and its LibreOffice."""

    def __init__(self, python: Path, root: Path, conversion_timeout: float) -> None:
        self.python = python
        self.root = root
        self.conversion_timeout = conversion_timeout
        self.process: subprocess.Popen[bytes] | None = None
        self.port = 0
        self.profile: Path | None = None
        self.log: Path | None = None
        self.conversions = 0  # since it started

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def start(self) -> None:
        self.conversions = 0
        self.root.mkdir(parents=True, exist_ok=True)
        self.profile = Path(tempfile.mkdtemp(prefix="profile-", dir=self.root))
        self.log = self.profile.with_suffix(".log")
        self.port, uno_port = _free_port(), _free_port()
        command = [str(self.python), "-c", LAUNCHER, str(os.getpid()), "--interface", "127.0.0.1"]
        command += ["--port", str(self.port), "--uno-port", str(uno_port)]
        command += ["--user-installation", str(self.profile)]
        command += ["--conversion-timeout", str(max(1, round(self.conversion_timeout)))]
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def wait_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self.running:
                raise ConversionError(f"unoserver exited while starting: {self.log_tail()}")
            try:
                self.call("info", timeout=5)
                return
            except (_Crashed, xmlrpc.client.Fault):
                time.sleep(0.25)
        self.stop(grace=0)
        raise ConversionError(f"unoserver did not answer within {timeout:.0f}s")

    def call(self, method: str, *args: object, timeout: float) -> object:
        proxy = xmlrpc.client.ServerProxy(
            f"http://127.0.0.1:{self.port}", transport=_Transport(timeout), allow_none=True
        )
        try:
            return getattr(proxy, method)(*args)
        except TimeoutError as error:
            raise _Crashed(f"no answer within {timeout:.0f}s") from error
        except (OSError, xmlrpc.client.ProtocolError, ConnectionError) as error:
            raise _Crashed(f"{type(error).__name__}: {error}") from error
        except xmlrpc.client.Fault:
            raise
        except Exception as error:  # http.client errors from a half-dead server
            raise _Crashed(f"{type(error).__name__}: {error}") from error

    def healthy(self) -> bool:
        if not self.running:
            return False
        try:
            self.call("info", timeout=10)
        except (_Crashed, xmlrpc.client.Fault):
            return False
        return True

    def stop(self, grace: float = 3.0) -> None:
        """End unoserver and LibreOffice: SIGTERM to unoserver, which passes it on to
        LibreOffice, then SIGKILL to the process group after `grace` seconds (at once when
        `grace` is 0, for a server that crashed or hung). LibreOffice's launcher (oosplash)
        can deadlock when it gets SIGTERM from the group and from unoserver at once."""
        process, self.process = self.process, None
        if process is not None:
            if grace > 0:
                process.send_signal(signal.SIGTERM)
                _signal_group(process.pid, signal.SIGCONT)  # a frozen server must wake to die
                try:
                    process.wait(grace)  # unoserver closes LibreOffice, then exits
                except subprocess.TimeoutExpired:
                    pass
                # LibreOffice's launcher (oosplash) can linger after unoserver is gone.
                _wait_group(process, 1.0)
            _signal_group(process.pid, signal.SIGKILL)
            _wait_group(process, 5.0)
        if self.profile is not None:
            shutil.rmtree(self.profile, ignore_errors=True)
            if self.log is not None:
                self.log.unlink(missing_ok=True)
            self.profile = None

    def log_tail(self) -> str:
        if self.log is None or not self.log.exists():
            return ""
        lines = self.log.read_text(errors="replace").strip().splitlines()
        return " | ".join(lines[-3:])


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _live_members(pgid: int) -> list[int]:
    """Processes of the group that are not zombies (which a container's init may never reap)."""
    members = []
    for pid in filter(str.isdigit, os.listdir("/proc")):  # a glob fails on a process that ends
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] != "Z" and int(fields[2]) == pgid:
            members.append(int(pid))
    return members


def _wait_group(process: subprocess.Popen[bytes], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None and not _live_members(process.pid):
            return True
        time.sleep(0.1)
    return False


class Converter:
    """A pool of unoservers behind one `convert` call; safe to use from several threads."""

    def __init__(
        self,
        servers: int = 1,
        timeout: float = 120.0,
        retries: int = 1,
        start_timeout: float = 90.0,
        root: Path | None = None,
        start_attempts: int = 3,
        python: Path | None = None,
        recycle_after: int = RECYCLE_AFTER,
    ) -> None:
        self.size = max(1, servers)
        self.recycle_after = recycle_after
        self.timeout = timeout
        self.retries = retries
        self.start_timeout = start_timeout
        self.start_attempts = max(1, start_attempts)
        self.python = python  # the interpreter that runs unoserver (default: server_python())
        self.root = root or cache_dir() / "unoserver-profiles"
        self.restarts = 0  # servers replaced after a crash, a hang or a failed start
        self.recycled = 0  # servers started afresh after `recycle_after` conversions
        self.conversions = 0
        self._servers: list[UnoServer] = []
        self._idle: queue.Queue[UnoServer] = queue.Queue()
        self._lock = threading.Lock()
        self._unavailable: str | None = None
        self._closings = 0  # close() counts up: a start begun before a close gives up

    # lifecycle -------------------------------------------------------------
    def start(self) -> None:
        """Start the first server and wait until it answers (LibreOffice is unavailable when
        it cannot start); later servers start as conversions wait for one."""
        with self._lock:
            if self._unavailable:
                raise LibreOfficeUnavailable(self._unavailable)
            if self._servers:
                return
            try:
                python = self.python or server_python()
            except LibreOfficeUnavailable as missing:
                self._unavailable = str(missing)
                raise
            self.python = python
            server = UnoServer(python, self.root, self.timeout)
            self._servers.append(server)  # so that close() stops it even while it starts
            error = self._ready_or_error(server)
            if error is not None:
                self._servers.remove(server)
                self._unavailable = f"no unoserver could start: {error}"
                raise LibreOfficeUnavailable(self._unavailable)
            self._idle.put(server)

    def _take(self) -> UnoServer:
        """An idle server; when all are busy and the pool is below its size, a new one (if it
        cannot start, the pool stays at the servers it has and this waits for one of them)."""
        try:
            return self._idle.get_nowait()
        except queue.Empty:
            pass
        with self._lock:
            server = None
            if len(self._servers) < self.size and self.python is not None:
                server = UnoServer(self.python, self.root, self.timeout)
                self._servers.append(server)
        if server is None:
            return self._idle.get()
        if self._ready_or_error(server) is None:
            return server
        with self._lock:
            if server in self._servers:
                self._servers.remove(server)
            self.size = len(self._servers)  # don't retry failed starts on every conversion
        return self._idle.get()

    def _ready_or_error(self, server: UnoServer) -> str | None:
        try:
            self._start_server(server)
        except ConversionError as error:
            return str(error)
        return None

    def _start_server(self, server: UnoServer) -> None:
        """Start a server until it answers: one that stalls or dies while starting is killed
        and started again with a fresh profile, at most `start_attempts` times."""
        problems = []
        closings = self._closings
        for attempt in range(self.start_attempts):
            if self._closings != closings:
                raise ConversionError("the converter was closed while the server started")
            if attempt:
                self.restarts += 1
            server.start()
            try:
                server.wait_ready(self.start_timeout)
                return
            except ConversionError as error:
                server.stop(grace=0)
                problems.append(str(error))
        raise ConversionError(f"{self.start_attempts} starts failed, last: {problems[-1]}")

    def resize(self, servers: int) -> None:
        """Grow the pool (servers start on next use); never shrinks a running pool."""
        self.size = max(self.size, servers)

    def close(self) -> None:
        """Stop every server, all at once: each may take seconds to end its LibreOffice."""
        self._closings += 1
        with self._lock:
            # Plain threads: this also runs at exit, when executors take no more work.
            stopping = [threading.Thread(target=server.stop) for server in self._servers]
            for thread in stopping:
                thread.start()
            for thread in stopping:
                thread.join()
            self._servers = []
            self._idle = queue.Queue()

    def __enter__(self) -> Converter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def available(self) -> bool:
        """Whether conversions can run (starts the pool on first ask)."""
        try:
            self.start()
        except LibreOfficeUnavailable:
            return False
        return True

    @property
    def unavailable_reason(self) -> str | None:
        return self._unavailable

    @property
    def pids(self) -> list[int]:
        """Process ids (= process group ids) of the running unoservers."""
        return [s.process.pid for s in self._servers if s.process is not None and s.running]

    # conversions -----------------------------------------------------------
    def convert(
        self,
        source: bytes | Path,
        to: str,
        filter_options: Sequence[str] = (),
        filtername: str | None = None,
        timeout: float | None = None,
    ) -> bytes:
        """The file converted to `to` (an extension: docx, xlsx, pptx, pdf, ...)."""
        data = source.read_bytes() if isinstance(source, Path) else source
        self.start()
        server = self._take()
        try:
            return self._convert_on(server, data, to, list(filter_options), filtername, timeout)
        finally:
            if server.conversions >= self.recycle_after:
                self._recycle(server)
            self._idle.put(server)

    def to_pdf(self, source: bytes | Path, app: str, timeout: float | None = None) -> bytes:
        """A PDF rendering with the export options that suit the application."""
        return self.convert(
            source,
            "pdf",
            APPLICATIONS[app].pdf_options if app in APPLICATIONS else (),
            timeout=timeout,
        )

    def _convert_on(
        self,
        server: UnoServer,
        data: bytes,
        to: str,
        options: list[str],
        filtername: str | None,
        timeout: float | None,
    ) -> bytes:
        limit = timeout or self.timeout
        attempts = self.retries + 1
        why = "LibreOffice was not asked"
        for _ in range(attempts):
            if not server.running:
                self._restart(server)
            args = (None, xmlrpc.client.Binary(data), None, to, filtername, options, False)
            try:
                result = server.call("convert", *args, None, None, timeout=limit + CLIENT_MARGIN)
            except xmlrpc.client.Fault as fault:
                message = str(fault.faultString).strip().splitlines()[-1]
                if "TimeoutError" in fault.faultString:
                    self._restart(server)
                    raise ConversionError(f"LibreOffice timed out after {limit:.0f}s") from None
                crashed = any(marker in fault.faultString for marker in CRASH_MARKERS)
                if not crashed and server.healthy():
                    raise ConversionError(f"LibreOffice could not convert: {message}") from None
                why = f"LibreOffice crashed: {message}"
            except _Crashed as error:
                if "no answer within" in str(error):
                    self._restart(server)
                    raise ConversionError(f"LibreOffice hung (timeout {limit:.0f}s)") from None
                why = f"LibreOffice crashed: {error}"
            else:
                self.conversions += 1
                server.conversions += 1
                if not isinstance(result, xmlrpc.client.Binary):
                    raise ConversionError("unoserver returned no data")
                return result.data
            self._restart(server)
        raise ConversionError(f"{why} ({attempts} attempts)")

    def _recycle(self, server: UnoServer) -> None:
        """Start a worn server afresh; one that does not come back is started again (or
        reported) by its next conversion, as a crashed one is."""
        server.stop()
        self.recycled += 1
        try:
            self._start_server(server)
        except ConversionError:
            pass

    def _restart(self, server: UnoServer) -> None:
        server.stop(grace=0)
        self.restarts += 1
        try:
            self._start_server(server)
        except ConversionError as error:
            raise ConversionError(f"could not restart unoserver: {error}") from None


_shared: Converter | None = None
_shared_lock = threading.Lock()


def shared_converter(servers: int | None = None, timeout: float | None = None) -> Converter:
    """The process-wide converter every stage uses; stopped when the interpreter exits.

    Settings passed on the first call shape it; later calls may grow it.
    """
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = Converter(servers=servers or 1, timeout=timeout or 120.0)
            atexit.register(close_shared_converter)
        elif servers:
            _shared.resize(servers)
        return _shared


def close_shared_converter() -> None:
    global _shared
    with _shared_lock:
        if _shared is not None:
            _shared.close()
            _shared = None
