"""Helpers for the review tests: a built run, a known pattern of answers, each format filled in."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import openpyxl
from filelock import FileLock

from fidelity.core.config import Config
from fidelity.core.store import open_store
from fidelity.pipeline import build
from fidelity.review.tasks import Task, build_tasks

FILES = (("word", "memo.docx"), ("powerpoint", "basic.pptx"))


def build_run(corpus: Path, base: Path, run_folder: Path) -> Path:
    """A build of a Word memo and a PowerPoint deck (with slide renders) under `base/out`: a copy
    of the one build made per test run in `run_folder` (each test module changes its copy)."""
    made = run_folder / "review-build"
    with FileLock(f"{made}.lock"):
        if not (made / "out" / "questions.jsonl").is_file():
            shutil.rmtree(made, ignore_errors=True)
            inputs = made / "in"
            inputs.mkdir(parents=True)
            for folder, name in FILES:
                shutil.copy(corpus / folder / name, inputs / name)
            build([inputs], made / "out", Config())
    out = base / "out"
    shutil.copytree(made / "out", out, symlinks=True)
    return out


def answers(index: int, person: int) -> dict:
    """What annotator 1 or 2 says about task number `index` (a known pattern of splits)."""
    correct = not (person == 2 and index % 4 == 1)
    quality = 4 if person == 1 or index % 5 != 2 else 1
    located = index % 7 != 3
    revised = index == 0 or index == 2 and person == 1  # task 2 is split anyway
    return {
        "correct": "yes" if correct else "no",
        "evidence_located": "yes" if located else "no",
        "quality": quality,
        "mark": f"mark {index}",
        "revised_question": f"Revised question {index}?" if revised else "",
        "revised_answer": [f"Revised statement {index}.", "Second statement."] if revised else [],
    }


def expected_states(count: int) -> tuple[int, int]:
    """(agreed, to adjudicate) under `answers`."""
    split = [i for i in range(count) if i % 4 == 1 or i % 5 == 2]
    return count - len(split), len(split)


def expected_dataset(count: int) -> int:
    return sum(1 for i in range(count) if not (i % 4 == 1 or i % 5 == 2) and i % 7 != 3)


# ---- filling each format the way its tool (or a person) would ----------------------------


def _ls_revision(given: dict) -> list[dict]:
    """Label Studio TextArea results for a revision (none when the person kept the task)."""
    if not given["revised_question"]:
        return []
    return [
        {
            "from_name": "revised_question",
            "to_name": "question",
            "type": "textarea",
            "value": {"text": [given["revised_question"]]},
        },
        {
            "from_name": "revised_answer",
            "to_name": "answer",
            "type": "textarea",
            "value": {"text": ["\n".join(given["revised_answer"])]},
        },
    ]


def labelstudio_result(given: dict, evidence: str) -> list[dict]:
    """One annotator's answers as Label Studio results for the exported labeling config."""
    return [
        {
            "from_name": "correct",
            "to_name": "question",
            "type": "choices",
            "value": {"choices": [given["correct"]]},
        },
        {
            "from_name": "evidence_located",
            "to_name": "question",
            "type": "choices",
            "value": {"choices": [given["evidence_located"]]},
        },
        {
            "from_name": "quality",
            "to_name": "question",
            "type": "rating",
            "value": {"rating": given["quality"]},
        },
        *_ls_revision(given),
        {
            "from_name": "evidence_mark",
            "to_name": "evidence_text",
            "type": "labels",
            "value": {"start": 0, "end": 5, "text": evidence[:5], "labels": ["Evidence"]},
        },
    ]


def fill_labelstudio(folder: Path, target: Path) -> list[Path]:
    tasks = json.loads((folder / "tasks.json").read_text())
    exported = []
    for number, task in enumerate(tasks):
        annotations = []
        for person in (1, 2):
            given = answers(number, person)
            text = task["data"]["evidence_text"]
            annotations.append(
                {
                    "id": number * 10 + person,
                    "completed_by": person,
                    "was_cancelled": False,
                    "result": labelstudio_result(given, text),
                }
            )
        exported.append({"id": number + 1, "data": task["data"], "annotations": annotations})
    path = target / "labelstudio-export.json"
    path.write_text(json.dumps(exported))
    return [path]


def fill_argilla(folder: Path, target: Path) -> list[Path]:
    records = json.loads((folder / "records.json").read_text())
    for number, record in enumerate(records):
        responses: dict[str, list] = {}
        for person in (1, 2):
            given = answers(number, person)
            user = f"user-{person}"
            for question in ("correct", "evidence_located", "quality"):
                responses.setdefault(question, []).append(
                    {"value": given[question], "user_id": user}
                )
            if given["revised_question"]:
                for question in ("revised_question", "revised_answer"):
                    value = given[question]
                    value = "\n".join(value) if isinstance(value, list) else value
                    responses.setdefault(question, []).append({"value": value, "user_id": user})
            responses.setdefault("evidence_mark", []).append(
                {"value": [{"label": "Evidence", "start": 0, "end": 5}], "user_id": user}
            )
        record["responses"] = responses
    path = target / "argilla-export.json"
    path.write_text(json.dumps(records))
    return [path]


def fill_xlsx(folder: Path, target: Path) -> list[Path]:
    paths = []
    for person in (1, 2):
        book = openpyxl.load_workbook(folder / f"annotator-{person}.xlsx")
        sheet = book["tasks"]
        header = [cell.value for cell in sheet[1]]
        column = {name: header.index(name) + 1 for name in header}
        for row in range(2, sheet.max_row + 1):
            given = answers(row - 2, person)
            sheet.cell(row, column["annotator"]).value = f"reader {person}"
            sheet.cell(row, column["correct"]).value = given["correct"]
            sheet.cell(row, column["evidence located"]).value = given["evidence_located"]
            sheet.cell(row, column["quality"]).value = given["quality"]
            sheet.cell(row, column["evidence mark"]).value = given["mark"]
            sheet.cell(row, column["revised question"]).value = given["revised_question"] or None
            sheet.cell(row, column["revised answer"]).value = (
                "\n".join(given["revised_answer"]) or None
            )
        path = target / f"filled-{person}.xlsx"
        book.save(path)
        paths.append(path)
    return paths


def fill_jsonl(folder: Path, target: Path) -> list[Path]:
    paths = []
    for person in (1, 2):
        lines = []
        source = (folder / f"annotator-{person}.jsonl").read_text().splitlines()
        for number, line in enumerate(source):
            item = json.loads(line)
            given = answers(number, person)
            item["labels"].update(
                correct=given["correct"],
                evidence_located=given["evidence_located"],
                quality=given["quality"],
                evidence_mark=given["mark"],
                revised_question=given["revised_question"],
                revised_answer=given["revised_answer"],
            )
            lines.append(json.dumps(item))
        path = target / f"filled-{person}.jsonl"
        path.write_text("\n".join(lines) + "\n")
        paths.append(path)
    return paths


FILL = {
    "labelstudio": fill_labelstudio,
    "argilla": fill_argilla,
    "xlsx": fill_xlsx,
    "jsonl": fill_jsonl,
}


def tasks_of(out: Path) -> list[Task]:
    store = open_store(out)
    try:
        return build_tasks(store)
    finally:
        store.close()
