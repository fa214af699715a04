"""Deterministic question rules from typed facts: the offline generator, one module per app."""

from __future__ import annotations

import hashlib
import importlib
import re

from fidelity.core.apps import APPLICATIONS
from fidelity.core.document import Artifact, Candidate, Document
from generators.rules.common import Rule, cap, widened

# At most this many candidates of one question type per document (a workbook with 400
# defined names must not flood the set); the kept ones are a stable hash sample.
PER_TYPE = 12
# At most this many questions of one type with the same property value per document: twelve
# headings "in 11 pt", every caption "centred", four charts at one position ask one thing.
PER_ANSWER = 1
# Question types that ask a property of an element whatever its category (four green tabs).
PROPERTY_TYPES = frozenset({"sheet-tab-colour", "chart-legend", "chart-type", "table-style"})


def generate(document: Document, widen: int = 1) -> list[Candidate]:
    """Every rule-based candidate for a document, in artifact order.

    `widen` multiplies the per-artifact caps (table cells, cloze sentences) and the
    per-type cap, so a regeneration pass can draw candidates beyond the ones a build makes.
    """
    module = importlib.import_module(APPLICATIONS[document.app].rules)
    rules: dict[str, Rule] = module.RULES
    out: list[Candidate] = []
    seen: set[str] = set()
    with widened(widen):
        for artifact in document.artifacts:
            rule = rules.get(artifact.kind)
            if rule is None:
                continue
            for item in rule(document, artifact):
                if item.id not in seen and _readable(item.probe.value):
                    seen.add(item.id)
                    out.append(item)
        return _sample_per_type(_few_per_answer(document, _asked_once(out)), cap(PER_TYPE))


def unasked(document: Document, artifact: Artifact) -> str:
    """Why the rules draft no question about an artifact, as a curator reads it: the
    application's own reason when its module gives one (`UNASKED`, by kind), else what is
    known in general."""
    module = importlib.import_module(APPLICATIONS[document.app].rules)
    if artifact.kind not in module.RULES:
        return f"no rule asks about a {artifact.kind}"
    explain = getattr(module, "UNASKED", {}).get(artifact.kind)
    reason = explain(document, artifact) if explain else ""
    return reason or f"the {artifact.kind} rule finds nothing it can ask unambiguously"


def _asked_once(candidates: list[Candidate]) -> list[Candidate]:
    """One candidate per question text: the same question twice with the same answer is
    kept once; with different answers (two elements the wording cannot tell apart) it is
    not asked at all."""
    answers: dict[str, set[tuple[str, ...]]] = {}
    for item in candidates:
        answers.setdefault(item.question, set()).add(tuple(item.answer))
    out, seen = [], set()
    for item in candidates:
        if len(answers[item.question]) == 1 and item.question not in seen:
            seen.add(item.question)
            out.append(item)
    return out


def _few_per_answer(document: Document, candidates: list[Candidate]) -> list[Candidate]:
    """Up to PER_ANSWER candidates per (question type, answer) about an element's property
    (its format, layout, position), chosen by id hash; content answers are all kept (two
    comments by one author are two questions)."""
    about_property = {a.id for a in document.artifacts if a.about_property}
    groups: dict[tuple[str, str], list[Candidate]] = {}
    for item in candidates:
        if item.artifact_id not in about_property and item.question_type not in PROPERTY_TYPES:
            groups[(item.id, "")] = [item]
            continue
        key = (item.question_type, " ".join(item.probe.value.casefold().split()))
        groups.setdefault(key, []).append(item)
    chosen = {
        item.id
        for items in groups.values()
        for item in sorted(items, key=lambda c: hashlib.sha256(c.id.encode()).digest())[:PER_ANSWER]
    }
    return [item for item in candidates if item.id in chosen]


_MARKERS = re.compile(r"\[(?:picture|image)[^\]]*\]", re.IGNORECASE)


def _readable(value: str) -> bool:
    """An answer a reader can state: not empty, not only picture markers."""
    return any(char.isalnum() for char in _MARKERS.sub("", value))


def _sample_per_type(candidates: list[Candidate], limit: int) -> list[Candidate]:
    """Keep up to `limit` candidates per question type, chosen by id hash, in their order."""
    by_type: dict[str, list[Candidate]] = {}
    for item in candidates:
        by_type.setdefault(item.question_type, []).append(item)
    chosen = {
        item.id
        for items in by_type.values()
        for item in sorted(items, key=lambda c: hashlib.sha256(c.id.encode()).digest())[:limit]
    }
    return [item for item in candidates if item.id in chosen]
