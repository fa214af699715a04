"""`--executor ray` on a local Ray cluster (2 CPUs on 127.0.0.1, started by the test).

The same outputs as the local executor (shared paths and shipped bytes), on good
and bad files; a task that crashes, hangs or overruns memory is one failed item;
a build whose driver is SIGKILLed resumes; model mode records, caches and replays
every call as a local build does.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.components import require

require(("ray",), module_level=True)  # the imports below need Ray
pytestmark = [pytest.mark.needs("ray"), pytest.mark.skips_unreadable_files]

import ray  # noqa: E402, I001

from fidelity.cli import main  # noqa: E402
from fidelity.cluster.nodes import NodeServices, NodeSetup  # noqa: E402
from fidelity.cluster.pool import open_ray_workers  # noqa: E402
from fidelity.core.config import Config, ModelsConfig  # noqa: E402
from fidelity.core.executor import Progress  # noqa: E402
from fidelity.core.hashing import file_sha256  # noqa: E402
from ingest.analyze import AnalysisWork, analysis_task  # noqa: E402
from ingest.settings import IngestSettings  # noqa: E402
from ingest.unoserver_pool import _live_members  # noqa: E402
from tests.generators.test_llm_generators_pipeline import generic_model  # noqa: E402
from tests.support.openai_stub import StubServer  # noqa: E402
from tests.support.paths import CORPUS  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
GOOD = [
    CORPUS / "word" / "docx-tables.docx",
    CORPUS / "word" / "notes.docx",
    CORPUS / "excel" / "QuarterlySales.xlsx",
    CORPUS / "powerpoint" / "bug60993.pptx",  # slide renders: media written by the worker
]
BAD = sorted((ROOT / "fixtures" / "bad").iterdir()) + sorted((CORPUS / "bad").iterdir())
OUTPUTS = [
    "questions.jsonl",
    "rejected.jsonl",
    "skipped.jsonl",
    "corpus.jsonl",
    "corpus.md",
    "coverage.md",
    "funnel.md",
]
MEMORY_CAP = 256 * 1024**2


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def stop_group(pgid: int) -> None:
    """SIGKILL the cluster's process group and wait until only zombies are left (nothing here
    reaps the cluster's daemons). No SIGTERM first: gcs_server and raylet outlive it by
    seconds, so a grace period only ever delayed the SIGKILL."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + 5.0
    while _live_members(pgid) and time.monotonic() < deadline:
        time.sleep(0.1)


@pytest.fixture(scope="module")
def ray_address() -> Iterator[str]:
    """`ray start --head` with 2 CPUs on 127.0.0.1 for this module's tests; stopped after them
    (the module runs first on its xdist worker; an idle head spends about 3% of a core)."""
    temp = Path(tempfile.mkdtemp(prefix="ray-", dir="/tmp"))  # short: Ray's socket paths
    port = free_port()
    paths = os.pathsep.join([str(ROOT), str(ROOT / "tests")])  # workers import this checkout
    env = {**os.environ, "RAY_AUTH_MODE": "disabled", "PYTHONPATH": paths}
    command = [str(Path(sys.executable).with_name("ray")), "start", "--head"]
    command += ["--node-ip-address", "127.0.0.1", "--port", str(port), "--num-cpus", "2"]
    command += ["--include-dashboard", "false", "--disable-usage-stats", "--temp-dir", str(temp)]
    starter = subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True
    )
    output, _ = starter.communicate(timeout=180)
    previous = os.environ.get("RAY_AUTH_MODE")
    os.environ["RAY_AUTH_MODE"] = "disabled"
    try:
        if starter.returncode != 0:
            pytest.fail(f"ray start failed: {output.decode()[-2000:]}")
        yield f"127.0.0.1:{port}"
    finally:
        stop_group(starter.pid)
        if previous is None:
            os.environ.pop("RAY_AUTH_MODE", None)
        else:
            os.environ["RAY_AUTH_MODE"] = previous
        shutil.rmtree(temp, ignore_errors=True)


@pytest.fixture(scope="module")
def one_server(tmp_path_factory) -> list[str]:
    """`--config` for builds with one LibreOffice per pool: conversions are not what these
    tests compare, and each further server costs a LibreOffice start per build."""
    path = tmp_path_factory.mktemp("config") / "fidelity.toml"
    path.write_text("[ingest]\nservers = 1\n")
    return ["--config", str(path)]


@pytest.fixture(scope="module")
def one_server_declared_pages(tmp_path_factory) -> list[str]:
    """`--config` for the model-mode builds: one LibreOffice per pool, and Word pages counted
    from docProps/app.xml. They compare model calls; rendering the Word file to count its
    pages started a LibreOffice per build that nothing looked at."""
    path = tmp_path_factory.mktemp("config") / "fidelity.toml"
    path.write_text("[ingest]\nservers = 1\nword_pages_from_pdf = false\n")
    return ["--config", str(path)]


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("inputs")
    for path in GOOD + BAD:
        shutil.copy(path, folder / path.name)
    return folder


@pytest.fixture(scope="module")
def local_out(inputs, one_server, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("local") / "out"
    assert main([*one_server, "build", str(inputs), "-o", str(out), "--workers", "2"]) == 0
    return out


def media_files(out: Path) -> list[str]:
    return sorted(p.relative_to(out).as_posix() for p in (out / "media").rglob("*") if p.is_file())


def same_outputs(first: Path, second: Path) -> None:
    for name in OUTPUTS:
        assert (first / name).read_bytes() == (second / name).read_bytes(), name
    assert media_files(first) == media_files(second)


def test_ray_build_matches_the_local_build(ray_address, inputs, one_server, local_out, tmp_path):
    out = tmp_path / "out"
    command = [
        *one_server,
        "build",
        str(inputs),
        "-o",
        str(out),
        "--executor",
        "ray",
        "--address",
        ray_address,
    ]
    assert main(command) == 0
    same_outputs(local_out, out)
    skipped = (out / "skipped.jsonl").read_text()
    assert all(path.name in skipped for path in BAD)
    assert any(name.startswith("media/") and "slide" in name for name in media_files(out))


def well_behaved_or_not(item: int, progress: Progress) -> int:
    """A task that crashes its worker, hangs, overruns memory or raises, depending on `item`."""
    progress.enter("working")
    if item == 1:
        os.kill(os.getpid(), signal.SIGSEGV)
    if item == 2:
        time.sleep(600)
    if item == 3:
        return len(bytearray(4 * MEMORY_CAP))
    if item == 4:
        raise ValueError("a bad record")
    return item * 10


def test_a_crashing_hanging_or_greedy_task_is_one_failed_item(ray_address):
    # The limit leaves Ray time to report the crashed worker even on a loaded machine.
    config = Config(executor="ray", ray_address=ray_address, file_timeout=4)
    config.worker_memory = "256MB"
    with open_ray_workers(config, None) as pool:
        results = list(pool.executor.map(well_behaved_or_not, range(6)))
    assert [r.value for r in results] == [0, None, None, None, None, 50]
    failures = [r.failure for r in results[1:5]]
    kinds = [failure.error_type for failure in failures]
    assert kinds == ["WorkerDied", "Timeout", "MemoryError", "ValueError"]
    assert {f.stage for f in failures} == {"working"}
    assert "a bad record" in failures[3].message


def done_files(store: Path) -> int:
    try:
        with sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=1) as db:
            return db.execute("SELECT count(*) FROM files").fetchone()[0]
    except sqlite3.Error:
        return 0


@pytest.fixture(scope="module")
def killed_out(ray_address, inputs, one_server, tmp_path_factory) -> Path:
    """The OUT of a Ray build SIGKILLed once it stored 2 files (each rerun resumes a copy)."""
    out = tmp_path_factory.mktemp("killed") / "out"
    command = [sys.executable, "-m", "fidelity.cli", *one_server, "build", str(inputs)]
    command += ["-o", str(out), "--executor", "ray", "--address", ray_address]
    driver = subprocess.Popen(
        command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 180
    while done_files(out / "run.sqlite") < 2 and driver.poll() is None:
        assert time.monotonic() < deadline, "the build stored no file in time"
        time.sleep(0.2)
    driver.send_signal(signal.SIGKILL)
    driver.wait()
    return out


@pytest.mark.parametrize(
    "rerun",
    [["--executor", "ray", "--ship-files"], ["--executor", "process"]],
    ids=["on-ray-shipping-files", "on-the-local-executor"],
)
def test_a_ray_build_killed_mid_way_resumes_with_nothing_lost_or_doubled(
    ray_address, inputs, one_server, local_out, killed_out, tmp_path, rerun
):
    out = tmp_path / "out"
    shutil.copytree(killed_out, out, symlinks=True)
    assert done_files(out / "run.sqlite") < len(GOOD + BAD)  # it was stopped mid-way
    command = [*one_server, "build", str(inputs), "-o", str(out), "--address", ray_address]
    assert main([*command, *rerun]) == 0
    same_outputs(local_out, out)
    assert any(name.startswith("media/") and "slide" in name for name in media_files(out))


@pytest.fixture
def stub(monkeypatch):
    with StubServer(generic_model) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-ray-test-key")
        yield server


def pictures_sent(requests: list[dict]) -> int:
    return sum(
        part["type"] == "image_url"
        for request in requests
        for message in request["json"]["messages"]
        if isinstance(message["content"], list)
        for part in message["content"]
    )


def test_model_mode_on_ray_records_caches_and_replays_as_locally(
    ray_address, stub, one_server_declared_pages, tmp_path
):
    settings = one_server_declared_pages
    word = CORPUS / "word" / "drawingml.docx"  # a picture: the model is sent it
    local, remote = tmp_path / "local", tmp_path / "ray"
    model = ["--model", "stub-model"]
    assert main([*settings, "build", str(word), "-o", str(local), *model]) == 0
    local_requests = stub.chat_requests()
    ray = ["--executor", "ray", "--address", ray_address, "--ship-files"]
    assert main([*settings, "build", str(word), "-o", str(remote), *model, *ray]) == 0
    ray_requests = stub.chat_requests()[len(local_requests) :]
    assert len(ray_requests) == len(local_requests) > 0  # every request once, as locally
    assert pictures_sent(ray_requests) == pictures_sent(local_requests) > 0
    for name in ("questions.jsonl", "rejected.jsonl", "funnel.md"):
        assert (local / name).read_bytes() == (remote / name).read_bytes(), name
    with sqlite3.connect(remote / "run.sqlite") as db:
        (recorded,) = db.execute("SELECT count(*) FROM model_calls").fetchone()
    assert recorded == len(ray_requests)
    assert main(["explain", str(word), "-o", str(remote), "--replay"]) == 0
    assert main([*settings, "build", str(word), "-o", str(remote), *model, *ray]) == 0
    assert len(stub.chat_requests()) == 2 * len(local_requests)  # a rebuild makes no call


class Stages:
    """A Progress that keeps the stages a task entered."""

    def __init__(self) -> None:
        self.entered: list[str] = []

    def enter(self, stage: str) -> None:
        self.entered.append(stage)


def test_a_node_without_libreoffice_skips_conversions_with_the_reason(ray_address, tmp_path):
    ray.init(address=ray_address)
    try:
        setup = NodeSetup("fidelity-test", None, ModelsConfig(), Path(), 1, 60.0)
        no_libreoffice = {"env_vars": {"FIDELITY_UNO_PYTHON": "/nonexistent/python3"}}
        node = ray.remote(NodeServices).options(runtime_env=no_libreoffice).remote(setup)
        endpoint = ray.get(node.endpoint.remote())
        legacy = CORPUS / "variants" / "parentinvguid.doc"
        work = AnalysisWork(legacy, file_sha256(legacy), tmp_path, IngestSettings(), endpoint)
        record = analysis_task(work, Stages())
        ray.get(node.close.remote())
    finally:
        ray.shutdown()
    assert record.problem_code == "conversion_failed"
    assert "cannot import uno" in record.problem
