"""Chat messages with local images, in the three forms a call needs.

Callers write OpenAI-style messages whose content is a string or a list of parts;
besides the standard `text` and `image_url` parts, a local image is the part
`{"type": "image", "path": ..., "detail": ...}` (built by `user(text, images)`).
- keyed form: images by content hash, hashed into the call key;
- recorded form: images by path and hash, stored in the run store (no base64);
- wire form: images as base64 data URLs, sent to the endpoint.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from fidelity.core.llm.images import ImageLoader

Message = dict[str, Any]


def system(text: str) -> Message:
    return {"role": "system", "content": text}


def assistant(text: str) -> Message:
    return {"role": "assistant", "content": text}


def user(text: str, images: Iterable[str | Path] = (), detail: str = "auto") -> Message:
    """A user turn: the text, then each local image as its own part."""
    paths = [str(path) for path in images]
    if not paths:
        return {"role": "user", "content": text}
    parts: list[dict[str, Any]] = [{"type": "text", "text": text}]
    parts.extend({"type": "image", "path": path, "detail": detail} for path in paths)
    return {"role": "user", "content": parts}


def _map_images(messages: Sequence[Message], convert: Any) -> list[Message]:
    out = []
    for message in messages:
        content = message.get("content")
        if isinstance(content, list):
            content = [convert(part) if part.get("type") == "image" else part for part in content]
        out.append({**message, "content": content})
    return out


def keyed(messages: Sequence[Message], loader: ImageLoader) -> list[Message]:
    return _map_images(
        messages,
        lambda part: {
            "type": "image",
            "sha256": loader.sha256(part["path"]),
            "detail": part.get("detail", "auto"),
            "max_side": loader.max_side,
        },
    )


def recorded(messages: Sequence[Message], loader: ImageLoader) -> list[Message]:
    return _map_images(
        messages,
        lambda part: {
            "type": "image",
            "path": part["path"],
            "sha256": loader.sha256(part["path"]),
            "detail": part.get("detail", "auto"),
        },
    )


def wire(messages: Sequence[Message], loader: ImageLoader) -> list[Message]:
    return _map_images(
        messages,
        lambda part: {
            "type": "image_url",
            "image_url": {
                "url": loader.data_url(part["path"]),
                "detail": part.get("detail", "auto"),
            },
        },
    )


def call_key(
    model: str,
    messages: Sequence[Message],
    params: dict[str, Any],
    schema: dict[str, Any] | None,
    loader: ImageLoader,
) -> str:
    """The record key: a hash of the model, the messages in keyed form (pictures by content),
    the parameters and the strict schema. The one function that keys a request: the run
    store caches replies under it and the single-flight relay waits on it."""
    payload = {
        "model": model,
        "messages": keyed(messages, loader),
        "params": params,
        "schema": schema,
    }
    raw = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(raw.encode()).hexdigest()
