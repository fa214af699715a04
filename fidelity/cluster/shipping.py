"""How a work item reaches a Ray worker and its outputs come back: shared paths or shipped bytes.

With a shared filesystem (the default) a task reads the input where the driver
sees it and writes media straight into OUT. With shipping, the driver puts the
bytes of the file a task reads into Ray's object store; the worker writes them to
a scratch folder, runs the task with OUT pointed at scratch, and returns every file
the task wrote (converted files, slide renders, chart and picture media) with its
result, for the driver to place under OUT. Either way the task talks to the
services actor of the node it runs on (`nodes.node_endpoint`).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

from fidelity.core.services import Endpoint
from fidelity.filework import FileWork
from ingest.analyze import AnalysisWork, FileRecord

Files = dict[str, bytes]
NOT_RETURNED = ("ingest",)  # the analysis cache holds absolute scratch paths: never shipped back


def input_path(item: Any) -> Path | None:
    """The driver-side file a work item reads (None: an item this module does not know)."""
    if isinstance(item, FileWork):
        return Path(item.record.ooxml) if item.record.ooxml else None
    if isinstance(item, AnalysisWork):
        return item.path
    return None


def with_services(item: Any, endpoint: Endpoint) -> Any:
    """The item with its services pointed at this node's services actor."""
    if isinstance(item, FileWork):
        return replace(item, context=replace(item.context, services=endpoint))
    if isinstance(item, AnalysisWork):
        return replace(item, services=endpoint)
    return item


def relocated(item: Any, local_input: Path, scratch_out: Path) -> Any:
    """The item reading `local_input` and writing under `scratch_out` instead of OUT."""
    if isinstance(item, FileWork):
        record = replace(item.record, ooxml=str(local_input))
        return replace(item, record=record, context=replace(item.context, out=scratch_out))
    if isinstance(item, AnalysisWork):
        return replace(item, path=local_input, out=scratch_out)
    return item


def scratch_root(namespace: str) -> Path:
    """The folder of a run's scratch folders on a node (its services actor removes it at the end,
    with what a killed task left)."""
    return Path(tempfile.gettempdir()) / namespace


class Scratch:
    """A worker's temporary folder for one shipped item: the input, and OUT's stand-in."""

    def __init__(self, name: str, data: bytes, parent: Path) -> None:
        parent.mkdir(exist_ok=True)
        self.root = Path(tempfile.mkdtemp(prefix="item-", dir=parent))
        self.input = self.root / "input" / name  # same name: the extension still says the format
        self.input.parent.mkdir()
        self.input.write_bytes(data)
        self.out = self.root / "out"
        self.out.mkdir()

    def written(self) -> Files:
        """Every file the task wrote under OUT's stand-in, by path relative to it."""
        files: Files = {}
        for path in sorted(self.out.rglob("*")):
            relative = path.relative_to(self.out)
            if path.is_file() and relative.parts[0] not in NOT_RETURNED:
                files[relative.as_posix()] = path.read_bytes()
        return files

    def restore(self, value: Any, original: Path, out: Path) -> Any:
        """Scratch paths in a result turned back into the driver's paths."""
        if not isinstance(value, FileRecord):
            return value
        value.path = str(original) if value.path == str(self.input) else value.path
        if value.ooxml == str(self.input):
            value.ooxml = str(original)
        elif value.ooxml and value.ooxml.startswith(str(self.out) + os.sep):
            value.ooxml = str(out / Path(value.ooxml).relative_to(self.out))
        return value

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


def out_of(item: Any) -> Path | None:
    if isinstance(item, FileWork):
        return item.context.out
    if isinstance(item, AnalysisWork):
        return item.out
    return None


def place(files: Files, out: Path) -> None:
    """Write the files a worker returned under OUT (each replaced atomically)."""
    root = out.resolve()
    for relative, data in files.items():
        target = (root / relative).resolve()
        if not target.is_relative_to(root):  # a returned name never escapes OUT
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary = target.with_name(target.name + ".part")
        temporary.write_bytes(data)
        temporary.replace(target)
