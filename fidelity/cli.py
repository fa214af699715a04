"""The `fidelity` command line: extract, build, explain."""

from __future__ import annotations

import argparse
import gc
import importlib
import importlib.util
import json
import os
import sys
import tempfile
import typing
from collections.abc import Iterator
from pathlib import Path

from extractors import ExtractionError
from fidelity.core.config import Config, parse_size
from fidelity.core.hashing import file_sha256
from fidelity.core.mistake import Mistake
from fidelity.core.store import RunStore, open_store
from fidelity.explain import explain
from fidelity.filework import open_document
from fidelity.inputs import (
    build_config,
    check_inputs,
    check_office_files,
    check_out,
    check_stage_tables,
    run_config,
    stored_record,
)
from fidelity.outlock import OutputBusy
from fidelity.pipeline import build
from fidelity.quality import headline as quality_headline
from ingest.discover import discover
from ingest.prepare import NotReadable

# Commands that read the run in OUT (and use the configuration it stored), and those that
# write OUT from input files.
READS_RUN = {"coverage", "regen", "report", "explain", "review"}
MAKES_RUN = {"build", "ingest"}
# The exit status of a process stopped by a closed pipe (128 + SIGPIPE), as `cat | head` gives.
BROKEN_PIPE_STATUS = 141


def cmd_extract(args: argparse.Namespace, config: Config) -> int:
    # What is loaded now lives as long as the command: keep it out of the collector's full
    # passes, which otherwise took a fifth of the time of extracting the Excel corpus.
    gc.freeze()
    status = 0
    with tempfile.TemporaryDirectory(prefix="fidelity-extract-") as work:
        for path in discover(args.files):
            status = max(status, _print_document(path, Path(work), args, config))
    return status


def _print_document(path: Path, work: Path, args: argparse.Namespace, config: Config) -> int:
    """One file's Document as JSON (or its error); 1 when it could not be read."""
    try:
        sha256 = file_sha256(path)
        media = args.media / sha256[:16] if args.media else None
        document = open_document(path, work, sha256, media, config.max_file_mb)
    except (NotReadable, ExtractionError, OSError) as error:
        print(json.dumps({"file": str(path), "error": str(error)}), flush=True)
        return 1
    payload = document.model_dump(mode="json")
    print(json.dumps(payload, ensure_ascii=False, indent=None if args.json else 2), flush=True)
    return 0


def size_argument(text: str) -> str:
    """A memory size as given (4GB, 512MB...), checked now rather than when workers start."""
    try:
        parse_size(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def cmd_build(args: argparse.Namespace, config: Config) -> int:
    if args.model:
        config.models.model = args.model
    if args.no_retry_failed:
        config.models.retry_failed = False
    for name in ("workers", "file_timeout", "worker_memory"):
        if getattr(args, name) is not None:
            setattr(config, name, getattr(args, name))
    config.executor = args.executor or config.executor
    config.ray_address = args.address or config.ray_address
    config.ship_files = args.ship_files or config.ship_files
    if config.executor == "ray" and importlib.util.find_spec("ray") is None:
        raise Mistake("--executor ray needs Ray: pip install 'fidelity[ray]'")
    out = Path(args.out)
    earlier = stored_record(out)
    if earlier is not None and (changed := config.changes_from(earlier["settings"])):
        shown = ", ".join(changed[:6]) + (
            f" and {len(changed) - 6} more" if len(changed) > 6 else ""
        )
        print(f"config: changed since the last build of {out}: {shown}", file=sys.stderr)
    try:
        summary = build(args.inputs, out, config)
    except OutputBusy as error:
        print(f"fidelity build: {error}", file=sys.stderr)
        return 1
    for line in closing_lines(summary, out, resumed=earlier is not None):
        print(line)
    return 0


def closing_lines(summary: dict, out: Path, resumed: bool) -> Iterator[str]:
    """What a build says at its end: counts, then where to look next."""
    if resumed and not summary["files_acted_on"]:
        yield f"nothing new to do: every input file was processed by an earlier build of {out}"
    yield (
        f"{summary['accepted']} questions kept ({summary['unverified']} of them unverified), "
        f"{summary['rejected']} rejected, {summary['incomplete']} incomplete, "
        f"{summary['skipped']} files skipped -> {out}"
    )
    yield f"funnel: {summary['funnel']}"
    yield f"quality: {quality_headline(summary['quality'])}"
    if summary["skipped"]:
        listed = out / "skipped.jsonl"
        yield f"skipped: {summary['skipped']} files, each with its reason in {listed}"
    yield f"report: {out / 'report.html'}"


def check_explained(args: argparse.Namespace) -> None:
    """The file to explain exists and is one the run in OUT has."""
    check_inputs([Path(args.file)])
    store = open_store(Path(args.out))
    try:
        if store.file_status(file_sha256(Path(args.file))) is None:
            raise Mistake(f"{args.file} is not in the run in {args.out}")
    finally:
        store.close()


def why_none(store: RunStore, sha: str) -> str:
    """Why a file of the run has no candidates: the reason it was skipped (curation dropped it,
    or it could not be read), else that its artifacts gave none."""
    entry = next((entry for entry in store.files() if entry["sha256"] == sha), None)
    if entry and entry["status"] == "skipped":
        code = entry["info"].get("reason_code")
        return f"it was skipped ({code}): {entry['reason']}" if code else entry["reason"]
    return "it was processed and no generator drew a candidate from its artifacts"


def cmd_explain(args: argparse.Namespace, config: Config) -> int:
    sha = file_sha256(Path(args.file))
    store = open_store(Path(args.out))
    try:
        if not store.candidates(file_sha=sha):
            why = why_none(store, sha)
            print(f"no candidates stored for {args.file} in {args.out}: {why}", file=sys.stderr)
            return 1
        return explain(
            store,
            sha,
            Path(args.out),
            config,
            question=args.question,
            diff=args.diff,
            replay=args.replay,
        )
    finally:
        store.close()


# Modules that add their own subcommands: each has `register(subparsers)` setting `run`.
COMMAND_MODULES: list[str] = [
    "ingest.cli",
    "fidelity.coverage_cli",
    "fidelity.review.cli",
    "fidelity.report.cli",
]


class Parser(argparse.ArgumentParser):
    """Usage mistakes in one line too, pointing to --help instead of printing the usage."""

    def error(self, message: str) -> typing.NoReturn:
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def parser() -> argparse.ArgumentParser:
    main = Parser(prog="fidelity", description=__doc__)
    main.add_argument("--config", type=Path, help="TOML configuration (default ./fidelity.toml)")
    sub = main.add_subparsers(dest="command", required=True)

    extract = sub.add_parser("extract", help="print the Document of each file as JSON")
    extract.add_argument("files", nargs="+", type=Path)
    extract.add_argument("--json", action="store_true", help="one JSON document per line")
    extract.add_argument(
        "--media",
        "--media-dir",
        type=Path,
        default=None,
        help="write media files under DIR (default: none)",
    )
    extract.set_defaults(run=cmd_extract)

    build_cmd = sub.add_parser("build", help="run every stage over a folder")
    build_cmd.add_argument("inputs", nargs="+", type=Path)
    build_cmd.add_argument("-o", "--out", required=True)
    build_cmd.add_argument(
        "--model", help="model mode with this model (default: [models] model, else offline)"
    )
    build_cmd.add_argument(
        "--no-retry-failed",
        action="store_true",
        help="keep earlier failed or budget-skipped model checks (candidates stay incomplete)",
    )
    build_cmd.add_argument(
        "--workers", type=int, help="worker processes for per-file work (default: one per core)"
    )
    build_cmd.add_argument(
        "--file-timeout", type=float, help="seconds one file may take (default 300; 0: no limit)"
    )
    build_cmd.add_argument(
        "--worker-memory",
        type=size_argument,
        help="memory a task may add to its worker, e.g. 4GB (the default) or 512MB; 0: none",
    )
    build_cmd.add_argument(
        "--executor",
        choices=("process", "ray"),
        help="where per-file work runs: local worker processes (default) or Ray tasks",
    )
    build_cmd.add_argument(
        "--address", help="with --executor ray: the cluster to join (default: a local Ray)"
    )
    build_cmd.add_argument(
        "--ship-files",
        action="store_true",
        help="with --executor ray: send file bytes to workers (no shared filesystem)",
    )
    build_cmd.set_defaults(run=cmd_build)

    explain = sub.add_parser("explain", help="show every check behind each candidate of a file")
    explain.add_argument("file")
    explain.add_argument("-o", "--out", required=True)
    explain.add_argument("--question", help="only this candidate id")
    explain.add_argument(
        "--replay",
        action="store_true",
        help="re-run the filters from the stored document and recorded model calls only; "
        "exit 1 if any decision differs",
    )
    explain.add_argument(
        "--diff", action="store_true", help="show what each view removed from the full document"
    )
    explain.set_defaults(run=cmd_explain, check=check_explained)

    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    for command in _commands(main):
        command.add_argument(
            "--config",
            type=Path,
            default=argparse.SUPPRESS,
            help="TOML configuration (default: the run's stored one for a command reading OUT, "
            "else ./fidelity.toml)",
        )
    return main


def _commands(command: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    """Every subcommand's parser, at any depth (`review import` too)."""
    for action in command._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                yield child
                yield from _commands(child)


def configure(args: argparse.Namespace) -> Config:
    """Check what the command is given and choose its configuration (saying which), before
    anything is written."""
    given = args.config
    if args.command in READS_RUN:
        config, said = run_config(Path(args.out), given)
    elif args.command in MAKES_RUN:
        check_inputs(args.inputs)
        check_out(Path(args.out))
        for note in check_office_files(args.inputs):
            print(f"fidelity {args.command}: {note}", file=sys.stderr)
        config, said = build_config(Path(args.out), given)
    else:
        check_inputs(args.files)
        return Config.load(given)
    check_stage_tables(config)
    if check := getattr(args, "check", None):
        check(args)
    print(said, file=sys.stderr)
    return config


def run(argv: list[str] | None) -> int:
    args = parser().parse_args(argv)
    try:
        return args.run(args, configure(args))
    except Mistake as mistake:
        name = " ".join(
            filter(None, ["fidelity", args.command, getattr(args, "review_command", None)])
        )
        for problem in mistake.problems:
            print(f"{name}: {problem}", file=sys.stderr)
        return 2


def main(argv: list[str] | None = None) -> int:
    """Run a command; a mistake is a line per problem and status 2; a closed pipe (`| head`)
    ends it quietly."""
    try:
        status = run(argv)
        sys.stdout.flush()  # a reader gone shows here, not in the flush at exit
        return status
    except BrokenPipeError:
        # Nothing more can reach the reader; what is left to flush goes nowhere.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return BROKEN_PIPE_STATUS


if __name__ == "__main__":
    sys.exit(main())
