"""Model-driven question generators, one module per artifact modality, plus the combination
with the rule-based generator that model mode runs (`LLMGenerators(client, settings)`).

Every generator drafts from Artifact fields only (modality, text, html, media, facts),
so it works for any application's extractor.
"""

from __future__ import annotations

import sys
from typing import Any

from fidelity.core.config import ModelsConfig
from fidelity.core.document import Candidate, Document
from fidelity.core.llm import ModelClient
from generators import rules
from generators.llm.common import LLMGenerator
from generators.llm.facts import FactsGenerator
from generators.llm.table import TableGenerator
from generators.llm.text import TextGenerator
from generators.llm.visual import VisualGenerator

GENERATORS: dict[str, type[LLMGenerator]] = {
    "text": TextGenerator,
    "visual": VisualGenerator,
    "table": TableGenerator,
    "facts": FactsGenerator,
}


class LLMGenerators:
    """`generate(document)` for model mode: rule candidates (if kept) then model candidates."""

    def __init__(self, client: ModelClient, settings: ModelsConfig) -> None:
        unknown = set(settings.generators) - set(GENERATORS)
        if unknown:
            raise ValueError(f"unknown model generators: {', '.join(sorted(unknown))}")
        self.client = client
        self.with_rules = settings.with_rules
        self.generators = [
            GENERATORS[name](client, settings.generation) for name in settings.generators
        ]

    def __call__(self, document: Document) -> list[Candidate]:
        out = rules.generate(document) if self.with_rules else []
        jobs = [(g, unit) for g in self.generators for unit in g.units(document)]
        for drafted in self.client.map(lambda job: self._draft(document, *job), jobs):
            out.extend(drafted)
        seen: set[str] = set()
        unique = []
        for item in out:
            if item.id not in seen and item.probe.value.strip():
                seen.add(item.id)
                unique.append(item)
        return unique

    def _draft(self, document: Document, generator: LLMGenerator, unit: Any) -> list[Candidate]:
        """One unit's candidates; a failure is counted and reported, never raised into the run."""
        try:
            return generator.draft(document, unit)
        except Exception as error:  # one odd artifact must not stop the file or the run
            self.client.accounting.count(f"model:{generator.name}", "failed (internal error)")
            print(
                f"fidelity: model:{generator.name} failed on {document.source}: "
                f"{type(error).__name__}: {error}",
                file=sys.stderr,
            )
            return []
