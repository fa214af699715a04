"""A real Label Studio on 127.0.0.1 for the review tests, and headless Chromium screenshots of it.

Label Studio runs from its own venv (`make test` installs it under the test cache, see
tests/support/components.py; LABEL_STUDIO_BIN overrides the path) with a fresh data folder
and a known admin and API token. The data folder starts as a copy of one Label Studio
migrated once per installed version (`prepared_data()`; `make test` makes it at install):
migrating a new database takes about 35 s of CPU, starting on a migrated one about 4. A
Playwright-driven Chromium (tests/support/browser.py) gets the Label Studio session cookie,
opens a task and screenshots it.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

import httpx
from filelock import FileLock

from tests.support.components import LABEL_STUDIO, TEST_CACHE

ADMIN = "admin@example.com"
PASSWORD = "fidelity-review-1"
TOKEN = "fidelity-review-token"
START_TIMEOUT = 240.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class LabelStudio:
    """One Label Studio server process with its own data folder; `stop()` ends it.

    With `base`, the server's database and media start as a copy of that data folder."""

    def __init__(self, data: Path, base: Path | None = None) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = data / "label-studio.log"
        command = [
            str(LABEL_STUDIO),
            "start",
            "--no-browser",
            "--port",
            str(self.port),
            "--internal-host",
            "127.0.0.1",
            "--host",
            self.url,
            "--username",
            ADMIN,
            "--password",
            PASSWORD,
            "--user-token",
            TOKEN,
            "--enable-legacy-api-token",
        ]
        if base is not None:
            shutil.copytree(base, data / "base")
        env = {**os.environ, "LABEL_STUDIO_BASE_DATA_DIR": str(data / "base")}
        with self.log.open("w") as log:
            self.process = subprocess.Popen(
                command, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        self.api = httpx.Client(
            base_url=self.url, headers={"Authorization": f"Token {TOKEN}"}, timeout=120
        )

    def wait_ready(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"Label Studio exited: {self.log.read_text()[-2000:]}")
            try:
                if self.api.get("/api/current-user/whoami").status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(1.0)
        raise RuntimeError(f"Label Studio not ready: {self.log.read_text()[-2000:]}")

    def stop(self) -> None:
        self.api.close()
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()

    def call(self, method: str, path: str, **kwargs: Any) -> Any:
        response = self.api.request(method, path, **kwargs)
        if response.status_code >= 400:
            raise AssertionError(f"{method} {path}: {response.status_code} {response.text[:800]}")
        return response.json() if response.content else None

    def session_cookies(self) -> dict[str, str]:
        """Cookies of a browser session logged in as the admin (Label Studio's login form)."""
        with httpx.Client(base_url=self.url, timeout=60) as browser:
            browser.get("/user/login/")
            browser.post(
                "/user/login/",
                data={
                    "email": ADMIN,
                    "password": PASSWORD,
                    "csrfmiddlewaretoken": browser.cookies["csrftoken"],
                },
                headers={"Referer": f"{self.url}/user/login/"},
            )
            return {cookie.name: cookie.value for cookie in browser.cookies.jar}

    def snapshot_export(self, project: int) -> list[dict[str, Any]]:
        """A JSON export snapshot with annotators as objects (id, e-mail, names)."""
        options = {"annotations__completed_by": {"only_id": False}}
        created = self.call(
            "POST",
            f"/api/projects/{project}/exports",
            json={"title": "fidelity", "serialization_options": options},
        )
        path = f"/api/projects/{project}/exports/{created['id']}"
        for _ in range(120):
            if self.call("GET", path)["status"] == "completed":
                break
            time.sleep(0.5)
        return self.call("GET", f"{path}/download", params={"exportType": "JSON"})


def installed_version() -> str:
    """The installed Label Studio's version, from its venv's package metadata."""
    venv = LABEL_STUDIO.resolve().parent.parent
    found = sorted(venv.glob("lib/python*/site-packages/label_studio-*.dist-info"))
    if not found:
        raise RuntimeError(f"no label_studio package in {venv}")
    return found[-1].name.removeprefix("label_studio-").removesuffix(".dist-info")


def prepared_data() -> Path:
    """A Label Studio data folder, migrated and holding the admin, made once per installed version.

    Kept in the test cache (FIDELITY_TEST_CACHE, default ~/.cache/fidelity-tests); made under a
    file lock by starting and stopping a server on an empty folder, then renamed into place.
    """
    cache = TEST_CACHE
    cache.mkdir(parents=True, exist_ok=True)
    prepared = cache / f"label-studio-{installed_version()}"
    with FileLock(f"{prepared}.lock"):
        if not prepared.is_dir():
            work = cache / f"{prepared.name}.making"
            shutil.rmtree(work, ignore_errors=True)
            work.mkdir()
            server = LabelStudio(work)
            try:
                server.wait_ready()
            finally:
                server.stop()
            (work / "base").rename(prepared)
            shutil.rmtree(work)
    return prepared


# The largest loaded picture of the page of a given natural size (Label Studio shows a
# task's data-URI picture through a blob: URL; the data manager's table shows thumbnails).
FIND_PICTURE = """(() => {
  const shown = [...document.querySelectorAll('img')].filter(
    (img) => img.complete && img.naturalWidth === WIDTH && img.naturalHeight === HEIGHT);
  const box = (img) => img.getBoundingClientRect();
  const area = (img) => box(img).width * box(img).height;
  if (!shown.length) return null;
  const big = shown.reduce((a, b) => (area(a) >= area(b) ? a : b));
  const r = box(big);
  return {x: r.x + window.scrollX, y: r.y + window.scrollY, width: r.width, height: r.height,
          natural: [big.naturalWidth, big.naturalHeight]};
})()"""


def screenshot(
    browser: Any,
    url: str,
    cookies: dict[str, str],
    size: tuple[int, int],
    smallest: tuple[int, int] = (100, 50),
    timeout: float = 90.0,
) -> tuple[bytes, dict[str, Any] | None]:
    """(PNG of the page at `url`, the box of its largest shown picture of natural `size`).

    Opens the page with the Label Studio session `cookies` in a tab of its own and waits until
    such a picture is shown at least `smallest` (larger than the data manager's thumbnails),
    or `timeout` passes.
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    script = FIND_PICTURE.replace("WIDTH", str(size[0])).replace("HEIGHT", str(size[1]))
    shown = f"(() => {{ const box = {script}; return box && box.width >= {smallest[0]}"
    shown += f" && box.height >= {smallest[1]}; }})()"
    context = browser.new_context(viewport={"width": 1280, "height": 2400})
    try:
        origin = "/".join(url.split("/", 3)[:3])
        context.add_cookies([{"name": k, "value": v, "url": origin} for k, v in cookies.items()])
        page = context.new_page()
        page.goto(url)
        try:
            page.wait_for_function(shown, timeout=timeout * 1000, polling=500)
        except PlaywrightTimeout:
            pass  # the box found, if any, is returned for the caller to judge
        page.wait_for_timeout(1000)  # let the layout settle around the picture
        box = page.evaluate(script)
        return page.screenshot(full_page=True), box
    finally:
        context.close()


if __name__ == "__main__":
    print(prepared_data())
