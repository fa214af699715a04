"""The run's filter funnel: candidates, how many survive each check in turn, how many are kept.

Checks run in a fixed order (guessability, no-context, the ablation views, the
positive answerable checks, grading, de-duplication)
and a candidate stops at the first that rejects it, so the survivors of each stage are
the candidates not rejected by it or by any earlier stage. Counted for the whole run,
per application and per application × category, and written to OUT/funnel.md.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from fidelity.core.apps import TAXONOMY
from fidelity.core.mappings import get_or_make
from fidelity.core.run_snapshot import RunSnapshot
from fidelity.core.store import RunStore, snapshot_of
from filters.chain import ABLATION, CHAIN
from filters.chain import stage_of as chain_stage

STAGES = tuple(stage.name for stage in CHAIN)
LEAKAGE = "lexical-leakage"


def stage_of(check: str) -> str:
    """The chain stage a check name belongs to (its prefix for a name the chain lacks)."""
    stage = chain_stage(check)
    return stage.name if stage is not None else check.split(":")[0]


@dataclass
class Row:
    """One funnel line: candidates in, rejections per stage, kept and unverified."""

    candidates: int = 0
    rejected: Counter[str] = field(default_factory=Counter)
    unverified: int = 0
    incomplete: int = 0

    def survivors(self) -> list[int]:
        left, out = self.candidates, []
        for stage in STAGES:
            left -= self.rejected[stage]
            out.append(left)
        return out

    @property
    def kept(self) -> int:
        """Candidates no check rejected and every check ran on (unverified included)."""
        return self.candidates - self.rejected_total - self.incomplete

    @property
    def rejected_total(self) -> int:
        return sum(self.rejected.values())


@dataclass
class Funnel:
    total: Row = field(default_factory=Row)
    apps: dict[str, Row] = field(default_factory=dict)
    cells: dict[tuple[str, str], Row] = field(default_factory=dict)
    views: Counter[str] = field(default_factory=Counter)
    model_checks: int = 0
    leakage_decided: int = 0


def compute(run: RunStore | RunSnapshot) -> Funnel:
    with snapshot_of(run) as snapshot:
        return snapshot.derived(funnel_of, lambda: funnel_of(snapshot))


def funnel_of(snapshot: RunSnapshot) -> Funnel:
    funnel = Funnel()
    for candidate, status, rejected_by, _ in snapshot.candidates:
        rows = (
            funnel.total,
            get_or_make(funnel.apps, candidate.app, Row),
            get_or_make(funnel.cells, (candidate.app, candidate.category), Row),
        )
        for row in rows:
            row.candidates += 1
            if status == "rejected":
                row.rejected[stage_of(rejected_by)] += 1
            row.unverified += status == "unverified"
            row.incomplete += status == "incomplete"
        for decision in snapshot.decisions_of(candidate.id):
            if not ABLATION.owns(decision.check):
                continue
            if decision.verdict == "fail":
                funnel.views[decision.view.split(":")[0]] += 1
            if decision.match == LEAKAGE and decision.verdict == "fail":
                funnel.leakage_decided += 1
            elif decision.match != LEAKAGE:
                funnel.model_checks += 1
    return funnel


def outcome(row: Row) -> str:
    """What became of a row's candidates, in words: the page's header, funnel.md and a build's
    last lines all say it with these numbers."""
    text = (
        f"{row.candidates} candidates: {row.kept} kept ({row.unverified} of them unverified), "
        f"{row.rejected_total} rejected"
    )
    if row.incomplete:
        text += f", {row.incomplete} incomplete (a model check did not run)"
    return text


def step(stage: str, left: int, rejected: int) -> str:
    """One stage of the funnel in words: how many are still in after it and how many it took."""
    return f"{left} left after {stage}" + (f" ({rejected} rejected)" if rejected else "")


def headline(funnel: Funnel) -> str:
    """One line for the end of the run: candidates -> survivors of each stage -> kept."""
    row = funnel.total
    steps = [f"{row.candidates} candidates"]
    steps += [
        step(stage, left, row.rejected[stage])
        for stage, left in zip(STAGES, row.survivors(), strict=True)
    ]
    kept = f" → {row.kept} kept ({row.unverified} of them unverified)"
    if row.incomplete:
        kept += f", {row.incomplete} incomplete (a model check did not run)"
    return " → ".join(steps) + kept


def _line(label: str, row: Row) -> str:
    counts = " | ".join(str(n) for n in [row.candidates, *row.survivors(), row.kept])
    return f"| {label} | {counts} | {row.unverified} | {row.incomplete} |"


def markdown(funnel: Funnel, mode: str) -> str:
    header = [
        "| | candidates | "
        + "".join(f"after {name} | " for name in STAGES)
        + "kept | unverified | incomplete |",
        "|---|---:|" + "---:|" * len(STAGES) + "---:|---:|---:|",
    ]
    offline = (
        " The no-context, answerable and grading checks need a model: offline they drop nothing."
    )
    lines = [
        "# Filter funnel",
        "",
        f"Mode: {mode}. Each column counts the candidates still in after that check "
        "(a candidate stops at the first check that rejects it). Kept includes unverified; "
        "incomplete candidates (a model check did not run) are not kept until a rerun runs "
        "their checks." + (offline if mode != "model" else ""),
        "",
        f"Run: {headline(funnel)}",
        "",
        f"Outcome: {outcome(funnel.total)}.",
        "",
        "## Per application",
        "",
        *header,
        _line("all", funnel.total),
        *(_line(app, funnel.apps[app]) for app in TAXONOMY if app in funnel.apps),
        "",
        "## Per application × category",
        "",
        *header,
    ]
    for app, categories in TAXONOMY.items():
        for category in categories:
            if (app, category) in funnel.cells:
                lines.append(_line(f"{app} / {category}", funnel.cells[(app, category)]))
    lines += ["", "## Ablation rejections per view", ""]
    if funnel.views:
        lines += ["| view | rejected |", "|---|---:|"]
        lines += [f"| {view} | {n} |" for view, n in sorted(funnel.views.items())]
    else:
        lines.append("No candidate was rejected by an ablation view.")
    if mode == "model":
        lines += [
            "",
            f"The lexical leakage test decided {funnel.leakage_decided} ablation checks "
            f"without a model call; the model decided {funnel.model_checks}.",
        ]
    return "\n".join(lines) + "\n"
