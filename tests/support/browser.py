"""Headless Chromium for the browser tests: Debian's `chromium` (CHROMIUM_BIN overrides),
driven through Playwright, one launch per test module (a launch costs more CPU than a page)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

CHROMIUM_FLAGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
MISSING = "Debian's chromium is not installed (apt-get install chromium; .ci/run installs it)"


def chromium_binary() -> str | None:
    return os.environ.get("CHROMIUM_BIN") or shutil.which("chromium")


@contextmanager
def launched_chromium() -> Iterator[Any]:
    """A Playwright Browser on the system chromium, closed on exit; the test is skipped, with
    the reason, where chromium or Playwright (the test extra) is absent."""
    binary = chromium_binary()
    if binary is None:
        pytest.skip(MISSING)
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright (test extra) absent")
    with sync_api.sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=binary, args=list(CHROMIUM_FLAGS))
        try:
            yield browser
        finally:
            browser.close()
