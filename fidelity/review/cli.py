"""`fidelity review export|import`: the human review round trip from the command line."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from fidelity.core.config import Config
from fidelity.core.store import STORE_NAME
from fidelity.review.formats import FORMATS
from fidelity.review.labels import ReviewFileError
from fidelity.review.roundtrip import export_review, import_review

NEXT_STEP = {
    "labelstudio": "create a Label Studio project with label_config.xml (overlap: 2 "
    "annotations per task), import tasks.json; when done, export a JSON snapshot "
    "(annotators by e-mail; README 'Human review') and run `fidelity review import`",
    "argilla": "create an Argilla dataset with rg.Settings.from_json('settings.json') (it "
    "asks for 2 submissions per record), log records.json (rg.Record.from_dict); "
    "export with dataset.records.to_json and run `fidelity review import`",
    "xlsx": "send one workbook to each annotator; run `fidelity review import` on the "
    "filled-in workbooks",
    "jsonl": "give one file to each annotator to fill the `labels` of every line; run "
    "`fidelity review import` on the filled-in files",
}


def cmd_export(args: argparse.Namespace, config: Config) -> int:
    out = Path(args.out)
    if not (out / STORE_NAME).is_file():
        print(f"no run store in {out}", file=sys.stderr)
        return 1
    paths = export_review(out, args.format)
    for path in paths:
        print(path)
    print(f"next: {NEXT_STEP[args.format]}", file=sys.stderr)
    return 0


def cmd_import(args: argparse.Namespace, config: Config) -> int:
    out = Path(args.out)
    if not (out / STORE_NAME).is_file():
        print(f"no run store in {out}", file=sys.stderr)
        return 1
    try:
        result = import_review(
            out,
            args.files,
            args.min_quality,
            args.human_ok,
            args.adjudication_format,
            args.allow_unknown,
            config,
        )
    except ReviewFileError as error:
        print(
            f"fidelity review import: nothing stored; {len(error.problems)} problem(s):",
            file=sys.stderr,
        )
        for problem in error.problems:
            print(f"  {problem}", file=sys.stderr)
        return 2
    except (ValueError, KeyError, OSError) as error:
        print(f"fidelity review import: nothing stored: {error}", file=sys.stderr)
        return 2
    if result.unknown:
        print(f"skipped {len(result.unknown)} answers to unknown tasks:", file=sys.stderr)
        for line in result.unknown:
            print(f"  {line}", file=sys.stderr)
    for entry in result.added:
        reason = f" ({entry.reason})" if entry.reason else ""
        print(
            f"hand-written item {entry.item.where} of {entry.item.source}: {entry.app}/"
            f"{entry.category}, {entry.status}{reason} [{entry.candidate_id}]; the cell "
            f"has {entry.cell_kept} of {entry.cell_target} kept"
        )
    states = ", ".join(f"{n} {state}" for state, n in sorted(result.states.items()))
    print(f"{result.labels} answers; tasks: {states}")
    for figure in result.agreement:
        kappa = "n/a" if figure.kappa is None else f"{figure.kappa:.2f}"
        percent = "n/a" if figure.percent is None else f"{figure.percent:.0%}"
        print(f"  {figure.field}: {percent} agreement, kappa {kappa} ({figure.n} tasks)")
    for path in result.adjudication_files:
        print(f"to adjudicate: {path}")
    if result.calibration is not None:
        print(f"grader: suggested threshold {result.calibration.suggested}")
    print(f"{result.dataset} questions -> {out / 'dataset.jsonl'} ({result.dropped} dropped)")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    review = subparsers.add_parser("review", help="export tasks for annotators, import answers")
    actions = review.add_subparsers(dest="review_command", required=True)

    export = actions.add_parser("export", help="write review tasks for annotators")
    export.add_argument("out", help="the build's output folder")
    export.add_argument("--format", choices=sorted(FORMATS), default="jsonl")
    export.set_defaults(run=cmd_export)

    imported = actions.add_parser(
        "import", help="read annotators' (or the adjudicator's) answers, write the dataset"
    )
    imported.add_argument("out", help="the build's output folder")
    imported.add_argument("files", nargs="+", type=Path, help="files in any supported format")
    imported.add_argument(
        "--min-quality", type=float, default=1.0, help="drop questions rated below this (1-5)"
    )
    imported.add_argument(
        "--human-ok", type=float, default=3.0, help="quality at which humans keep a question"
    )
    imported.add_argument(
        "--adjudication-format",
        choices=sorted(FORMATS),
        help="format of the adjudication export (default: that of the first file)",
    )
    imported.add_argument(
        "--allow-unknown",
        action="store_true",
        help="import the answers to known tasks and list those to tasks this run does not have",
    )
    imported.set_defaults(run=cmd_import)
