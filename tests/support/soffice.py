"""A cold `soffice --convert-to` PDF export in a private profile, for tests that check what
LibreOffice itself prints (the project's own conversions go through unoserver)."""

from __future__ import annotations

import subprocess
from pathlib import Path


def soffice_pdf(source: Path, out: Path, filter_spec: str = "pdf", timeout: float = 300) -> Path:
    """Export `source` to PDF in `out` (a profile of its own beside it); returns the PDF path."""
    subprocess.run(
        [
            "soffice",
            f"-env:UserInstallation={(out / 'profile').as_uri()}",
            "--headless",
            "--convert-to",
            filter_spec,
            "--outdir",
            str(out),
            str(source),
        ],
        check=True,
        capture_output=True,
        timeout=timeout,
    )
    return out / f"{source.stem}.pdf"
