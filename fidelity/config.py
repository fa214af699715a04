"""Run configuration: defaults, overridden by a TOML file (fidelity.toml) and the command line."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any


@dataclass
class Config:
    """Settings every stage reads; unknown TOML keys are kept in `extra` for later stages."""

    dedup_scope: str = "file"
    max_file_mb: float = 100.0
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path | None = None) -> Config:
        data: dict[str, Any] = {}
        candidate = path or Path("fidelity.toml")
        if candidate.is_file():
            data = tomllib.loads(candidate.read_text())
        elif path is not None:
            raise FileNotFoundError(f"configuration file not found: {path}")
        known = {f.name for f in fields(cls)} - {"extra"}
        values = {key: value for key, value in data.get("run", {}).items() if key in known}
        extra = {key: value for key, value in data.items() if key != "run"}
        return cls(**values, extra=extra)
