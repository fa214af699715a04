"""Regenerate questions for coverage cells below their target.

For each short cell (and size bucket with its own target), new candidates are drawn
from the run's stored documents: first from artifacts no stored candidate asks about,
then question types an artifact has not been asked yet, then more of the same kind
(the rules with their per-artifact caps lifted; in model mode also the model
generators with a larger budget). They go through the same per-file filters and the
run-wide de-duplication as a build, in batches the size of the remaining gap, until
the target is met or nothing new is left. Stored candidates are never changed,
dropped or duplicated; new ones are stored after each file's existing ones.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from dataclasses import dataclass, field, replace
from pathlib import Path

from fidelity import coverage
from fidelity.core.apps import TAXONOMY
from fidelity.core.config import Config, ModelsConfig
from fidelity.core.document import Candidate, Document
from fidelity.core.llm import LLMClient
from fidelity.core.store import RunStore
from fidelity.outlock import output_lock
from fidelity.outputs import write_outputs
from fidelity.pipeline import (
    Stages,
    default_stages,
    filter_candidates,
    open_store,
    run_dedup,
    store_outcomes,
)
from fidelity.stages import Generate
from generators import rules
from generators.llm import LLMGenerators

# How far the rules' per-artifact caps are lifted (cells per table, sentences per chunk).
WIDEN = 50
# How much larger the model generators' per-unit budget is during regeneration.
MODEL_BUDGET_SCALE = 2

# Unused artifacts named per reason when a cell stays short.
EXAMPLES = 3


@dataclass
class CellReport:
    """What regeneration did for one cell or one size bucket of a cell."""

    app: str
    category: str
    bucket: str | None
    target: int
    before: int
    after: int
    drawn: int
    # Why the cell's unused artifacts give nothing more: reason -> "file#artifact" examples.
    unusable: dict[str, list[str]] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return f"{self.app}/{self.category}" + (f" [{self.bucket}]" if self.bucket else "")

    @property
    def met(self) -> bool:
        return self.after >= self.target


def widened_budget(settings: ModelsConfig) -> ModelsConfig:
    """Model settings asking for more questions per unit, rules left to the widened pass."""
    budget = settings.generation
    scaled = replace(
        budget,
        questions_per_chunk=budget.questions_per_chunk * MODEL_BUDGET_SCALE,
        questions_per_table=budget.questions_per_table * MODEL_BUDGET_SCALE,
        questions_per_image=budget.questions_per_image * MODEL_BUDGET_SCALE,
        questions_per_fact_type=budget.questions_per_fact_type * MODEL_BUDGET_SCALE,
        fact_questions_per_document=budget.fact_questions_per_document * MODEL_BUDGET_SCALE,
    )
    return replace(settings, with_rules=False, generation=scaled)


def regen_stages(config: Config, store: RunStore, out: Path) -> tuple[Stages, LLMClient | None]:
    """The build's stages (same filters) with a generator that reaches past the build's."""
    stages, client = default_stages(config, store, out)
    if client is None:
        return replace(stages, generate=lambda d: rules.generate(d, widen=WIDEN)), None
    llm_generators = LLMGenerators(client, widened_budget(config.models))

    def generate(document: Document) -> list[Candidate]:
        drafted = rules.generate(document, widen=WIDEN) + llm_generators(document)
        return list({candidate.id: candidate for candidate in drafted}.values())

    return replace(stages, generate=generate), client


class Pool:
    """New candidates per document, generated once per regeneration run."""

    def __init__(self, store: RunStore, generate: Generate) -> None:
        self.store = store
        self.generate = generate
        self.documents = list(store.documents())
        self.drafted: dict[str, list[Candidate]] = {}

    def draw(self, app: str, category: str, bucket: str | None) -> list[tuple[Document, Candidate]]:
        """Not-yet-stored candidates of one cell, best first, documents interleaved."""
        stored = self.store.candidates()
        known = {candidate.id for candidate, _, _, _ in stored}
        asked: dict[tuple[str, str], set[str]] = defaultdict(set)
        for candidate, _, _, _ in stored:
            asked[(candidate.file_sha, candidate.artifact_id)].add(candidate.question_type)
        ranked = []
        for doc_index, document in enumerate(self.documents):
            if document.app != app or not any(a.category == category for a in document.artifacts):
                continue
            if bucket and (document.size.get("bucket") or coverage.NO_BUCKET) != bucket:
                continue
            if document.sha256 not in self.drafted:
                self.drafted[document.sha256] = self.generate(document)
            nth: dict[tuple[int, str], int] = defaultdict(int)
            order = {artifact.id: i for i, artifact in enumerate(document.artifacts)}
            for candidate in self.drafted[document.sha256]:
                if candidate.category != category or candidate.id in known:
                    continue
                types = asked.get((document.sha256, candidate.artifact_id))
                tier = 0 if not types else 1 if candidate.question_type not in types else 2
                rank = nth[(tier, candidate.artifact_id)]
                nth[(tier, candidate.artifact_id)] += 1
                key = (tier, rank, doc_index, order.get(candidate.artifact_id, 0))
                ranked.append((key, document, candidate))
        ranked.sort(key=lambda item: item[0])
        return [(document, candidate) for _, document, candidate in ranked]

    def unusable(self, app: str, category: str, bucket: str | None) -> dict[str, list[str]]:
        """The cell's artifacts no stored candidate asks about, grouped by why the rules
        give nothing for them ("a one-column table…"), each with "file#artifact" examples."""
        used = {(item.file_sha, item.artifact_id) for item, *_ in self.store.candidates()}
        reasons: dict[str, list[str]] = defaultdict(list)
        for document in self.documents:
            if document.app != app:
                continue
            if bucket and (document.size.get("bucket") or coverage.NO_BUCKET) != bucket:
                continue
            for artifact in document.artifacts:
                if artifact.category != category or (document.sha256, artifact.id) in used:
                    continue
                name = Path(document.source).name
                reasons[rules.unasked(document, artifact)].append(f"{name}#{artifact.id}")
        return dict(reasons)


def _tally(
    store: RunStore, config: Config, app: str, category: str, bucket: str | None
) -> coverage.Tally:
    cell = coverage.compute(store, config.coverage)[(app, category)]
    return cell.bucket(bucket) if bucket else cell


def fill(
    store: RunStore,
    config: Config,
    stages: Stages,
    pool: Pool,
    slot: tuple[str, str, str | None],
) -> CellReport:
    """Draw, filter and store new candidates for one cell (or bucket) until its target."""
    app, category, bucket = slot
    tally = _tally(store, config, *slot)
    target, before, kept = tally.target, tally.kept, tally.kept
    fresh = pool.draw(app, category, bucket)
    drawn = 0
    while kept < target and fresh:
        batch, fresh = fresh[: target - kept], fresh[target - kept :]
        by_document: dict[str, tuple[Document, list[Candidate]]] = {}
        for document, candidate in batch:
            by_document.setdefault(document.sha256, (document, []))[1].append(candidate)
        for document, candidates in by_document.values():
            outcomes = filter_candidates(document, candidates, stages)
            with store.transaction():
                drawn += store_outcomes(store, outcomes, store.next_seq(document.sha256))
        run_dedup(store, config)
        kept = _tally(store, config, *slot).kept
    unusable = pool.unusable(app, category, bucket) if kept < target else {}
    return CellReport(app, category, bucket, target, before, kept, drawn, unusable)


def select_cells(app: str | None, category: str | None) -> list[tuple[str, str]]:
    """Taxonomy cells matching the filters; a clear error for names not in the taxonomy."""
    if app is not None and app not in TAXONOMY:
        raise ValueError(f"unknown application {app!r} (one of {', '.join(TAXONOMY)})")
    cells = [
        (cell_app, cell_category)
        for cell_app, categories in TAXONOMY.items()
        for cell_category in categories
        if (app is None or cell_app == app) and (category is None or cell_category == category)
    ]
    if not cells:
        raise ValueError(f"no taxonomy category {category!r}" + (f" for {app}" if app else ""))
    return cells


def regen(
    out: Path,
    config: Config,
    app: str | None = None,
    category: str | None = None,
    target: int | None = None,
    stages: Stages | None = None,
) -> list[CellReport]:
    """Raise the selected cells below target; returns one report per cell or bucket worked on."""
    with output_lock(out, "regen"):
        return _regen(out, config, app, category, target, stages)


def _regen(
    out: Path,
    config: Config,
    app: str | None,
    category: str | None,
    target: int | None,
    stages: Stages | None,
) -> list[CellReport]:
    selected = select_cells(app, category)
    store = open_store(out)
    client: LLMClient | None = None
    try:
        if target is not None:
            coverage.record_override(store, selected, target)
        if stages is None:
            stages, client = regen_stages(config, store, out)
        cells = coverage.compute(store, config.coverage)
        short = [c for c in coverage.below_target(cells) if (c.app, c.category) in selected]
        pool = Pool(store, stages.generate)
        reports = []
        for cell in short:
            buckets = [name for name, tally in sorted(cell.buckets.items()) if tally.gap]
            for bucket in [*buckets, None]:
                reports.append(fill(store, config, stages, pool, (cell.app, cell.category, bucket)))
        write_outputs(store, out, config.coverage)
        if client is not None:
            print(client.finish(out), file=sys.stderr)
        return reports
    finally:
        store.close()


def describe(reports: list[CellReport]) -> str:
    """A curator's summary: what was raised, and which cells need more documents."""
    if not reports:
        return "every selected cell is at or above its target; nothing to do"
    lines = []
    for report in reports:
        state = "target met" if report.met else "still short"
        lines.append(
            f"{report.label}: {report.before} -> {report.after} kept of {report.target} "
            f"({report.drawn} new candidates filtered; {state})"
        )
    missing = [report for report in reports if not report.met]
    if missing:
        lines.append("")
        lines.append("The corpus has nothing more to ask for these cells; add documents with:")
        for report in missing:
            lines.append(f"  {report.label}: {report.target - report.after} more questions needed")
            for reason, where in sorted(report.unusable.items(), key=lambda item: -len(item[1])):
                shown = ", ".join(where[:EXAMPLES]) + (", …" if len(where) > EXAMPLES else "")
                lines.append(f"    {len(where)} unused: {reason} ({shown})")
    return "\n".join(lines)
