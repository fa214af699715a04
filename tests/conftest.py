"""Shared test fixtures: where the shared corpus lives, and documents extracted once per session."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from extractors import extract_file as extract
from fidelity.core.document import Document
from fidelity.core.hashing import file_sha256
from fidelity.pipeline import RAISE_EXTRACTION_ERRORS

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"
APP_OF_SUFFIX = {
    **dict.fromkeys((".docx", ".docm", ".dotx"), "word"),
    **dict.fromkeys((".xlsx", ".xlsm", ".xltx"), "excel"),
    **dict.fromkeys((".pptx", ".pptm", ".potx", ".ppsx"), "powerpoint"),
}


@pytest.fixture(scope="session")
def corpus() -> Path:
    if not CORPUS.is_dir():
        pytest.skip(f"shared corpus not found at {CORPUS}")
    return CORPUS


@pytest.fixture(scope="session")
def extracted(tmp_path_factory: pytest.TempPathFactory) -> Callable[[Path], Document]:
    """The Document of an Office file, extracted once per session (tests only read it).

    Its media go to `<session tmp>/media/<file stem>`; an ExtractionError raises.
    """
    cache: dict[Path, Document] = {}

    def load(path: Path) -> Document:
        if path not in cache:
            document = Document(
                sha256=file_sha256(path),
                app=APP_OF_SUFFIX[path.suffix.lower()],
                format=path.suffix[1:].lower(),
                source=str(path),
            )
            media = tmp_path_factory.mktemp("extracted") / "media" / path.stem
            cache[path] = extract(path, document, media)
        return cache[path]

    return load


@pytest.fixture(scope="session")
def typical(corpus: Path, extracted: Callable[[Path], Document]) -> Document:
    """The shared corpus's typical deck (tables, notes, layouts), extracted once."""
    return extracted(corpus / "powerpoint" / "typical.pptx")


SERVICE_MARKERS = ("ray", "review_tools", "browser")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under pytest-xdist's `--dist loadgroup` (`make test`), the tests of one service (a local
    Ray cluster, the Label Studio server, Chromium) share a worker, so each service starts once."""
    for item in items:
        service = next((name for name in SERVICE_MARKERS if item.get_closest_marker(name)), None)
        if service is not None:
            item.add_marker(pytest.mark.xdist_group(service))


def pytest_runtest_setup(item: pytest.Item) -> None:
    """A build under test (its fixtures too) stops on a file its extractor cannot read instead
    of skipping it, except in tests marked `skips_unreadable_files`, which test the skipping."""
    if item.get_closest_marker("skips_unreadable_files") is None:
        os.environ[RAISE_EXTRACTION_ERRORS] = "1"
    else:
        os.environ.pop(RAISE_EXTRACTION_ERRORS, None)


def pytest_unconfigure(config: pytest.Config) -> None:
    os.environ.pop(RAISE_EXTRACTION_ERRORS, None)
