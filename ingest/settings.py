"""Ingest settings: defaults, overridden by the `[ingest]` table of fidelity.toml.

```toml
[ingest]
servers = 2                 # unoservers run in parallel
conversion_timeout = 120    # seconds per LibreOffice conversion
word_pages_from_pdf = true  # count Word pages on a LibreOffice rendering
min_text_chars = 100        # near-empty: less text than this ...
min_artifacts = 2           # ... and fewer non-text elements than this
drop_templates = true       # template content types (.dotx/.xltx/.potx...) are dropped
placeholder_fraction = 0.5  # share of text that is template prompts => pure template
languages = ["en"]
language_min_confidence = 0.8
near_duplicate_threshold = 0.8   # Jaccard of word shingles
rank_top_k = 0              # keep the k best Word files per domain (0 = keep all)
```
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from fidelity.core.config import FORBID, Config, validate_table
from fidelity.core.workers import worker_count

# LibreOffice servers a build may run when `[ingest] servers` is not set: one per worker,
# at most this many (each holds a LibreOffice of a few hundred MB); they start as needed.
MAX_AUTO_SERVERS = 4


@dataclass
class IngestSettings:
    """Every threshold curation and ranking use; each decision row cites the one it applied."""

    __pydantic_config__ = FORBID

    servers: int = 1
    conversion_timeout: float = 120.0
    word_pages_from_pdf: bool = True
    max_file_mb: float = 100.0
    min_text_chars: int = 100
    min_artifacts: int = 2
    drop_templates: bool = True
    placeholder_fraction: float = 0.5
    languages: tuple[str, ...] = ("en",)
    language_min_confidence: float = 0.8
    language_min_words: int = 30
    near_duplicate_threshold: float = 0.8
    shingle_words: int = 3
    rank_top_k: int = 0
    rank_near_pairs: int = 1
    rank_far_pairs: int = 1
    rank_rounds: int = 2
    rank_orderings: int = 10
    elo_k: float = 32.0
    domain_from: str = "folder"
    seed: int = 0
    coverage_target: int = 5

    @classmethod
    def from_config(cls, config: Config, **overrides: Any) -> IngestSettings:
        """The `[ingest]` table (a ConfigError names each unknown key or wrong value)."""
        table = {"max_file_mb": config.max_file_mb, **config.extra.get("ingest", {})}
        settings = validate_table(cls, table, "ingest", config.source or "the configuration")
        return replace(settings, **{k: v for k, v in overrides.items() if v is not None})


def converter_servers(config: Config, settings: IngestSettings) -> int:
    """LibreOffice servers for a build: `[ingest] servers`, else one per worker (capped), so
    the workers' conversion and rendering requests do not queue behind one server."""
    if "servers" in config.extra.get("ingest", {}):
        return settings.servers
    return min(worker_count(config), MAX_AUTO_SERVERS)
