"""The report's summary sections: coverage heatmap, filter funnel, files, model usage.

Numbers come from the modules that write coverage.md, funnel.md, corpus.jsonl and
model_usage.json, so the page and those files never disagree.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from fidelity import coverage, funnel
from fidelity.core.apps import APPLICATIONS, TAXONOMY
from fidelity.core.config import SIZE_BUCKETS, CoverageConfig
from fidelity.core.document import KEPT_STATUSES
from fidelity.core.llm.accounting import USAGE_FILE
from fidelity.core.run_snapshot import RunSnapshot
from fidelity.core.sizes import bucket_bounds
from fidelity.report.charts import KEPT, BarChart, Heatmap, bars, heatmap, plural, state
from fidelity.report.questions import QuestionTable

BUCKETS = (*SIZE_BUCKETS, coverage.NO_BUCKET)


@dataclass
class CoverageSection:
    heatmaps: list[Heatmap]
    below_target: int
    missing: int
    with_targets: bool
    with_buckets: bool
    states: list[str]


@dataclass
class FunnelChart:
    name: str
    title: str
    chart: BarChart
    outcome: str


@dataclass
class FunnelLine:
    """One application × category line: candidates, survivors of each stage, kept, unverified."""

    app: str
    category: str
    counts: list[int]
    unverified: int


@dataclass
class FunnelSection:
    outcome: str  # the run's candidates, kept, unverified, rejected in words (funnel.outcome)
    stages: list[str]
    charts: list[FunnelChart]
    cells: list[FunnelLine]
    views: BarChart | None
    rejected_by: BarChart | None
    verdicts: list[tuple[str, list[tuple[str, int]]]]
    model_checks: int
    leakage_decided: int


@dataclass
class FilesSection:
    rows: list[dict[str, Any]]
    outcomes: list[tuple[str, int]]
    reasons: list[tuple[str, int]]
    conversions: list[dict[str, Any]]
    buckets: list[tuple[str, str, list[int]]]
    ranking: list[dict[str, Any]]


@dataclass
class UsageSection:
    recorded: list[dict[str, Any]]
    total_cost: float
    last_run: dict[str, Any] = field(default_factory=dict)


def display(app: str) -> str:
    """An application's name as people write it ("PowerPoint"), from the registry."""
    return APPLICATIONS[app].display if app in APPLICATIONS else app


def bounds(app: str) -> dict[str, str]:
    return bucket_bounds(app) if app in APPLICATIONS else {}


def app_order(apps: set[str]) -> list[str]:
    return [app for app in TAXONOMY if app in apps] + sorted(apps - set(TAXONOMY))


def taxonomy_order(item: tuple[tuple[str, str], Any]) -> tuple[int, int, str]:
    """Sort key for ((app, category), …): the taxonomy's order, anything else after it."""
    (app, category), _ = item
    apps = list(TAXONOMY)
    categories = TAXONOMY.get(app, ())
    return (
        apps.index(app) if app in apps else len(apps),
        categories.index(category) if category in categories else len(categories),
        category,
    )


def coverage_section(run: RunSnapshot, targets: CoverageConfig) -> CoverageSection:
    cells = coverage.compute(run, targets)
    by_app: dict[str, list[coverage.Cell]] = {}
    for cell in cells.values():
        by_app.setdefault(cell.app, []).append(cell)
    return CoverageSection(
        heatmaps=[
            heatmap(app, display(app), by_app[app], BUCKETS, bounds(app))
            for app in app_order(set(by_app))
        ],
        below_target=len(coverage.below_target(cells)),
        missing=sum(cell.gap for cell in cells.values()),
        with_targets=any(cell.target for cell in cells.values()),
        with_buckets=any(t.target for c in cells.values() for t in c.buckets.values()),
        states=sorted({state(cell) for cell in cells.values()} - {""}),
    )


def stages_of(counts: funnel.Funnel) -> list[str]:
    """The funnel's stages in order, then any check the data rejected by that it does not name."""
    stages = list(funnel.STAGES)
    stages += sorted(set(counts.total.rejected) - set(stages))
    return stages


def rejected_link(check: str) -> str:
    """The question browser showing exactly the candidates `check` (a stage or a check) rejected."""
    return f"#rejected_by={quote(check)}"


def funnel_chart(row: funnel.Row, stages: list[str]) -> BarChart:
    steps = [("candidates", row.candidates, "", "in")]
    links = {"kept": f"#status={quote(KEPT)}"}
    for stage, left in zip(stages, survivors(row, stages), strict=True):
        dropped = row.rejected[stage]
        steps.append((f"after {stage}", left, f"{dropped} rejected" if dropped else "", "stage"))
        if dropped:
            links[f"after {stage}"] = rejected_link(stage)
    steps.append(("kept", row.kept, f"{row.unverified} of them unverified", "kept"))
    return bars(steps, links)


def survivors(row: funnel.Row, stages: list[str]) -> list[int]:
    """Candidates still in after each stage (the funnel's own stages and any new ones)."""
    left, out = row.candidates, []
    for stage in stages:
        left -= row.rejected[stage]
        out.append(left)
    return out


def funnel_section(run: RunSnapshot, table: QuestionTable) -> FunnelSection:
    counts = funnel.compute(run)
    stages = stages_of(counts)
    charts = [FunnelChart("run", "whole run", funnel_chart(counts.total, stages), "")]
    for app in app_order(set(counts.apps)):
        row = counts.apps[app]
        charts.append(
            FunnelChart(app, display(app), funnel_chart(row, stages), funnel.outcome(row))
        )
    views = sorted(counts.views.items(), key=lambda item: (-item[1], item[0]))
    rejected = table.rejected_by.most_common()
    return FunnelSection(
        outcome=funnel.outcome(counts.total),
        stages=stages,
        charts=charts,
        cells=[
            FunnelLine(
                app, category, [row.candidates, *survivors(row, stages), row.kept], row.unverified
            )
            for (app, category), row in sorted(counts.cells.items(), key=taxonomy_order)
        ],
        views=bars([(view, n, "", "fail") for view, n in views]) if views else None,
        rejected_by=bars(
            [(check, n, "", "fail") for check, n in rejected],
            {check: rejected_link(check) for check, _ in rejected},
        )
        if rejected
        else None,
        verdicts=[
            (check, sorted(verdicts.items())) for check, verdicts in sorted(table.verdicts.items())
        ],
        model_checks=counts.model_checks,
        leakage_decided=counts.leakage_decided,
    )


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    rows = []
    for line in path.read_text().splitlines():
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return rows


def size_words(size: dict[str, Any]) -> str:
    """`1 slide`, `12 pages`; '' when the size is not known."""
    count, unit = size.get("count"), size.get("unit") or ""
    if count is None:
        return ""
    return plural(int(count), unit.removesuffix("s"), unit) if unit else str(count)


def converted_to(record: dict[str, Any]) -> str:
    """The format a converted file was read as (its `format` is the one it came in)."""
    if not record.get("converted_from"):
        return ""
    ooxml = Path(record.get("ooxml") or "").suffix.lstrip(".")
    app = APPLICATIONS.get(record.get("app") or "")
    return ooxml or (app.plain_format if app else "")


def file_outcome(record: dict[str, Any], stored: dict[str, Any] | None) -> tuple[str, str]:
    """kept, dropped (by curation) or skipped (could not be read), with the reason."""
    if record.get("decision") == "drop":
        return "dropped", record.get("reason", "")
    if stored is None:
        return "not processed", ""
    if stored["status"] == "skipped":
        return "skipped", stored["reason"]
    return ("kept", "") if stored["status"] == "done" else (stored["status"], stored["reason"])


def files_section(run: RunSnapshot, out: Path, table: QuestionTable) -> FilesSection:
    """corpus.jsonl joined with the store's file states and each file's candidate counts."""
    stored = {entry["sha256"]: entry for entry in run.files}
    records = _read_jsonl(out / "corpus.jsonl")
    known = {record.get("sha256") for record in records}
    records += [
        {"path": entry["path"], "sha256": sha, **entry["info"]}
        for sha, entry in stored.items()
        if sha not in known
    ]
    rows = []
    for record in sorted(records, key=lambda r: r.get("path", "")):
        entry = stored.get(record.get("sha256", ""))
        outcome, reason = file_outcome(record, entry)
        size = record.get("size") or {}
        statuses = table.per_file.get(
            entry["path"] if entry else record.get("path", ""), Counter[str]()
        )
        rows.append(
            {
                "path": record.get("path", ""),
                "app": record.get("app") or "",
                "format": record.get("format") or "",
                "outcome": outcome,
                "reason_code": record.get("reason_code")
                or (entry or {}).get("info", {}).get("reason_code", ""),
                "reason": reason or record.get("reason", ""),
                "converted_from": record.get("converted_from"),
                "extension_mismatch": record.get("extension_mismatch"),
                "bucket": record.get("bucket") or "",
                "size": size_words(size),
                "converted_to": converted_to(record),
                "language": record.get("language") or "",
                "rank": record.get("rank"),
                "elo": record.get("elo"),
                "domain": record.get("domain") or "",
                "kept": sum(statuses.get(status, 0) for status in KEPT_STATUSES),
                "rejected": statuses.get("rejected", 0),
            }
        )
    buckets: dict[tuple[str, str], list[int]] = {}
    for record in records:
        if record.get("decision") == "keep" and record.get("app"):
            unit = (record.get("size") or {}).get("unit", "")
            counts = buckets.setdefault((record["app"], unit), [0] * len(BUCKETS))
            bucket = record.get("bucket") or coverage.NO_BUCKET
            counts[BUCKETS.index(bucket) if bucket in BUCKETS else -1] += 1
    return FilesSection(
        rows=rows,
        outcomes=Counter(row["outcome"] for row in rows).most_common(),
        reasons=Counter(
            row["reason_code"] or row["reason"] for row in rows if row["outcome"] != "kept"
        ).most_common(),
        conversions=[row for row in rows if row["converted_from"]],
        buckets=[(app, unit, counts) for (app, unit), counts in sorted(buckets.items())],
        ranking=sorted(
            (row for row in rows if row["rank"] is not None and APPLICATIONS[row["app"]].ranked),
            key=lambda row: row["rank"],
        ),
    )


def usage_section(run: RunSnapshot, out: Path) -> UsageSection | None:
    """Every recorded model call per stage / model; the last model_usage.json if there is one."""
    totals: dict[str, dict[str, Any]] = {}
    for stage, model, usage in run.model_call_usage():
        row = totals.setdefault(
            f"{stage} / {model}",
            {"name": f"{stage} / {model}", "calls": 0, "tokens_in": 0, "tokens_out": 0},
        )
        row["calls"] += 1
        row["tokens_in"] += usage.get("prompt_tokens", 0)
        row["tokens_out"] += usage.get("completion_tokens", 0)
        row["cost"] = row.get("cost", 0.0) + (usage.get("cost_usd") or 0.0)
        row["unpriced"] = row.get("unpriced", 0) + (usage.get("cost_usd") is None)
    last_run: dict[str, Any] = {}
    path = out / USAGE_FILE
    if path.is_file():
        try:
            last_run = json.loads(path.read_text())
        except json.JSONDecodeError:
            last_run = {}
    if not totals and not last_run:
        return None
    return UsageSection(
        recorded=sorted(totals.values(), key=lambda row: row["name"]),
        total_cost=sum(row.get("cost", 0.0) for row in totals.values()),
        last_run=last_run,
    )
