"""The review round trip through a real Label Studio, and what annotators see in a browser.

Label Studio (its own venv, installed by `make test`) starts once for the module
on 127.0.0.1; the tests are skipped, with the reason, only where it or Chromium is absent.
"""

from __future__ import annotations

import base64
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from fidelity.cli import main as cli
from fidelity.review import formats
from tests.support.browser import launched_chromium
from tests.support.labelstudio_support import (
    LabelStudio,
    prepared_data,
    screenshot,
)
from tests.support.review_support import (
    answers,
    build_run,
    expected_dataset,
    expected_states,
    labelstudio_result,
    tasks_of,
)

pytestmark = pytest.mark.needs("label-studio", "chromium")
ANNOTATORS = (
    {"email": "ada@example.com", "username": "ada", "first_name": "Ada", "last_name": "One"},
    {"email": "bob@example.com", "username": "bob", "first_name": "Bob", "last_name": "Two"},
)
JUDGE = {
    "email": "judge@example.com",
    "username": "judge",
    "first_name": "Jo",
    "last_name": "Judge",
}


@pytest.fixture(scope="module")
def studio(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabelStudio]:
    server = LabelStudio(tmp_path_factory.mktemp("label-studio"), prepared_data())
    try:
        server.wait_ready()
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def project(
    studio: LabelStudio, corpus: Path, tmp_path_factory: pytest.TempPathFactory, run_folder: Path
) -> dict[str, Any]:
    """A build exported for Label Studio, its project and tasks, both annotators' answers."""
    out = build_run(corpus, tmp_path_factory.mktemp("label-studio-run"), run_folder)
    assert cli(["review", "export", str(out), "--format", "labelstudio"]) == 0
    folder = out / "review" / "labelstudio"
    created = studio.call(
        "POST",
        "/api/projects",
        json={
            "title": "fidelity review",
            "label_config": (folder / "label_config.xml").read_text(),
            "maximum_annotations": 2,
        },
    )
    imported = studio.call(
        "POST",
        f"/api/projects/{created['id']}/import",
        content=(folder / "tasks.json").read_bytes(),
        headers={"Content-Type": "application/json"},
    )
    order = {task.id: number for number, task in enumerate(tasks_of(out))}
    assert imported["task_count"] == len(order)
    listed = studio.call(
        "GET", "/api/tasks", params={"project": created["id"], "page_size": 10_000}
    )["tasks"]
    users = [
        studio.call("POST", "/api/users/", json={**who, "password": "pw-12345678"})
        for who in ANNOTATORS
    ]
    for task in listed:
        number = order[task["data"]["task_id"]]
        for person, user in enumerate(users, start=1):
            studio.call(
                "POST",
                f"/api/tasks/{task['id']}/annotations/",
                json={
                    "result": labelstudio_result(
                        answers(number, person), task["data"]["evidence_text"]
                    ),
                    "completed_by": user["id"],
                },
            )
    return {"out": out, "id": created["id"], "tasks": listed, "users": users, "count": len(order)}


def test_label_studio_export_imports_with_annotators_named_by_email(
    studio: LabelStudio, project: dict[str, Any], tmp_path: Path
) -> None:
    out, count = project["out"], project["count"]
    exported = tmp_path / "label-studio-export.json"
    exported.write_text(json.dumps(studio.snapshot_export(project["id"])))
    assert cli(["review", "import", str(out), str(exported)]) == 0

    labels = [
        json.loads(line) for line in (out / "review" / "labels.jsonl").read_text().splitlines()
    ]
    assert len(labels) == 2 * count
    assert {label["annotator"] for label in labels} == {who["email"] for who in ANNOTATORS}
    agreed, split = expected_states(count)
    report = (out / "review" / "report.md").read_text()
    assert f"{agreed} agreed" in report and f"{split} adjudicate" in report
    dataset = [json.loads(line) for line in (out / "dataset.jsonl").read_text().splitlines()]
    assert len(dataset) == expected_dataset(count)
    first = next(row for row in dataset if row["id"] == tasks_of(out)[0].id)
    assert first["query"] == "Revised question 0?"
    assert first["provenance"]["revision"]["by"] == sorted(who["email"] for who in ANNOTATORS)
    adjudication = json.loads(
        (out / "review" / "adjudication" / "labelstudio" / "tasks.json").read_text()
    )
    assert len(adjudication) == split
    assert "ada@example.com: correct=" in adjudication[0]["data"]["previous"]

    # The plain export (GET .../export) names annotators by user id only.
    plain = tmp_path / "plain-export.json"
    plain.write_text(
        json.dumps(
            studio.call(
                "GET", f"/api/projects/{project['id']}/export", params={"exportType": "JSON"}
            )
        )
    )
    _, read, _ = formats.read(plain)
    ids = {f"labelstudio user {user['id']}" for user in project["users"]}
    assert {label.annotator for label in read} == ids

    # Adjudication: a second project from the adjudication export, one answer per task.
    folder = out / "review" / "adjudication" / "labelstudio"
    judged = studio.call(
        "POST",
        "/api/projects",
        json={
            "title": "fidelity adjudication",
            "label_config": (folder / "label_config.xml").read_text(),
            "maximum_annotations": 1,
        },
    )
    studio.call(
        "POST",
        f"/api/projects/{judged['id']}/import",
        content=(folder / "tasks.json").read_bytes(),
        headers={"Content-Type": "application/json"},
    )
    judge = studio.call("POST", "/api/users/", json={**JUDGE, "password": "pw-12345678"})
    decision = {"correct": "yes", "evidence_located": "yes", "quality": 5}
    decision |= {"revised_question": "", "revised_answer": []}
    for task in studio.call(
        "GET", "/api/tasks", params={"project": judged["id"], "page_size": 10_000}
    )["tasks"]:
        studio.call(
            "POST",
            f"/api/tasks/{task['id']}/annotations/",
            json={
                "result": labelstudio_result(decision, task["data"]["evidence_text"]),
                "completed_by": judge["id"],
            },
        )
    decided = tmp_path / "adjudication-export.json"
    decided.write_text(json.dumps(studio.snapshot_export(judged["id"])))
    assert cli(["review", "import", str(out), str(decided)]) == 0
    report = (out / "review" / "report.md").read_text()
    assert f"{agreed} agreed" in report and f"{split} adjudicated" in report
    dataset = [json.loads(line) for line in (out / "dataset.jsonl").read_text().splitlines()]
    assert len(dataset) == expected_dataset(count) + split
    second = next(row for row in dataset if row["id"] == tasks_of(out)[2].id)
    assert second["provenance"]["review"]["adjudication"]["annotator"] == JUDGE["email"]
    assert second["provenance"]["revision"] is None  # one annotator's edit, not adjudicated


def test_a_task_with_a_picture_shows_it_to_annotators(
    studio: LabelStudio, project: dict[str, Any], tmp_path: Path
) -> None:
    task = next(t for t in project["tasks"] if t["data"]["image"].startswith("data:image/png"))
    assert "<img" not in task["data"]["evidence_html"]
    url = f"{studio.url}/projects/{project['id']}/data?task={task['id']}"
    picture = Image.open(io.BytesIO(base64.b64decode(task["data"]["image"].split(",", 1)[1])))
    with launched_chromium() as browser:
        png, box = screenshot(browser, url, studio.session_cookies(), picture.size)
        # A task without a picture shows the small "no picture" image, not a broken one.
        bare = next(t for t in project["tasks"] if t["data"]["image"].startswith("data:image/svg"))
        bare_url = f"{studio.url}/projects/{project['id']}/data?task={bare['id']}"
        _, bare_box = screenshot(
            browser, bare_url, studio.session_cookies(), (320, 40), smallest=(100, 20)
        )
    (tmp_path / "task.png").write_bytes(png)
    assert box is not None, "the task's picture is not shown in the labeling view"
    page = Image.open(io.BytesIO(png)).convert("RGB")
    left, top = int(box["x"]), int(box["y"])
    region = page.crop((left, top, left + int(box["width"]), top + int(box["height"])))
    assert region.width > 100 and region.height > 50
    colours = region.getcolors(maxcolors=1 << 16)
    assert colours is None or len(colours) > 1, "the picture region is a single colour"
    assert max(high - low for low, high in region.getextrema()) > 64
    assert bare_box is not None and bare_box["width"] >= 100, "the no-picture image is not shown"
