"""`fidelity explain`: the decision trail of each candidate of one file, from the run store.

The same printing serves offline and model runs: per check the view, the context
(hash and size, retrievable from the store), what the rule or model answered, how it
was matched, the verdict and reason, and the model calls behind it. `--diff` adds what
each ablation view removed from (or put in place of) the full document; `--replay`
re-runs the filters from the stored document and recorded calls (fidelity.replay).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from pathlib import Path

from fidelity.core.config import Config
from fidelity.core.document import Candidate, Decision, Document
from fidelity.core.store import RunStore
from fidelity.core.views import View, view_context
from fidelity.replay import replay_file
from filters.chain import ABLATION

DIFF_LINES = 12
SHOWN_CHARS = 160


def explain(
    store: RunStore,
    file_sha: str,
    out: Path,
    config: Config,
    *,
    question: str | None = None,
    diff: bool = False,
    replay: bool = False,
    say: Callable[[str], None] = print,
) -> int:
    """Print the trail; with `replay`, 1 when any replayed decision differs from the store."""
    rows = [
        row for row in store.candidates(file_sha=file_sha) if not question or row[0].id == question
    ]
    if not rows:
        say(f"no candidate {question} stored for this file")
        return 1
    document = store.document(file_sha)
    full = view_context(document, View("full")).text if diff and document else ""
    diffs: dict[str, list[str]] = {}
    for candidate, status, rejected_by, reason in rows:
        _candidate(say, candidate, status, document)
        for decision in store.decisions(candidate.id):
            _decision(say, store, decision)
            if diff and ABLATION.owns(decision.check):
                if decision.context_hash not in diffs:
                    diffs[decision.context_hash] = removed(
                        full, store.context(decision.context_hash)
                    )
                for line in diffs[decision.context_hash]:
                    say(f"      {line}")
        if rejected_by:
            say(f"  => rejected by {rejected_by}: {reason}")
        say("")
    if not replay:
        return 0
    result = replay_file(store, file_sha, out, config, only=question)
    mode = store.meta("mode", "offline")
    source = "recorded model calls only" if mode == "model" else "the stored document"
    for difference in result.differences:
        say(
            f"DIFFERS {difference.candidate_id} {difference.check or '-'} {difference.field}: "
            f"recorded {difference.recorded!r}, replayed {difference.replayed!r}"
        )
    say(
        f"replay ({mode}, from {source}): {len(result.decisions)} candidates, "
        f"{result.compared} decisions, {len(result.differences)} differences"
    )
    return 1 if result.differences else 0


def _candidate(
    say: Callable[[str], None], candidate: Candidate, status: str, document: Document | None
) -> None:
    locator = ""
    if document is not None:
        try:
            locator = f" at {document.artifact(candidate.artifact_id).locator}"
        except KeyError:
            locator = ""
    say(f"[{status}] {candidate.id} {candidate.category} ({candidate.artifact_id}){locator}")
    say(f"  Q: {candidate.question}")
    for statement in candidate.answer:
        say(f"  A: {statement}")
    say(f"  generator: {candidate.generator} {candidate.generator_version}")
    for note in candidate.notes:
        say(f"  - generation: {note}")


def _decision(say: Callable[[str], None], store: RunStore, decision: Decision) -> None:
    size = ""
    if decision.context_hash:
        text = store.context(decision.context_hash)
        size = f" ({len(text)} chars)" if text is not None else " (text not stored)"
    say(
        f"  - {decision.check:<24} view={decision.view} "
        f"context={decision.context_hash[:12]}{size} verdict={decision.verdict}"
    )
    say(f"      match={decision.match} reason={decision.reason}")
    if decision.answered:
        say(f"      answered: {decision.answered}")
    for key in (decision.model_call or "").split(","):
        if key:
            say(f"      model call: {_call(store, key)}")


def _call(store: RunStore, key: str) -> str:
    record = store.model_call(key)
    if record is None:
        return f"{key[:16]} (not recorded)"
    state = f"error: {record['error']}" if record["error"] else "recorded"
    return f"{key[:16]} {record['stage']} / {record['model']} ({state})"


def removed(full: str, context: str | None) -> list[str]:
    """What a view leaves out of the full document ('-') and puts in its place ('+')."""
    if context is None:
        return ["(context text not stored)"]
    gone, added = [], []
    matcher = difflib.SequenceMatcher(None, full.splitlines(), context.splitlines(), autojunk=False)
    full_lines, context_lines = full.splitlines(), context.splitlines()
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag in ("delete", "replace"):
            gone += [line for line in full_lines[i1:i2] if line.strip()]
        if tag in ("insert", "replace"):
            added += [line for line in context_lines[j1:j2] if line.strip()]
    if not gone and not added:
        return ["view = full document (nothing removed)"]
    lines = [f"removed {len(gone)} lines, {len(added)} in their place:"]
    lines += [f"- {_short(line)}" for line in gone[:DIFF_LINES]]
    if len(gone) > DIFF_LINES:
        lines.append(f"- … {len(gone) - DIFF_LINES} more removed lines")
    lines += [f"+ {_short(line)}" for line in added[:DIFF_LINES]]
    if len(added) > DIFF_LINES:
        lines.append(f"+ … {len(added) - DIFF_LINES} more lines in their place")
    return lines


def _short(line: str) -> str:
    line = line.strip()
    return line if len(line) <= SHOWN_CHARS else line[: SHOWN_CHARS - 1] + "…"
