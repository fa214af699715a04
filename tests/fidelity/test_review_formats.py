"""Review files as their tools load them: the Argilla SDK, the workbook's checks and printing."""

from __future__ import annotations

import json
import shutil
import threading
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import openpyxl
import pytest
from openpyxl.utils import get_column_letter
from openpyxl.utils.cell import range_boundaries
from openpyxl.worksheet.datavalidation import DataValidation

from fidelity.cli import main as cli
from tests.support.review_support import FILL, build_run, tasks_of

pytestmark = pytest.mark.slow  # whole builds: not in make test-quick


@pytest.fixture(scope="module")
def built(corpus: Path, tmp_path_factory: pytest.TempPathFactory, run_folder: Path) -> Path:
    return build_run(corpus, tmp_path_factory.mktemp("review-formats"), run_folder)


@pytest.fixture
def run(built: Path, tmp_path: Path) -> Path:
    out = tmp_path / "out"
    shutil.copytree(built, out)
    return out


class LoginOnly(BaseHTTPRequestHandler):
    """Answers the one call the Argilla SDK makes when a client is created (`GET /api/v1/me`).

    The SDK's `Settings.from_json` and `Record.from_dict` need a default client, and a
    client checks its login on creation; the Argilla server itself (with its search
    engine) is not run here. Every other request is recorded and refused.
    """

    calls: list[str] = []

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        self.calls.append(self.path)
        if self.path != "/api/v1/me":
            self.send_error(404)
            return
        body = json.dumps({"id": str(uuid.uuid4()), "username": "curator", "role": "owner"})
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(body.encode())

    def log_message(self, *args: object) -> None:
        return


@pytest.fixture(scope="module")
def argilla_client() -> Iterator[object]:
    import argilla as rg

    server = ThreadingHTTPServer(("127.0.0.1", 0), LoginOnly)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield rg.Argilla(api_url=f"http://127.0.0.1:{server.server_port}", api_key="test-key")
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.mark.needs("argilla")
def test_argilla_sdk_loads_the_settings_and_records(
    run: Path, tmp_path: Path, argilla_client: object
) -> None:
    import argilla as rg

    assert cli(["review", "export", str(run), "--format", "argilla"]) == 0
    folder = run / "review" / "argilla"
    settings = rg.Settings.from_json(folder / "settings.json")
    assert settings.distribution.min_submitted == 2
    names = {question.name for question in settings.questions}
    assert {"correct", "evidence_located", "quality", "evidence_mark"} <= names
    assert {"revised_question", "revised_answer"} <= names
    assert {field.name for field in settings.fields} >= {"question", "answer", "image"}

    records = json.loads((folder / "records.json").read_text())
    tasks = tasks_of(run)
    loaded = [rg.Record.from_dict(record) for record in records]
    assert [record.metadata["task_id"] for record in loaded] == [task.id for task in tasks]
    assert loaded[0].fields["question"] == tasks[0].question
    assert any(str(record.fields.get("image", "")).startswith("data:image/") for record in loaded)

    # Two annotators' responses (Argilla user ids are UUIDs), through the SDK and back in.
    users = [str(uuid.uuid4()), str(uuid.uuid4())]
    for record in records:
        record["responses"] = {
            question: [{"value": value, "user_id": user, "status": "submitted"} for user in users]
            for question, value in (("correct", "yes"), ("evidence_located", "yes"), ("quality", 4))
        }
    # What `dataset.records.to_json` / `Dataset.to_disk` write: each record's to_dict().
    exported = tmp_path / "argilla-export.json"
    written = [rg.Record.from_dict(record).to_dict() for record in records]
    exported.write_text(json.dumps(written, default=str))
    assert sorted(r["user_id"] for r in written[0]["responses"]["quality"]) == sorted(users)
    assert cli(["review", "import", str(run), str(exported)]) == 0
    dataset = (run / "dataset.jsonl").read_text().splitlines()
    assert len(dataset) == len(tasks)
    assert LoginOnly.calls and set(LoginOnly.calls) == {"/api/v1/me"}


def test_workbook_rejects_other_values_freezes_the_header_and_prints_at_full_size(
    run: Path, tmp_path: Path
) -> None:
    assert cli(["review", "export", str(run), "--format", "xlsx"]) == 0
    path = run / "review" / "xlsx" / "annotator-1.xlsx"
    sheet = openpyxl.load_workbook(path)["tasks"]
    header = [cell.value for cell in sheet[1]]
    letter = {name: get_column_letter(header.index(name) + 1) for name in header}
    rows = sheet.max_row
    assert rows == len(tasks_of(run)) + 1

    rules = {rule.type: rule for rule in sheet.data_validations.dataValidation}
    assert set(rules) == {"list", "whole"}
    for rule in rules.values():
        assert rule.errorStyle == "stop" and rule.showErrorMessage
        assert rule.error and rule.errorTitle
    assert rules["list"].formula1 == '"yes,no"'
    assert (rules["whole"].operator, rules["whole"].formula1, rules["whole"].formula2) == (
        "between",
        "1",
        "5",
    )
    for name, rule in (("correct", "list"), ("evidence located", "list"), ("quality", "whole")):
        cells = {f"{letter[name]}{row}" for row in range(2, rows + 1)}
        assert cells <= coordinates(rules[rule]), name
    assert sheet.freeze_panes == "B2"

    # Never shrunk to fit a page (the text would print too small to read): full size, the
    # header row and the task id repeated on every page; `questions` is A4 portrait.
    book = openpyxl.load_workbook(path)
    for name, orientation in (("tasks", "landscape"), ("questions", "portrait")):
        setup = book[name].page_setup
        assert (setup.orientation, setup.paperSize, setup.scale) == (orientation, 9, 100)
        assert not book[name].sheet_properties.pageSetUpPr.fitToPage
    assert sheet.print_title_rows == "$1:$1"

    # The filled-in workbook still imports (the answer columns took the typed values).
    filled = FILL["xlsx"](run / "review" / "xlsx", tmp_path)
    assert cli(["review", "import", str(run), *map(str, filled)]) == 0


def coordinates(rule: DataValidation) -> set[str]:
    """Every cell a validation rule covers."""
    found = set()
    for ref in rule.sqref.ranges:
        low_col, low_row, high_col, high_row = range_boundaries(str(ref))
        for column in range(low_col, high_col + 1):
            found |= {f"{get_column_letter(column)}{row}" for row in range(low_row, high_row + 1)}
    return found
