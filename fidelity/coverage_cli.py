"""`fidelity coverage OUT` and `fidelity regen OUT`: look at coverage against targets, raise it."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from fidelity import coverage
from fidelity.core.apps import APP_NAMES
from fidelity.core.config import Config
from fidelity.core.store import STORE_NAME, open_store
from fidelity.outlock import OutputBusy
from fidelity.regen import describe, regen


def _run_folder(out: str) -> Path | None:
    path = Path(out)
    if not (path / STORE_NAME).is_file():
        print(f"no run store in {path} (run `fidelity build ... -o {path}` first)", file=sys.stderr)
        return None
    return path


def cmd_coverage(args: argparse.Namespace, config: Config) -> int:
    out = _run_folder(args.out)
    if out is None:
        return 1
    store = open_store(out)
    try:
        text = coverage.markdown(store, config.coverage, only_short=args.below)
    finally:
        store.close()
    print(text)
    return 0


def cmd_regen(args: argparse.Namespace, config: Config) -> int:
    out = _run_folder(args.out)
    if out is None:
        return 1
    try:
        reports = regen(out, config, args.app, args.category, args.target)
    except (ValueError, OutputBusy) as error:
        print(f"fidelity regen: {error}", file=sys.stderr)
        return 2
    print(describe(reports))
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    show = subparsers.add_parser(
        "coverage", help="kept / target / gap and unused artifacts per application × category"
    )
    show.add_argument("out", help="the build's output folder")
    show.add_argument("--below", action="store_true", help="only cells below their target")
    show.set_defaults(run=cmd_coverage)

    more = subparsers.add_parser(
        "regen", help="generate and filter new candidates for cells below their target"
    )
    more.add_argument("out", help="the build's output folder")
    more.add_argument("--app", choices=APP_NAMES)
    more.add_argument("--category", help="a taxonomy category, e.g. Comment or Section")
    more.add_argument(
        "--target", type=int, help="wanted kept questions for the selected cells (remembered)"
    )
    more.set_defaults(run=cmd_regen)
