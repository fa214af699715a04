"""Pictures a shipped task sends to the model reach the driver with the call that sends them.

The driver's LLMClient reads a message's local pictures from OUT, but a task
running with `--ship-files` writes them in its scratch folder on its node, and
they reach OUT only with the task's result. The node's relay therefore adds the
bytes of every picture it finds in the node's scratch folders to the message part
(`inline_pictures`), and the driver writes them under OUT before the call is
looked up or sent (`store_pictures`), where the result would put the same bytes.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from fidelity.core.llm import ModelClient
from fidelity.core.llm.client import Reply

Message = dict[str, Any]
DATA = "data"  # the key of a picture part that carries its bytes (base64)


def map_pictures(
    messages: Sequence[Message], change: Callable[[Message], Message]
) -> list[Message]:
    """The messages with `change` applied to every local picture part."""
    changed = []
    for message in messages:
        content = message.get("content")
        if isinstance(content, list):
            content = [change(part) if part.get("type") == "image" else part for part in content]
        changed.append({**message, "content": content})
    return changed


def inline_pictures(messages: Sequence[Message], scratch: Path) -> list[Message]:
    """Picture parts whose file a shipped task wrote under `scratch` carry its bytes."""

    def with_bytes(part: Message) -> Message:
        relative = Path(part["path"])
        if relative.is_absolute() or not scratch.is_dir():
            return part
        for item in scratch.iterdir():
            written = item / "out" / relative
            if written.is_file():
                return {**part, DATA: base64.b64encode(written.read_bytes()).decode()}
        return part

    return map_pictures(messages, with_bytes)


def store_pictures(messages: Sequence[Message], out: Path) -> list[Message]:
    """Write carried pictures under OUT (never outside it); the messages without the bytes."""
    root = out.resolve()

    def stored(part: Message) -> Message:
        if DATA not in part:
            return part
        data = base64.b64decode(part[DATA])
        target = (root / part["path"]).resolve()
        if target.is_relative_to(root) and not target.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            temporary = target.with_name(target.name + ".part")
            temporary.write_bytes(data)
            temporary.replace(target)
        return {key: value for key, value in part.items() if key != DATA}

    return map_pictures(messages, stored)


class PictureRelay:
    """A node's relay to the driver's model client that carries shipped tasks' pictures."""

    def __init__(self, client: ModelClient, scratch: Path) -> None:
        self.client = client
        self.scratch = scratch
        self.accounting = client.accounting

    def complete(
        self,
        role: str,
        messages: Sequence[Message],
        schema: type[BaseModel] | None = None,
        *,
        stage: str | None = None,
        params: dict[str, Any] | None = None,
    ) -> Reply:
        carried = inline_pictures(messages, self.scratch)
        return self.client.complete(role, carried, schema, stage=stage, params=params)

    def say_once(self, text: str) -> None:
        self.client.say_once(text)
