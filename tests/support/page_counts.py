"""Settings for test builds that count Word pages from docProps/app.xml instead of a LibreOffice
rendering, so a build of Word files starts no LibreOffice.

For tests whose subject is elsewhere (replay, regen, coverage, model faults, the pipeline's
outputs): each rendering pool costs a LibreOffice start per build. Rendered page counts are
tested in tests/ingest/test_ingest_convert.py, and the report and review builds keep them.
"""

from __future__ import annotations

from pathlib import Path

DECLARED_PAGES = {"ingest": {"word_pages_from_pdf": False}}
DECLARED_PAGES_TOML = "[ingest]\nword_pages_from_pdf = false\n"


def declared_pages_config(folder: Path) -> list[str]:
    """`--config` arguments naming a fidelity.toml, written in `folder`, with DECLARED_PAGES."""
    path = folder / "declared-pages.toml"
    path.write_text(DECLARED_PAGES_TOML)
    return ["--config", str(path)]
