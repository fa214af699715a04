"""The `fidelity` command line: extract, build, explain."""

from __future__ import annotations

import argparse
import gc
import importlib
import importlib.util
import json
import sys
import tempfile
from pathlib import Path

from extractors import ExtractionError
from fidelity.core.config import Config, parse_size
from fidelity.core.hashing import file_sha256
from fidelity.core.store import open_store
from fidelity.explain import explain
from fidelity.outlock import OutputBusy
from fidelity.pipeline import build, load_document
from fidelity.quality import headline as quality_headline
from ingest.discover import discover
from ingest.prepare import NotReadable


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
        document = load_document(path, file_sha256(path), work, config, args.media)
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
        missing = "fidelity build: --executor ray needs Ray: pip install 'fidelity[ray]'"
        print(missing, file=sys.stderr)
        return 2
    try:
        summary = build(args.inputs, Path(args.out), config)
    except OutputBusy as error:
        print(f"fidelity build: {error}", file=sys.stderr)
        return 1
    print(
        f"{summary['accepted']} questions kept ({summary['unverified']} unverified), "
        f"{summary['rejected']} rejected, {summary['incomplete']} incomplete, "
        f"{summary['skipped']} files skipped -> {args.out}"
    )
    print(f"funnel: {summary['funnel']}")
    print(f"quality: {quality_headline(summary['quality'])}")
    return 0


def cmd_explain(args: argparse.Namespace, config: Config) -> int:
    store = open_store(Path(args.out))
    try:
        sha = file_sha256(Path(args.file))
        if not store.candidates(file_sha=sha):
            print(f"no candidates stored for {args.file} in {args.out}", file=sys.stderr)
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


def parser() -> argparse.ArgumentParser:
    main = argparse.ArgumentParser(prog="fidelity", description=__doc__)
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
        help="memory cap per worker, e.g. 4GB (the default) or 512MB; 0: none",
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
    explain.set_defaults(run=cmd_explain)

    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return main


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    config = Config.load(args.config)
    return args.run(args, config)


if __name__ == "__main__":
    sys.exit(main())
