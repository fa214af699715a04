"""Shared test fixtures: the project's test corpus, and documents extracted once per session."""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable
from pathlib import Path

import pytest
from filelock import FileLock

from fidelity.core.document import Document
from fidelity.core.hashing import file_sha256
from fidelity.filework import open_document
from fidelity.pipeline import RAISE_EXTRACTION_ERRORS
from tests.support.components import require
from tests.support.paths import CORPUS

ROOT = Path(__file__).resolve().parents[1]
# Test modules that take tens of seconds each on 2 cores (`--durations`), longest first.
# `make test` hands whole modules to the xdist workers in collection order
# (--no-loadscope-reorder), so these start first and the workers finish together.
LONG_MODULES = (
    "tests/fidelity/test_ray_executor.py",
    "tests/fidelity/test_report.py",
    "tests/generators/test_rules_wording.py",
    "tests/ingest/test_ingest_convert.py",
    "tests/fidelity/test_hostile_build.py",
    "tests/generators/test_llm_generators_pipeline.py",
    "tests/fidelity/test_workers.py",
    "tests/fidelity/test_review_labelstudio.py",
    "tests/fidelity/test_pipeline.py",
    "tests/ingest/test_unoserver_lifetime.py",
    "tests/fidelity/test_model_faults.py",
)


@pytest.fixture(scope="session")
def corpus() -> Path:
    """The project's test corpus (tests/corpus, real Office files with their MANIFEST)."""
    return CORPUS


@pytest.fixture(scope="session")
def run_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The test run's temporary folder that every pytest-xdist worker shares (what one worker
    makes there under a file lock, the others reuse)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@pytest.fixture(scope="session")
def extracted(run_folder: Path) -> Callable[[Path], Document]:
    """The Document of an Office file, extracted once per test run (tests only read it).

    Under pytest-xdist the workers share one pickled copy per file, written under a file lock
    by the first worker that asks, in the run's shared temporary folder; media go beside it.
    It is opened as `fidelity extract` opens it (fidelity.filework.open_document); an
    ExtractionError or NotReadable raises.
    """
    root = run_folder / "extracted"
    root.mkdir(exist_ok=True)
    cache: dict[Path, Document] = {}

    def load(path: Path) -> Document:
        if path not in cache:
            sha256 = file_sha256(path)
            pickled = root / f"{path.stem}-{sha256[:16]}.pickle"
            with FileLock(f"{pickled}.lock"):
                if pickled.exists():
                    cache[path] = pickle.loads(pickled.read_bytes())
                else:
                    media = root / "media" / pickled.stem
                    cache[path] = open_document(path, root / "work", sha256, media)
                    pickled.write_bytes(pickle.dumps(cache[path]))
        return cache[path]

    return load


@pytest.fixture(scope="session")
def typical(corpus: Path, extracted: Callable[[Path], Document]) -> Document:
    """The test corpus's typical deck (tables, notes, layouts), extracted once."""
    return extracted(corpus / "powerpoint" / "typical.pptx")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The long modules first, in LONG_MODULES order; the rest keep their order."""
    rank = {module: place for place, module in enumerate(LONG_MODULES)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))


def pytest_runtest_setup(item: pytest.Item) -> None:
    """A build under test (its fixtures too) stops on a file its extractor cannot read instead
    of skipping it, except in tests marked `skips_unreadable_files`, which test the skipping.

    A test marked `needs(...)` runs only where its components are (tests/support/components.py):
    skipped with the install step where one is missing, failed with it under CI=true."""
    if item.get_closest_marker("skips_unreadable_files") is None:
        os.environ[RAISE_EXTRACTION_ERRORS] = "1"
    else:
        os.environ.pop(RAISE_EXTRACTION_ERRORS, None)
    for marker in item.iter_markers("needs"):
        require(tuple(marker.args))


def pytest_unconfigure(config: pytest.Config) -> None:
    os.environ.pop(RAISE_EXTRACTION_ERRORS, None)
