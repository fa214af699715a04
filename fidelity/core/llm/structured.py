"""Structured replies: strict JSON schemas from pydantic models, and tolerant parsing.

The schema is sent as `response_format: json_schema` where the endpoint takes it,
and is always stated in the system turn too, so `json_object` and plain-prompt
endpoints (older vLLM, llama.cpp, Ollama) can follow it.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel, ValidationError

MODES = ("json_schema", "json_object", "prompt")
_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.DOTALL)


def strict_schema(schema: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON schema in the strict form: closed objects, every property required."""

    def tighten(node: Any) -> Any:
        if isinstance(node, dict):
            node = {k: tighten(v) for k, v in node.items() if k not in ("title", "default")}
            if node.get("type") == "object" and "properties" in node:
                node["additionalProperties"] = False
                node["required"] = sorted(node["properties"])
            return node
        if isinstance(node, list):
            return [tighten(item) for item in node]
        return node

    return tighten(schema.model_json_schema())


def schema_name(schema: type[BaseModel]) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "_", schema.__name__)[:64]


def response_format(schema: type[BaseModel], mode: str) -> dict[str, Any] | None:
    if mode == "json_schema":
        return {
            "type": "json_schema",
            "json_schema": {
                "name": schema_name(schema),
                "schema": strict_schema(schema),
                "strict": True,
            },
        }
    if mode == "json_object":
        return {"type": "json_object"}
    return None


def instruction(schema: type[BaseModel]) -> str:
    body = json.dumps(strict_schema(schema), sort_keys=True, separators=(",", ":"))
    return (
        "Reply with one JSON object and nothing else (no prose, no code fence). "
        f"It must match this JSON schema: {body}"
    )


def parse(content: str, schema: type[BaseModel]) -> BaseModel:
    """The validated reply; ValueError with a short reason when it does not fit the schema."""
    text = content.strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1)
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        start, end = text.find("{"), text.rfind("}")
        if start < 0 or end <= start:
            raise ValueError("the reply is not JSON") from None
        try:
            data = json.loads(text[start : end + 1])
        except json.JSONDecodeError as error:
            raise ValueError(f"the reply is not valid JSON: {error}") from None
    try:
        return schema.model_validate(data)
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in item['loc']) or '(root)'}: {item['msg']}"
            for item in error.errors()[:5]
        )
        raise ValueError(f"the JSON does not match the schema: {problems}") from None
