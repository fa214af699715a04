"""`fidelity report OUT`: write OUT/report.html again from the run store."""

from __future__ import annotations

import argparse
from pathlib import Path

from fidelity.core.config import Config
from fidelity.core.store import open_store
from fidelity.report.page import write_report


def cmd_report(args: argparse.Namespace, config: Config) -> int:
    out = Path(args.out)  # the CLI checked that it holds a run
    store = open_store(out)
    try:
        path = write_report(store, out, config.coverage)
    finally:
        store.close()
    print(path)
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    report = subparsers.add_parser(
        "report", help="write OUT/report.html (coverage, funnel, questions, files) from the store"
    )
    report.add_argument("out", help="the build's output folder")
    report.set_defaults(run=cmd_report)
