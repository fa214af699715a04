"""Headless Chromium for the browser tests: Debian's `chromium` (CHROMIUM_BIN overrides),
driven through Playwright, one launch per test module (a launch costs more CPU than a page)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from tests.support.components import chromium_binary, require

CHROMIUM_FLAGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


@contextmanager
def launched_chromium() -> Iterator[Any]:
    """A Playwright Browser on the system chromium, closed on exit; a missing chromium or
    Playwright skips the test (fails it under CI=true) with its install step."""
    require(("chromium",))
    from playwright.sync_api import sync_playwright

    binary = chromium_binary()
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=binary, args=list(CHROMIUM_FLAGS))
        try:
            yield browser
        finally:
            browser.close()
