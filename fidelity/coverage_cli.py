"""`fidelity coverage OUT` and `fidelity regen OUT`: look at coverage against targets, raise it.

The CLI checks first that OUT holds a run and reads the configuration the run stored.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from fidelity import coverage
from fidelity.core.apps import APP_NAMES
from fidelity.core.config import Config
from fidelity.core.store import open_store
from fidelity.outlock import OutputBusy
from fidelity.regen import describe, regen


def cmd_coverage(args: argparse.Namespace, config: Config) -> int:
    store = open_store(Path(args.out))
    try:
        text = coverage.markdown(store, config.coverage, only_short=args.below)
    finally:
        store.close()
    print(text)
    return 0


def cmd_regen(args: argparse.Namespace, config: Config) -> int:
    out = Path(args.out)
    try:
        reports = regen(out, config, args.app, args.category, args.target)
    except (ValueError, OutputBusy) as error:
        print(f"fidelity regen: {error}", file=sys.stderr)
        return 2
    print(describe(reports))
    print(f"report: {out / 'report.html'}")
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
