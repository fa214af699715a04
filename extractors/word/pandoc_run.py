"""pandoc as a started process: it runs while Python reads the package, and a failure,
a timeout or a killed worker never leaves it behind or stops the run.

pypandoc finds the pandoc binary (`get_pandoc_path`, the one pypandoc-binary ships), but
its `convert_*` calls are not used here: each one runs pandoc twice more to list the
input and output formats, blocks until pandoc ends (no reading the package meanwhile),
has no timeout and leaves pandoc running when the worker is killed."""

from __future__ import annotations

import json
import os
import select
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import IO, Any

import pypandoc

from extractors.base import ExtractionError

# Under the per-file timeout of the build's workers (300 s by default), so that the
# file gets pandoc's own reason; `fidelity extract` has no other timeout.
PANDOC_TIMEOUT = 240.0
# util-linux's setpriv (essential on Debian) starts pandoc with a parent-death signal:
# the kernel kills pandoc when the Python thread that started it ends, even when the
# worker is killed with SIGKILL. A preexec_fn doing the same would make every start a
# full fork (3 ms more per run here) where setpriv costs one exec (1 ms).
DIE_WITH_PARENT = ("setpriv", "--pdeathsig", "KILL")
STDERR_CHARS = 300
GHC_OUT_OF_MEMORY = 251  # pandoc's exit code when an allocation fails (the limit is inherited)


class PandocRun:
    """One pandoc process started now; `text()` waits for it (at most `timeout` seconds).

    Input and output go through unnamed temporary files rather than pipes, so pandoc
    never waits on Python to read or write while Python does other work. Use it as a
    context manager: leaving the block kills pandoc if it is still running.
    """

    def __init__(
        self, arguments: Sequence[str], stdin: bytes | None = None, timeout: float = PANDOC_TIMEOUT
    ) -> None:
        self.timeout = timeout
        self.files: list[IO[bytes]] = []
        source = self._file(stdin) if stdin is not None else subprocess.DEVNULL
        self.stdout, self.stderr = self._file(), self._file()
        self.process = subprocess.Popen(
            [*DIE_WITH_PARENT, pypandoc.get_pandoc_path(), *arguments],
            stdin=source,
            stdout=self.stdout,
            stderr=self.stderr,
        )

    def _file(self, content: bytes = b"") -> IO[bytes]:
        handle = tempfile.TemporaryFile()
        self.files.append(handle)
        if content:
            handle.write(content)
            handle.seek(0)
        return handle

    def text(self) -> str:
        """pandoc's output, decoded as pypandoc does; a failure or timeout: ExtractionError
        (MemoryError when pandoc ran out of memory)."""
        if not self._ended():
            self.close()
            raise ExtractionError(f"pandoc did not finish within {self.timeout:g} s")
        code = self.process.wait()
        if code != 0:
            self.stderr.seek(0)
            reason = " ".join(self.stderr.read().decode("utf-8", errors="replace").split())
            if code == GHC_OUT_OF_MEMORY or "out of memory" in reason:  # the worker's limit
                raise MemoryError(f"pandoc ran out of memory: {reason[:STDERR_CHARS]}")
            raise ExtractionError(f"pandoc failed (exit code {code}): {reason[:STDERR_CHARS]}")
        self.stdout.seek(0)
        return self.stdout.read().decode("utf-8", errors="replace")

    def _ended(self) -> bool:
        """Whether pandoc ends within the timeout. Its pidfd becomes readable the moment it
        ends (Popen.wait with a timeout polls with sleeps growing to 50 ms instead)."""
        pidfd = os.pidfd_open(self.process.pid)
        try:
            readable, _, _ = select.select([pidfd], [], [], self.timeout)
        finally:
            os.close(pidfd)
        return bool(readable)

    def ast(self) -> dict[str, Any]:
        """pandoc's JSON output parsed (pandoc run with --to=json)."""
        return json.loads(self.text())

    def close(self) -> None:
        """Kill pandoc if it still runs, reap it and drop its files."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        for handle in self.files:
            handle.close()

    def __enter__(self) -> PandocRun:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


def read_docx(path: Path, media_dir: Path | None) -> PandocRun:
    """pandoc reading a Word file into its JSON AST, media written under `media_dir` if given."""
    arguments = ["--from=docx", "--to=json", str(path.absolute())]
    if media_dir is not None:
        media_dir.mkdir(parents=True, exist_ok=True)
        arguments.append(f"--extract-media={media_dir}")
    return PandocRun(arguments)


def write_json(ast_json: str, to: str) -> PandocRun:
    """pandoc writing a JSON AST (given as JSON text) as `to`, lines unwrapped."""
    return PandocRun(["--from=json", f"--to={to}", "--wrap=none"], stdin=ast_json.encode())
