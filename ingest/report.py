"""corpus.md: what a curator needs to see after ingest.

Decisions and reasons, format mismatches, conversions, size buckets, the
coverage table (which taxonomy categories the kept files can support, and
which need more documents) and the Word quality ranking.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from pathlib import Path

from fidelity.core.apps import APPLICATIONS, TAXONOMY
from ingest.analyze import FileRecord
from ingest.rank import Ranking
from ingest.settings import IngestSettings

BUCKET_ORDER = ("Small", "Medium", "Long")


def _name(record: FileRecord) -> str:
    return Path(record.path).name.replace("|", "\\|")


def _decisions(records: list[FileRecord]) -> list[str]:
    kept = sum(1 for r in records if r.kept)
    reasons = Counter(r.reason_code for r in records if not r.kept)
    lines = [
        "## Decisions",
        "",
        f"{len(records)} files: {kept} kept, {len(records) - kept} dropped.",
        "",
        "| reason | files |",
        "|---|---:|",
    ]
    lines += [f"| {code} | {count} |" for code, count in sorted(reasons.items())]
    dropped = [r for r in records if not r.kept]
    if dropped:
        lines += ["", "| dropped file | reason code | reason |", "|---|---|---|"]
        lines += [
            f"| {_name(r)} | {r.reason_code} | {r.reason.replace('|', '/')} |" for r in dropped
        ]
    return lines


def _formats(records: list[FileRecord]) -> list[str]:
    lines = ["## Formats", ""]
    mismatches = [r for r in records if r.extension_mismatch]
    if mismatches:
        lines += ["Extension does not match the content:", ""]
        lines += [f"- {_name(r)}: {r.extension_mismatch}" for r in mismatches]
        lines.append("")
    converted = [r for r in records if r.converted_from]
    if converted:
        lines += ["| converted file | from | to | status |", "|---|---|---|---|"]
        for r in converted:
            status = "ok" if r.problem_code != "conversion_failed" else "failed"
            target = Path(r.ooxml).suffix.lstrip(".") if r.ooxml else "-"
            lines.append(f"| {_name(r)} | {r.converted_from} | {target} | {status} |")
    return lines


def _sizes(records: list[FileRecord]) -> list[str]:
    lines = [
        "## Size buckets (kept files)",
        "",
        "| app | unit | Small | Medium | Long |",
        "|---|---|---:|---:|---:|",
    ]
    for app in TAXONOMY:
        counts = Counter(r.size.get("bucket") for r in records if r.kept and r.app == app)
        cells = " | ".join(str(counts[b]) for b in BUCKET_ORDER)
        lines.append(f"| {app} | {APPLICATIONS[app].size_unit} | {cells} |")
    return lines


def coverage_rows(
    records: list[FileRecord], extracted: Mapping[tuple[str, str], tuple[int, int]] | None = None
) -> list[tuple[str, str, int, int]]:
    """(app, category, kept files holding it, elements in them) for every taxonomy cell: from
    the extracted documents when a build gives their counts, else from ingest's probe."""
    rows = []
    for app, categories in TAXONOMY.items():
        kept = [r for r in records if r.kept and r.app == app]
        for category in categories:
            if extracted is not None:
                files, elements = extracted.get((app, category), (0, 0))
                rows.append((app, category, files, elements))
                continue
            holders = [r.categories.get(category, 0) for r in kept if r.categories.get(category)]
            rows.append((app, category, len(holders), sum(holders)))
    return rows


def _coverage(
    records: list[FileRecord],
    target: int,
    extracted: Mapping[tuple[str, str], tuple[int, int]] | None,
) -> list[str]:
    source = (
        "Counted from the extracted documents: the elements are the artifacts that "
        "coverage.md counts, and files are the extracted files holding at least one."
        if extracted is not None
        else "Estimated by ingest's probe before extraction; a build replaces these counts "
        "with the extracted artifacts, the ones coverage.md counts."
    )
    lines = [
        "## Coverage (what the kept files could support)",
        "",
        source,
        f"A category is marked **needs more** when fewer than {target} kept files hold it.",
        "",
        "| app | category | files | elements | status |",
        "|---|---|---:|---:|---|",
    ]
    for app, category, files, elements in coverage_rows(records, extracted):
        status = "ok" if files >= target else "**needs more**"
        lines.append(f"| {app} | {category} | {files} | {elements} | {status} |")
    return lines


def _ranking(records: list[FileRecord], ranking: Ranking, top_k: int) -> list[str]:
    ranked = sorted(
        (r for r in records if r.elo is not None), key=lambda r: (r.domain, r.rank or 0)
    )
    lines = ["## Word quality ranking", "", f"Judge: {ranking.judge}."]
    lines.append(f"{len(ranking.comparisons)} pairwise comparisons; Elo averaged over orderings.")
    if top_k:
        lines.append(f"Only the top {top_k} per domain are kept.")
    lines += ["", "| domain | rank | Elo | file | decision |", "|---|---:|---:|---|---|"]
    lines += [
        f"| {r.domain} | {r.rank} | {r.elo:.1f} | {_name(r)} | {r.decision} |" for r in ranked
    ]
    return lines


def corpus_markdown(
    records: list[FileRecord],
    ranking: Ranking,
    settings: IngestSettings,
    extracted: Mapping[tuple[str, str], tuple[int, int]] | None = None,
) -> str:
    """corpus.md; `extracted` gives (files, artifacts) per (app, category) after extraction."""
    sections = [
        ["# Corpus ingest report"],
        _decisions(records),
        _formats(records),
        _sizes(records),
        _coverage(records, settings.coverage_target, extracted),
        _ranking(records, ranking, settings.rank_top_k),
    ]
    return "\n\n".join("\n".join(section) for section in sections) + "\n"
