"""The build's quality report: what the curator-grade checks removed, template diversity,
and a stratified sample for a person to score against the four tests of QUALITY.md.

Written to OUT/quality.md and OUT/quality-sample.tsv (a fixed seed, at least
`PER_CELL` kept questions per application × category, with empty score columns).
"""

from __future__ import annotations

import csv
import io
import random
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from fidelity.core.apps import TAXONOMY
from fidelity.core.document import KEPT_STATUSES, Candidate
from fidelity.core.mappings import get_or_make
from fidelity.core.run_snapshot import RunSnapshot
from fidelity.core.store import RunStore, snapshot_of
from filters.chain import ANSWERABLE, DEDUP, GUESSABLE

SEED = 12
PER_CELL = 2
TOP = 5
SCORES = ("correct_complete", "grounded", "unambiguous", "worth_asking", "notes")
SAMPLE_COLUMNS = ("id", "app", "category", "file", "locator", "question", "answer", *SCORES)
AMBIGUOUS = "ambiguous"
CHECKS = (GUESSABLE.name, AMBIGUOUS, ANSWERABLE.name)
# What a removal by each check means, in words ("26 guessable" alone reads as 26 that passed).
REMOVED_AS = {
    GUESSABLE.name: "guessable",
    AMBIGUOUS: "ambiguous",
    ANSWERABLE.name: "not answerable",
}

_QUOTED = re.compile(r"“[^”]*”|‘[^’]*’|'[^']*'|\"[^\"]*\"|\[[^\]]*\]")
_CELL = re.compile(r"\$?\b[A-Z]{1,3}\$?\d+(?::\$?[A-Z]{1,3}\$?\d+)?\b")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def template(question: str) -> str:
    """The question with what varies (quoted text, names, cells, numbers) folded to slots."""
    text = _QUOTED.sub("‹…›", question)
    text = _CELL.sub("‹cell›", text)
    text = _NUMBER.sub("‹n›", text)
    return " ".join(text.lower().split())


def removed_by(rejected_by: str, reason: str) -> str:
    """Which curator-grade check removed a candidate ('' for any other check)."""
    if GUESSABLE.owns(rejected_by):
        return GUESSABLE.name
    if ANSWERABLE.owns(rejected_by):
        return ANSWERABLE.name
    if DEDUP.owns(rejected_by) and reason.startswith(AMBIGUOUS):
        return AMBIGUOUS
    return ""


@dataclass
class Cell:
    candidates: int = 0
    kept: int = 0
    removed: Counter[str] = field(default_factory=Counter)


@dataclass
class Quality:
    cells: dict[tuple[str, str], Cell] = field(default_factory=dict)
    guess_reasons: Counter[str] = field(default_factory=Counter)
    templates: dict[str, Counter[str]] = field(default_factory=dict)
    kept: dict[tuple[str, str], list[tuple[Candidate, str]]] = field(default_factory=dict)

    def diversity(self, app: str) -> tuple[int, int, float]:
        """(kept questions, distinct templates, share of the TOP most used templates)."""
        counts = self.templates.get(app, Counter())
        total = sum(counts.values())
        top = sum(n for _, n in counts.most_common(TOP))
        return total, len(counts), top / total if total else 0.0


def compute(run: RunStore | RunSnapshot) -> Quality:
    with snapshot_of(run, decisions=False) as snapshot:
        return quality_of(snapshot)


def quality_of(snapshot: RunSnapshot) -> Quality:
    quality = Quality()
    where = snapshot.locators()
    for candidate, status, rejected_by, reason in snapshot.candidates:
        key = (candidate.app, candidate.category)
        cell = get_or_make(quality.cells, key, Cell)
        cell.candidates += 1
        if status == "rejected":
            check = removed_by(rejected_by, reason)
            if check:
                cell.removed[check] += 1
            if check == GUESSABLE.name:
                quality.guess_reasons[reason.split(": ", 1)[-1]] += 1
            continue
        if status not in KEPT_STATUSES:  # incomplete: not kept until a rerun runs its checks
            continue
        cell.kept += 1
        get_or_make(quality.templates, candidate.app, Counter)[template(candidate.question)] += 1
        locator = where.get((candidate.file_sha, candidate.artifact_id), "")
        get_or_make(quality.kept, key, list).append((candidate, locator))
    return quality


def sample(quality: Quality, per_cell: int = PER_CELL, seed: int = SEED) -> list[dict[str, str]]:
    """A stratified sample of kept questions: `per_cell` per application × category."""
    chooser = random.Random(seed)
    rows = []
    for key in sorted(quality.kept):
        pool = sorted(quality.kept[key], key=lambda item: item[0].id)
        for candidate, locator in chooser.sample(pool, min(per_cell, len(pool))):
            rows.append(
                {
                    "id": candidate.id,
                    "app": candidate.app,
                    "category": candidate.category,
                    "file": candidate.file,
                    "locator": locator,
                    "question": candidate.question,
                    "answer": " | ".join(candidate.answer),
                    **dict.fromkeys(SCORES, ""),
                }
            )
    return rows


def sample_tsv(rows: list[dict[str, str]]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=SAMPLE_COLUMNS, delimiter="\t", lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: " ".join(str(v).split()) for k, v in row.items()})
    return buffer.getvalue()


def totals(quality: Quality) -> dict[str, Any]:
    """The numbers the build summary carries."""
    removed: Counter[str] = Counter()
    for cell in quality.cells.values():
        removed.update(cell.removed)
    diversity = {}
    for app in TAXONOMY:
        if app in quality.templates:
            kept, distinct, share = quality.diversity(app)
            diversity[app] = {"kept": kept, "templates": distinct, "top5_share": round(share, 3)}
    return {"removed": {check: removed[check] for check in CHECKS}, "diversity": diversity}


def headline(numbers: dict[str, Any]) -> str:
    """One line for the end of a build: removals per check, then diversity per application."""
    removed = ", ".join(
        f"{n} as {REMOVED_AS.get(check, check)}" for check, n in numbers["removed"].items()
    )
    diversity = "; ".join(
        f"{app} {d['templates']} templates for {d['kept']} kept (top-{TOP} {d['top5_share']:.0%})"
        for app, d in numbers["diversity"].items()
    )
    return f"removed {removed}; {diversity}" if diversity else f"removed {removed}"


def markdown(quality: Quality, sample_name: str, sampled: int) -> str:
    lines = [
        "# Question quality",
        "",
        "Candidates removed by each curator-grade check (QUALITY.md): "
        f"`{GUESSABLE.name}` (a default, giveaway, system name, identifier or automatic "
        f"alt text), `{AMBIGUOUS}` (the same question with different answers in one file, "
        f"rejected by de-duplication), `{ANSWERABLE.name}` (model mode: the file does not "
        "give the reference answer).",
        "",
        "| application / category | candidates | " + " | ".join(CHECKS) + " | kept |",
        "|---|---:|" + "---:|" * len(CHECKS) + "---:|",
    ]
    for app, categories in TAXONOMY.items():
        for category in categories:
            cell = quality.cells.get((app, category))
            if cell is None:
                continue
            removed = " | ".join(str(cell.removed[check]) for check in CHECKS)
            lines.append(f"| {app} / {category} | {cell.candidates} | {removed} | {cell.kept} |")
    lines += ["", "## Why guessable", ""]
    if quality.guess_reasons:
        lines += ["| reason | removed |", "|---|---:|"]
        lines += [f"| {why} | {n} |" for why, n in sorted(quality.guess_reasons.items())]
    else:
        lines.append("No candidate was guessable.")
    lines += [
        "",
        "## Template diversity (kept questions)",
        "",
        "A template is the question with quoted text, names, cells and numbers folded to slots.",
        "",
        f"| application | kept | distinct templates | top-{TOP} share |",
        "|---|---:|---:|---:|",
    ]
    for app in TAXONOMY:
        if app in quality.templates:
            kept, distinct, share = quality.diversity(app)
            lines.append(f"| {app} | {kept} | {distinct} | {share:.0%} |")
    for app in TAXONOMY:
        if app in quality.templates:
            lines += ["", f"Most used {app} templates:", ""]
            lines += [f"- {n} × {t}" for t, n in quality.templates[app].most_common(TOP)]
    lines += [
        "",
        "## Sample to score",
        "",
        f"`{sample_name}`: {sampled} kept questions, up to {PER_CELL} per application × "
        f"category (seed {SEED}). Open each file and fill the columns "
        f"{', '.join(SCORES[:-1])} with 1 (passes) or 0 (fails); the rate per application "
        "is the share of rows that pass all four.",
    ]
    return "\n".join(lines) + "\n"
