"""Coverage against targets: kept / target / gap per application × category (and size bucket).

A cell counts the artifacts the stored documents hold, the candidates drawn from
them, the kept ones (unverified included) and the *unused* artifacts: those no
stored candidate asks about yet, which `regen` can still draw from. Targets come
from the `[coverage]` configuration, overridden by the targets a `regen --target`
recorded in the run store (so the run remembers what a curator asked for).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fidelity.core.apps import TAXONOMY
from fidelity.core.config import SIZE_BUCKETS, CoverageConfig
from fidelity.core.document import KEPT_STATUSES
from fidelity.core.mappings import get_or_make
from fidelity.core.run_snapshot import RunSnapshot
from fidelity.core.store import RunStore, snapshot_of

OVERRIDES_KEY = "coverage_overrides"
NO_BUCKET = "unknown"


@dataclass
class Tally:
    """Counts for one cell, or for one size bucket of a cell."""

    artifacts: int = 0
    candidates: int = 0
    kept: int = 0
    unverified: int = 0
    unused: int = 0
    target: int = 0

    @property
    def gap(self) -> int:
        return max(0, self.target - self.kept)


@dataclass
class Cell(Tally):
    """One application × category cell with its per-size-bucket tallies."""

    app: str = ""
    category: str = ""
    files: int = 0  # stored documents holding at least one artifact of the cell
    buckets: dict[str, Tally] = field(default_factory=dict)

    def bucket(self, name: str) -> Tally:
        return get_or_make(self.buckets, name, Tally)


def targets_for(snapshot: RunSnapshot, config: CoverageConfig) -> CoverageConfig:
    """The configured targets with the ones recorded by `regen --target` on top."""
    merged = CoverageConfig(
        default=config.default,
        targets={app: dict(cells) for app, cells in config.targets.items()},
        bucket_targets=config.bucket_targets,
    )
    for app, cells in snapshot.meta.get(OVERRIDES_KEY, {}).items():
        merged.targets.setdefault(app, {}).update(cells)
    return merged


def record_override(store: RunStore, cells: list[tuple[str, str]], target: int) -> None:
    """Remember `target` for these cells in the run store."""
    overrides = store.meta(OVERRIDES_KEY, {})
    for app, category in cells:
        overrides.setdefault(app, {})[category] = target
    store.set_meta(OVERRIDES_KEY, overrides)


def compute(run: RunStore | RunSnapshot, config: CoverageConfig) -> dict[tuple[str, str], Cell]:
    """Every taxonomy cell (plus any category an extractor used outside it), counted."""
    with snapshot_of(run, decisions=False) as snapshot:
        return snapshot.derived((cells_of, repr(config)), lambda: cells_of(snapshot, config))


def cells_of(snapshot: RunSnapshot, config: CoverageConfig) -> dict[tuple[str, str], Cell]:
    targets = targets_for(snapshot, config)
    cells = {
        (app, category): Cell(app=app, category=category)
        for app, categories in TAXONOMY.items()
        for category in categories
    }

    def cell(app: str, category: str) -> Cell:
        return get_or_make(cells, (app, category), lambda: Cell(app=app, category=category))

    used: set[tuple[str, str]] = set()
    rows = snapshot.candidates
    for candidate, _, _, _ in rows:
        used.add((candidate.file_sha, candidate.artifact_id))
    buckets: dict[str, str] = {}
    for document in snapshot.documents:
        bucket = document.size.get("bucket") or NO_BUCKET
        buckets[document.sha256] = bucket
        for app, category in {(document.app, a.category) for a in document.artifacts}:
            cell(app, category).files += 1
        for artifact in document.artifacts:
            unused = (document.sha256, artifact.id) not in used
            whole = cell(document.app, artifact.category)
            for tally in (whole, whole.bucket(bucket)):
                tally.artifacts += 1
                tally.unused += unused
    for candidate, status, _, _ in rows:
        whole = cell(candidate.app, candidate.category)
        part = whole.bucket(buckets.get(candidate.file_sha, NO_BUCKET))
        for tally in (whole, part):
            tally.candidates += 1
            tally.kept += status in KEPT_STATUSES
            tally.unverified += status == "unverified"
    for (app, category), entry in cells.items():
        entry.target = targets.target(app, category)
        for bucket, wanted in targets.buckets(app, category).items():
            entry.bucket(bucket).target = wanted
    return cells


def extracted_counts(
    run: RunStore | RunSnapshot, config: CoverageConfig
) -> dict[tuple[str, str], tuple[int, int]]:
    """(files holding it, artifacts) per (app, category): what corpus.md shows after a build."""
    return {key: (cell.files, cell.artifacts) for key, cell in compute(run, config).items()}


def below_target(
    cells: dict[tuple[str, str], Cell], app: str | None = None, category: str | None = None
) -> list[Cell]:
    """Cells (optionally of one application / category) short of their target or a bucket's."""
    return [
        cell
        for (cell_app, cell_category), cell in cells.items()
        if (app is None or cell_app == app)
        and (category is None or cell_category == category)
        and (cell.gap or any(tally.gap for tally in cell.buckets.values()))
    ]


def markdown(run: RunStore | RunSnapshot, config: CoverageConfig, only_short: bool = False) -> str:
    """`coverage.md`: the matrix with targets and gaps, then per-bucket targets if any."""
    with snapshot_of(run, decisions=False) as snapshot:
        cells = compute(snapshot, config)
        mode = snapshot.meta.get("mode", "offline")
    short = below_target(cells)
    shown = short if only_short else list(cells.values())
    lines = [
        "# Coverage (application × category)",
        "",
        f"Mode: {mode}. Kept includes unverified candidates. "
        "Unused artifacts: artifacts no stored candidate asks about yet "
        "(`fidelity regen` draws from them first). These are the extracted artifacts questions "
        "are drawn from; after a build, corpus.md's coverage table counts the same artifacts "
        "(its files column: the extracted files holding at least one).",
        "",
        f"{len(short)} cell(s) below target, {sum(c.gap for c in cells.values())} questions "
        "missing in all.",
        "",
        "| app | category | artifacts | candidates | kept | unverified | target | gap "
        "| unused artifacts |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for cell in shown:
        lines.append(
            f"| {cell.app} | {cell.category} | {cell.artifacts} | {cell.candidates} "
            f"| {cell.kept} | {cell.unverified} | {cell.target} | {cell.gap} | {cell.unused} |"
        )
    with_buckets = [cell for cell in shown if any(t.target for t in cell.buckets.values())]
    if with_buckets:
        lines += [
            "",
            "## Size buckets",
            "",
            "| app | category | bucket | kept | target | gap | unused artifacts |",
            "|---|---|---|---:|---:|---:|---:|",
        ]
        for cell in with_buckets:
            for name in (*SIZE_BUCKETS, NO_BUCKET):
                tally = cell.buckets.get(name)
                if tally and (tally.target or tally.kept or tally.unused):
                    lines.append(
                        f"| {cell.app} | {cell.category} | {name} | {tally.kept} "
                        f"| {tally.target} | {tally.gap} | {tally.unused} |"
                    )
    return "\n".join(lines) + "\n"
