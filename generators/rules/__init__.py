"""Deterministic question rules from typed facts: the offline generator, one module per app."""

from __future__ import annotations

import importlib
from collections.abc import Callable

from fidelity.model import Artifact, Candidate, Document
from generators.rules.common import widened

GENERATOR = "rules"
VERSION = "1"

Rule = Callable[[Document, Artifact], list[Candidate]]

RULE_MODULES = {
    "word": "generators.rules.word",
    "excel": "generators.rules.excel",
    "powerpoint": "generators.rules.powerpoint",
}


def generate(document: Document, widen: int = 1) -> list[Candidate]:
    """Every rule-based candidate for a document, in artifact order.

    `widen` multiplies the per-artifact caps (table cells, cloze sentences) so a
    regeneration pass can draw candidates beyond the ones a build makes.
    """
    module = importlib.import_module(RULE_MODULES[document.app])
    rules: dict[str, Rule] = module.RULES
    out: list[Candidate] = []
    seen: set[str] = set()
    with widened(widen):
        for artifact in document.artifacts:
            rule = rules.get(artifact.kind)
            if rule is None:
                continue
            for item in rule(document, artifact):
                if item.id not in seen and item.probe.value.strip():
                    seen.add(item.id)
                    out.append(item)
    return out
