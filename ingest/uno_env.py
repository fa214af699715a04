"""Find, or create once and cache, the Python interpreter that runs unoserver.

unoserver's server side imports LibreOffice's `uno` module, which only Debian's
`/usr/bin/python3` has (package python3-uno); the project's own venv cannot run
it. Resolution order:

1. `FIDELITY_UNOSERVER_PYTHON`: an interpreter the user vouches for;
2. the uno interpreter itself (`FIDELITY_UNO_PYTHON`, default /usr/bin/python3)
   when it already imports both `uno` and `unoserver`;
3. a venv at `<cache>/unoserver-venv`, made from the uno interpreter with
   `--system-site-packages` (so `uno` stays visible) and unoserver pip-installed
   at the client's version. It is created on first use under a file lock and
   reused afterwards; a marker file records the installed version.

`<cache>` is `FIDELITY_CACHE_DIR`, else `$XDG_CACHE_HOME/fidelity`, else
`~/.cache/fidelity`.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
from importlib import metadata
from pathlib import Path

UNO_PYTHON = "/usr/bin/python3"
MARKER = ".fidelity-unoserver"
PROBE = "import uno, unoserver.server"


class LibreOfficeUnavailable(RuntimeError):
    """LibreOffice or a uno-capable Python is missing; the message says what to install."""


def cache_dir() -> Path:
    if explicit := os.environ.get("FIDELITY_CACHE_DIR"):
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "fidelity"


def client_version() -> str:
    """The unoserver version of the client side (the server must speak the same API)."""
    return metadata.version("unoserver")


def _imports(python: Path | str, code: str) -> bool:
    try:
        done = subprocess.run([str(python), "-c", code], capture_output=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def server_python() -> Path:
    """An interpreter that can run `unoserver.server`; creates the cached venv if needed."""
    if shutil.which("soffice") is None:
        raise LibreOfficeUnavailable(
            "LibreOffice is not installed (no soffice on PATH): apt-get install "
            "libreoffice-writer libreoffice-calc libreoffice-impress python3-uno"
        )
    if explicit := os.environ.get("FIDELITY_UNOSERVER_PYTHON"):
        return Path(explicit)
    uno_python = Path(os.environ.get("FIDELITY_UNO_PYTHON", UNO_PYTHON))
    if not _imports(uno_python, "import uno"):
        raise LibreOfficeUnavailable(
            f"{uno_python} cannot import uno: apt-get install python3-uno "
            "(or point FIDELITY_UNO_PYTHON at LibreOffice's Python)"
        )
    if _imports(uno_python, PROBE):
        return uno_python
    return _cached_venv(uno_python, cache_dir() / "unoserver-venv")


def _cached_venv(uno_python: Path, venv: Path) -> Path:
    python = venv / "bin" / "python"
    wanted = client_version()
    venv.parent.mkdir(parents=True, exist_ok=True)
    with open(venv.parent / "unoserver-venv.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another run may be building the same venv
        marker = venv / MARKER
        if marker.is_file() and marker.read_text().strip() == wanted and _imports(python, PROBE):
            return python
        if not python.exists():
            _run([str(uno_python), "-m", "venv", "--system-site-packages", str(venv)], venv)
        _run(
            [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
            + [f"unoserver=={wanted}"],
            venv,
        )
        if not _imports(python, PROBE):
            raise LibreOfficeUnavailable(f"{python} still cannot import uno and unoserver")
        marker.write_text(wanted + "\n")
    return python


def _run(command: list[str], venv: Path) -> None:
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise LibreOfficeUnavailable(f"could not prepare {venv}: {error}") from error
    if done.returncode != 0:
        detail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        hint = " (apt-get install python3-venv)" if "venv" in command else ""
        raise LibreOfficeUnavailable(
            f"could not prepare {venv}{hint}: {' '.join(command[:4])}… failed: "
            + " | ".join(detail)
        )
