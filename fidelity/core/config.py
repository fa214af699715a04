"""Run configuration: defaults, overridden by a TOML file (fidelity.toml) and the command line.

A file is checked whole before anything runs: an unknown section or key (with the
nearest known name), a value of the wrong type or a TOML syntax error is a
`ConfigError`, one line per problem naming the file, the table and the key.
"""

from __future__ import annotations

import difflib
import json
import re
import tomllib
import typing
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, fields, is_dataclass, replace
from functools import cache
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

from pydantic import AfterValidator, BeforeValidator, ConfigDict, TypeAdapter, ValidationError

from fidelity.core.apps import TAXONOMY
from fidelity.core.mistake import Mistake

DEFAULT_TYPE_PRIORITY = {"Font": 0.3, "Layout": 0.5, "Language": 0.5, "Metadata": 0.7}
DEFAULT_FILE = "fidelity.toml"
# Tables of fidelity.toml a stage reads and checks itself (ingest/settings.py: IngestSettings).
STAGE_SECTIONS = ("ingest",)
SECTIONS = ("run", "models", "coverage", "filters", *STAGE_SECTIONS)
# The run store meta key holding the configuration a build used.
STORED_KEY = "config"
# Tables checked with this refuse unknown keys instead of ignoring them.
FORBID = ConfigDict(extra="forbid")

T = TypeVar("T")
QUOTED = "'{}'"


class ConfigError(Mistake, ValueError):
    """Problems in a configuration, one line each."""


def did_you_mean(word: str, known: Iterable[str], template: str = "{}") -> str:
    """' (did you mean X?)' for the known name nearest to `word`, else ''."""
    close = difflib.get_close_matches(word, list(known), n=1, cutoff=0.6)
    return f" (did you mean {template.format(close[0])}?)" if close else ""


def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls) if is_dataclass(cls) else {}


def _problem(cls: type, source: str, section: str, error: Any) -> str:
    """One pydantic error as a line: file, [table], key, and what was wrong."""
    loc = [str(part) for part in error["loc"]]
    tables = [section] if section else []
    while len(loc) > 1 and is_dataclass(_hints(cls).get(loc[0])):
        cls = _hints(cls)[loc[0]]
        tables.append(loc.pop(0))
    where = f"{source}: [{'.'.join(tables)}]" if tables else f"{source}:"
    key = ".".join(loc)
    if error["type"] in ("unexpected_keyword_argument", "extra_forbidden"):
        known = [f.name for f in fields(cls)] if is_dataclass(cls) and len(loc) == 1 else []
        return f"{where} unknown key {key!r}{did_you_mean(key, known, QUOTED)}"
    message = error["msg"]
    if message.startswith("Input should be "):
        message = "should be " + message.removeprefix("Input should be ")
    message = message.removeprefix("Value error, ")
    return f"{where} {key} = {error['input']!r}: {message}"


@cache
def _adapter(cls: type) -> TypeAdapter[Any]:
    """One adapter per dataclass (`validate_table` gives its result the dataclass's type)."""
    return TypeAdapter(cls)


def validate_table(cls: type[T], data: Any, section: str, source: str) -> T:
    """`data` (a TOML table) as a `cls` dataclass, or a ConfigError naming each problem."""
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: [{section}] should be a table, not {data!r}")
    hashable: type = cls  # a class is hashable; mypy does not see it through type[T]
    try:
        return _adapter(hashable).validate_python(data)
    except ValidationError as error:
        raise ConfigError(*(_problem(cls, source, section, e) for e in error.errors())) from None


def _size_text(value: Any) -> Any:
    """A size may be written as a number (MB); it is kept as text and must parse."""
    text = str(value) if isinstance(value, int | float) and not isinstance(value, bool) else value
    if isinstance(text, str):
        parse_size(text)
    return text


@dataclass
class GenerationBudget:
    """How many questions the model generators draft per artifact (`[models.generation]`)."""

    __pydantic_config__ = FORBID

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

    __pydantic_config__ = FORBID

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
    def from_toml(cls, data: dict[str, Any], source: str = "the stored settings") -> ModelsConfig:
        return validate_table(cls, data, "models", source)


def _panel(judges: list[str]) -> list[str]:
    if len(judges) > 3:
        raise ValueError("a panel has at most three models")
    return judges


@dataclass
class FilterSettings:
    """The `[filters]` section: model-mode re-asking, answer matching and quality grading.

    `judges` is a panel of up to three judge models voting by majority ([] = the judge
    role's model); a candidate is dropped by grading when any score is under its minimum.
    `batch_questions` re-asks over one context share a request (1 asks each on its own).
    """

    __pydantic_config__ = FORBID

    judges: Annotated[list[str], AfterValidator(_panel)] = field(default_factory=list)
    grading: bool = True
    min_clarity: int = 3
    min_precision: int = 3
    min_value: int = 2
    max_context_chars: int = 200_000
    batch_questions: int = 20

    @classmethod
    def from_toml(cls, data: dict[str, Any], source: str = "the stored settings") -> FilterSettings:
        return validate_table(cls, data, "filters", source)


SIZE_BUCKETS = ("Small", "Medium", "Long")
COVERAGE_KEYS = ("default", "targets")


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

    def to_toml(self) -> dict[str, Any]:
        """The `[coverage]` table that reads back as this configuration."""
        targets: dict[str, dict[str, Any]] = {}
        for app, cells in self.targets.items():
            for category, wanted in cells.items():
                buckets = self.buckets(app, category)
                cell = {"total": wanted, **buckets} if buckets else wanted
                targets.setdefault(app, {})[category] = cell
        return {"default": self.default, "targets": targets}

    @classmethod
    def from_toml(cls, data: dict[str, Any], source: str = "the configuration") -> CoverageConfig:
        if not isinstance(data, dict):
            raise ConfigError(f"{source}: [coverage] should be a table, not {data!r}")
        problems = [
            f"{source}: [coverage] unknown key {key!r}{did_you_mean(key, COVERAGE_KEYS, QUOTED)}"
            for key in data
            if key not in COVERAGE_KEYS
        ]
        config = cls(
            default=_count(data.get("default", 0), f"{source}: [coverage] default", problems)
        )
        targets = data.get("targets", {})
        if not isinstance(targets, dict):
            problems.append(f"{source}: [coverage] targets should be a table, not {targets!r}")
            targets = {}
        for app, cells in targets.items():
            table = f"{source}: [coverage.targets.{app}]"
            if app not in TAXONOMY:
                where = f"{source}: [coverage.targets]"
                problems.append(
                    f"{where} unknown application {app!r}{did_you_mean(app, TAXONOMY, QUOTED)}"
                )
                continue
            if not isinstance(cells, dict):
                problems.append(f"{table} should be a table, not {cells!r}")
                continue
            for category, wanted in cells.items():
                if category != "*" and category not in TAXONOMY[app]:
                    hint = did_you_mean(category, TAXONOMY[app], QUOTED)
                    problems.append(f"{table} unknown category {category!r}{hint}")
                    continue
                if isinstance(wanted, dict):
                    for bucket in set(wanted) - {"total", *SIZE_BUCKETS}:
                        hint = did_you_mean(bucket, ["total", *SIZE_BUCKETS], QUOTED)
                        problems.append(f"{table} {category}: unknown size bucket {bucket!r}{hint}")
                    buckets = {
                        b: _count(n, f"{table} {category}.{b}", problems)
                        for b, n in wanted.items()
                        if b in SIZE_BUCKETS
                    }
                    config.bucket_targets.setdefault(app, {})[category] = buckets
                    total = wanted.get("total", sum(buckets.values()))
                    wanted = _count(total, f"{table} {category}.total", problems)
                config.targets.setdefault(app, {})[category] = _count(
                    wanted, f"{table} {category}", problems
                )
        if problems:
            raise ConfigError(*problems)
        return config


def _count(value: Any, where: str, problems: list[str]) -> int:
    """A whole number of questions, else 0 with a problem noted."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    problems.append(f"{where} = {value!r}: should be a whole number of questions (0 or more)")
    return 0


SIZE_UNITS = {"": 1024**2, "K": 1024, "M": 1024**2, "G": 1024**3, "T": 1024**4}


def parse_size(text: str | int | float) -> int:
    """Bytes in a size such as `4GB`, `512M` or `1.5G` (a bare number is MB)."""
    match = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([KMGT]?)(?:I?B)?\s*", str(text).upper())
    if match is None:
        raise ValueError(f"not a size: {text!r} (write e.g. 4GB or 512MB)")
    return int(float(match.group(1)) * SIZE_UNITS[match.group(2)])


@dataclass
class Config:
    """Settings every stage reads; the tables a stage checks itself are kept in `extra`.

    `source` is the file the settings came from ("" = the defaults).
    """

    __pydantic_config__ = FORBID

    dedup_scope: Literal["", "file", "run"] = ""  # "" = per file offline, run-wide in model mode
    max_file_mb: float = 100.0
    workers: int = 0  # worker processes for per-file work; 0 = one per core
    file_timeout: float = 300.0  # seconds of wall clock per file (0 = no limit)
    worker_memory: Annotated[str, BeforeValidator(_size_text)] = "4GB"  # "0" = no cap
    executor: Literal["process", "ray"] = "process"  # local worker processes or Ray tasks
    ray_address: str = ""  # the Ray cluster to join; "" = a local Ray started for the run
    ship_files: bool = False  # Ray workers get file bytes, not paths (no shared filesystem)
    models: ModelsConfig = field(default_factory=ModelsConfig)
    coverage: CoverageConfig = field(default_factory=CoverageConfig)
    filters: FilterSettings = field(default_factory=FilterSettings)
    extra: dict[str, Any] = field(default_factory=dict)
    source: str = ""

    def __post_init__(self) -> None:
        parse_size(self.worker_memory)  # a bad size fails when read, not when workers start

    @property
    def worker_memory_bytes(self) -> int:
        return parse_size(self.worker_memory)

    @property
    def described(self) -> str:
        return self.source or "defaults (no fidelity.toml)"

    @classmethod
    def load(cls, path: Path | None = None) -> Config:
        """The file given, else ./fidelity.toml if there is one, else the defaults."""
        candidate = path or Path(DEFAULT_FILE)
        if path is None and not candidate.is_file():
            return cls()
        source = str(candidate.resolve())
        try:
            text = candidate.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise ConfigError(f"configuration file not found: {candidate}") from None
        except (OSError, UnicodeDecodeError) as error:
            raise ConfigError(f"{source}: cannot read the configuration: {error}") from None
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as error:
            raise ConfigError(toml_problem(source, error)) from None
        return cls.from_toml(data, source)

    @classmethod
    def from_toml(cls, data: dict[str, Any], source: str, label: str = "") -> Config:
        """Settings from a whole fidelity.toml; `label` names it in problems (default `source`)."""
        where = label or source or "the defaults"
        problems = [
            f"{where}: unknown section [{name}]{did_you_mean(name, SECTIONS, '[{}]')}"
            for name in data
            if name not in SECTIONS
        ]
        run_keys = [f.name for f in fields(cls) if f.name not in RESERVED]
        run = data.get("run", {})
        if isinstance(run, dict):
            problems += [
                f"{where}: [run] unknown key {key!r}{did_you_mean(key, run_keys, QUOTED)}"
                for key in run
                if key not in run_keys
            ]
            run = {key: value for key, value in run.items() if key in run_keys}
        parts: dict[str, Any] = {}
        readers = {
            "run": lambda table: validate_table(cls, table, "run", where),
            "models": lambda table: ModelsConfig.from_toml(table, where),
            "coverage": lambda table: CoverageConfig.from_toml(table, where),
            "filters": lambda table: FilterSettings.from_toml(table, where),
        }
        for name, read in readers.items():
            try:
                parts[name] = read(run if name == "run" else data.get(name, {}))
            except ConfigError as error:
                problems += error.problems
        for name in STAGE_SECTIONS:
            if not isinstance(data.get(name, {}), dict):
                problems.append(f"{where}: [{name}] should be a table, not {data[name]!r}")
        if problems:
            raise ConfigError(*problems)
        return replace(
            parts["run"],
            models=parts["models"],
            coverage=parts["coverage"],
            filters=parts["filters"],
            extra={name: data[name] for name in STAGE_SECTIONS if name in data},
            source=source,
        )

    def to_toml(self) -> dict[str, Any]:
        """The fidelity.toml content that reads back as these settings (None: unset)."""
        run = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in RESERVED}
        return {
            "run": run,
            "models": asdict(self.models),
            "coverage": self.coverage.to_toml(),
            "filters": asdict(self.filters),
            **self.extra,
        }

    def stored(self) -> dict[str, Any]:
        """What a run keeps of its configuration (run store meta `STORED_KEY`)."""
        return {"source": self.source, "settings": self.to_toml()}

    @classmethod
    def from_stored(cls, record: dict[str, Any], label: str) -> Config:
        return cls.from_toml(record["settings"], record.get("source", ""), label)

    def changes_from(self, settings: dict[str, Any]) -> list[str]:
        """The settings (`table.key`) in which these differ from stored ones (`to_toml` form)."""
        mine, theirs = _flat(self.to_toml()), _flat(settings)
        keys = mine.keys() | theirs.keys()
        return sorted(key for key in keys if mine.get(key) != theirs.get(key))


# Config fields that are not keys of the [run] table.
RESERVED = {"models", "coverage", "filters", "extra", "source"}


def _flat(data: dict[str, Any]) -> dict[str, str]:
    """`section.key` -> the value as JSON, one level of tables deep."""
    return {
        f"{section}.{key}": json.dumps(value, sort_keys=True)
        for section, table in data.items()
        if isinstance(table, dict)
        for key, value in table.items()
    }


def toml_problem(source: str, error: tomllib.TOMLDecodeError) -> str:
    """A TOML syntax error as one line naming the file and the line."""
    message = str(error)
    match = re.fullmatch(r"(.*) \(at line (\d+), column (\d+)\)", message)
    if match is None:
        return f"{source}: not valid TOML: {message}"
    what, line, column = match.groups()
    return f"{source}, line {line}: not valid TOML: {what} (column {column})"
