"""What a command is given, checked before it makes anything: inputs, the output folder, the
configuration it runs with (a file, or the one a run stored)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from fidelity.core.config import STORED_KEY, Config
from fidelity.core.mistake import Mistake
from fidelity.core.store import STORE_NAME, open_store
from ingest.discover import discover
from ingest.settings import IngestSettings
from ingest.sniff import OFFICE_EXTENSIONS, sniff


def check_inputs(inputs: Sequence[Path]) -> None:
    """Every input exists (one problem line per missing one)."""
    missing = [f"no such file or folder: {path}" for path in inputs if not path.exists()]
    if missing:
        raise Mistake(*missing)


def is_office(path: Path) -> bool:
    """An Office file by its extension, else by its content."""
    return path.suffix.lower().lstrip(".") in OFFICE_EXTENSIONS or sniff(path).app is not None


def check_office_files(inputs: Sequence[Path]) -> list[str]:
    """A note for each input folder with no Office file in it; a Mistake when no input has one."""
    notes = []
    for folder in (path for path in inputs if path.is_dir()):
        files = discover([folder])
        if not any(is_office(path) for path in files):
            others = f" ({len(files)} other file{'s' * (len(files) != 1)})" if files else ""
            notes.append(f"no Office files in {folder}{others}")
    if len(notes) == len(inputs):
        raise Mistake(*notes)
    return notes


def check_out(out: Path) -> None:
    """The output folder is a folder (new, or one an earlier run made)."""
    if out.exists() and not out.is_dir():
        raise Mistake(f"{out} is a file; -o/--out needs a folder (a new one or an earlier run's)")


def check_run(out: Path) -> None:
    """`out` holds a run."""
    if not (out / STORE_NAME).is_file():
        raise Mistake(f"no run in {out} (make one with `fidelity build INPUT... -o {out}`)")


def stored_record(out: Path) -> dict[str, Any] | None:
    """The configuration record the last build of `out` stored, if any."""
    if not (out / STORE_NAME).is_file():
        return None
    store = open_store(out)
    try:
        return store.meta(STORED_KEY)
    finally:
        store.close()


def run_config(out: Path, given: Path | None) -> tuple[Config, str]:
    """The configuration for a command reading the run in `out`: the file given, else the one
    the run stored, else ./fidelity.toml or the defaults (runs older than stored settings);
    with a line saying which."""
    check_run(out)
    if given is not None:
        config = Config.load(given)
        return config, f"config: {config.described} (given; the run's own is in {out})"
    record = stored_record(out)
    if record is None:
        config = Config.load()
        return config, f"config: {config.described} ({out} stored none)"
    config = Config.from_stored(record, f"the configuration stored in {out}")
    return config, f"config: the run's, from {config.described}"


def build_config(out: Path, given: Path | None) -> tuple[Config, str]:
    """The configuration for a build into `out`: the file given, else ./fidelity.toml, else the
    one an earlier build of `out` stored (a resume from elsewhere), else the defaults."""
    config = Config.load(given)
    if given is None and not config.source:
        record = stored_record(out)
        if record is not None:
            config = Config.from_stored(record, f"the configuration stored in {out}")
            return config, f"config: the run's, from {config.described} (stored in {out})"
    return config, f"config: {config.described}"


def check_stage_tables(config: Config) -> None:
    """The tables a stage reads itself ([ingest]), checked before anything runs."""
    IngestSettings.from_config(config)
