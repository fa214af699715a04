"""Run configuration: defaults, overridden by a TOML file (fidelity.toml) and the command line."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from fidelity.core.apps import TAXONOMY

DEFAULT_TYPE_PRIORITY = {"Font": 0.3, "Layout": 0.5, "Language": 0.5, "Metadata": 0.7}


@dataclass
class GenerationBudget:
    """How many questions the model generators draft per artifact (`[models.generation]`)."""

    questions_per_chunk: int = 2
    questions_per_table: int = 3
    questions_per_image: int = 2
    questions_per_fact_type: int = 2
    fact_questions_per_document: int = 12
    facts_shown_per_type: int = 8
    max_chunks_per_document: int = 12
    max_visuals_per_document: int = 12
    min_chunk_words: int = 25
    type_priority: dict[str, float] = field(default_factory=lambda: dict(DEFAULT_TYPE_PRIORITY))


@dataclass
class ModelsConfig:
    """The `[models]` section: endpoint, per-role models, prices, limits; empty `model` = offline.

    Prices are USD per million tokens: `[models.prices."gpt-4o-mini"] input = 0.15, output = 0.6`.
    """

    model: str = ""
    base_url: str = ""
    api_key_env: str = "OPENAI_API_KEY"
    api_version: str = ""
    roles: dict[str, str] = field(default_factory=dict)
    prices: dict[str, dict[str, float]] = field(default_factory=dict)
    concurrency: int = 4
    timeout: float = 120.0
    max_retries: int = 4
    backoff_base: float = 1.0
    backoff_max: float = 60.0
    budget_usd: float | None = None
    max_calls: int | None = None
    structured_output: str = "json_schema"
    temperature: float | None = None
    max_output_tokens: int | None = None
    image_detail: str = "auto"
    image_max_side: int = 1536
    batch: bool = False
    batch_poll_seconds: float = 30.0
    batch_discount: float = 0.5
    generators: list[str] = field(default_factory=lambda: ["text", "visual", "table", "facts"])
    with_rules: bool = True
    retry_failed: bool = True  # a rerun runs again the checks an earlier build could not run
    generation: GenerationBudget = field(default_factory=GenerationBudget)

    @property
    def enabled(self) -> bool:
        return bool(self.model)

    def model_for(self, role: str) -> str:
        return self.roles.get(role) or self.model

    @classmethod
    def from_toml(cls, data: dict[str, Any]) -> ModelsConfig:
        known = {f.name for f in fields(cls)} - {"generation"}
        unknown = set(data) - known - {"generation"}
        if unknown:
            raise ValueError(f"unknown [models] settings: {', '.join(sorted(unknown))}")
        generation = data.get("generation", {})
        stray = set(generation) - {f.name for f in fields(GenerationBudget)}
        if stray:
            raise ValueError(f"unknown [models.generation] settings: {', '.join(sorted(stray))}")
        budget = GenerationBudget(**generation)
        return cls(**{k: v for k, v in data.items() if k in known}, generation=budget)


@dataclass
class FilterSettings:
    """The `[filters]` section: model-mode re-asking, answer matching and quality grading.

    `judges` is a panel of up to three judge models voting by majority ([] = the judge
    role's model); a candidate is dropped by grading when any score is under its minimum.
    """

    judges: list[str] = field(default_factory=list)
    grading: bool = True
    min_clarity: int = 3
    min_precision: int = 3
    min_value: int = 2
    max_context_chars: int = 200_000

    @classmethod
    def from_toml(cls, data: dict[str, Any]) -> FilterSettings:
        unknown = set(data) - {f.name for f in fields(cls)}
        if unknown:
            raise ValueError(f"unknown [filters] settings: {', '.join(sorted(unknown))}")
        settings = cls(**data)
        if len(settings.judges) > 3:
            raise ValueError("[filters] judges: a panel has at most three models")
        return settings


SIZE_BUCKETS = ("Small", "Medium", "Long")


@dataclass
class CoverageConfig:
    """The `[coverage]` section: kept questions wanted per application × category.

    `[coverage.targets.word] Comment = 10` sets one cell; `"*" = 5` every other cell
    of that application; `Table = { total = 20, Small = 5, Long = 5 }` also wants
    so many from files of each size bucket. `default` covers every cell not named.
    """

    default: int = 0
    targets: dict[str, dict[str, int]] = field(default_factory=dict)
    bucket_targets: dict[str, dict[str, dict[str, int]]] = field(default_factory=dict)

    def target(self, app: str, category: str) -> int:
        per_app = self.targets.get(app, {})
        return per_app.get(category, per_app.get("*", self.default))

    def buckets(self, app: str, category: str) -> dict[str, int]:
        return self.bucket_targets.get(app, {}).get(category, {})

    @classmethod
    def from_toml(cls, data: dict[str, Any]) -> CoverageConfig:
        unknown = set(data) - {"default", "targets"}
        if unknown:
            raise ValueError(f"unknown [coverage] settings: {', '.join(sorted(unknown))}")
        config = cls(default=int(data.get("default", 0)))
        for app, cells in data.get("targets", {}).items():
            if app not in TAXONOMY:
                raise ValueError(f"[coverage.targets]: unknown application {app!r}")
            for category, wanted in cells.items():
                if category != "*" and category not in TAXONOMY[app]:
                    raise ValueError(f"[coverage.targets.{app}]: unknown category {category!r}")
                if isinstance(wanted, dict):
                    stray = set(wanted) - {"total", *SIZE_BUCKETS}
                    if stray:
                        raise ValueError(f"[coverage.targets.{app}] {category}: {sorted(stray)}")
                    buckets = {b: int(n) for b, n in wanted.items() if b != "total"}
                    config.bucket_targets.setdefault(app, {})[category] = buckets
                    wanted = wanted.get("total", sum(buckets.values()))
                config.targets.setdefault(app, {})[category] = int(wanted)
        return config


@dataclass
class Config:
    """Settings every stage reads; unknown TOML keys are kept in `extra` for later stages."""

    dedup_scope: str = ""  # "file", "run", or "" = per file offline, run-wide in model mode
    max_file_mb: float = 100.0
    workers: int = 0  # worker processes for per-file work; 0 = one per core
    file_timeout: float = 300.0  # seconds of wall clock per file (0 = no limit)
    worker_memory: str = "4GB"  # address-space cap per worker ("0" = no cap)
    executor: str = "process"  # "process" (local worker processes) or "ray"
    ray_address: str = ""  # the Ray cluster to join; "" = a local Ray started for the run
    ship_files: bool = False  # Ray workers get file bytes, not paths (no shared filesystem)
    models: ModelsConfig = field(default_factory=ModelsConfig)
    coverage: CoverageConfig = field(default_factory=CoverageConfig)
    filters: FilterSettings = field(default_factory=FilterSettings)
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        parse_size(self.worker_memory)  # a bad size fails when read, not when workers start

    @property
    def worker_memory_bytes(self) -> int:
        return parse_size(self.worker_memory)

    @classmethod
    def load(cls, path: Path | None = None) -> Config:
        data: dict[str, Any] = {}
        candidate = path or Path("fidelity.toml")
        if candidate.is_file():
            data = tomllib.loads(candidate.read_text())
        elif path is not None:
            raise FileNotFoundError(f"configuration file not found: {path}")
        known = {f.name for f in fields(cls)} - {"extra", "models", "coverage", "filters"}
        values = {key: value for key, value in data.get("run", {}).items() if key in known}
        sections = ("run", "models", "coverage", "filters")
        extra = {key: value for key, value in data.items() if key not in sections}
        models = ModelsConfig.from_toml(data.get("models", {}))
        coverage = CoverageConfig.from_toml(data.get("coverage", {}))
        filters = FilterSettings.from_toml(data.get("filters", {}))
        return cls(**values, models=models, coverage=coverage, filters=filters, extra=extra)


SIZE_UNITS = {"": 1024**2, "K": 1024, "M": 1024**2, "G": 1024**3, "T": 1024**4}


def parse_size(text: str | int | float) -> int:
    """Bytes in a size such as `4GB`, `512M` or `1.5G` (a bare number is MB)."""
    match = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([KMGT]?)(?:I?B)?\s*", str(text).upper())
    if match is None:
        raise ValueError(f"not a size: {text!r} (write e.g. 4GB or 512MB)")
    return int(float(match.group(1)) * SIZE_UNITS[match.group(2)])
