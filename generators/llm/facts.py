"""App-specific fidelity: typed questions over the file's typed facts (comments, headers,
formulas, hidden slides, fonts…), one call per document with a prompt per application.

Type-level priorities keep the set from drifting to the most numerous facts (fonts):
each category gets a quota of `questions_per_fact_type` scaled by its priority, the
categories are offered (and kept) in priority order, and the document has a cap.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pydantic import BaseModel

from fidelity.core.apps import APPLICATIONS, TAXONOMY
from fidelity.core.document import Artifact, Candidate, Document
from fidelity.core.prompt import load
from fidelity.core.text import normalize
from generators.draft import quote
from generators.llm.common import (
    BOOLEAN_ANSWERS,
    DraftingGenerator,
    anchor_for,
    facts_text,
    grounded,
    plain,
    provenance,
    spread,
)

FACT_CHARS = 400


class FactQuestion(BaseModel):
    fact_id: str
    question_type: str
    question: str
    answer: list[str]
    value: str


class FactQuestions(BaseModel):
    questions: list[FactQuestion]


@dataclass(frozen=True)
class FactGroup:
    category: str
    quota: int
    facts: tuple[Artifact, ...]


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "fact"


def fact_line(artifact: Artifact) -> str:
    text = quote(plain(artifact.text), FACT_CHARS) or "(no text)"
    facts = quote(facts_text(artifact), FACT_CHARS)
    return (
        f"[{artifact.id}] {artifact.category} / {artifact.kind} at {artifact.locator}\n"
        f"  facts: {facts}\n  text: {text}"
    )


class FactsGenerator(DraftingGenerator):
    name = "facts"

    def groups(self, document: Document) -> list[FactGroup]:
        """Element facts by category, in priority order, each with its quota."""
        by_category: dict[str, list[Artifact]] = {}
        for artifact in document.artifacts:
            if artifact.modality == "element":
                by_category.setdefault(artifact.category, []).append(artifact)
        order = TAXONOMY.get(document.app, ())
        out = []
        for category, artifacts in by_category.items():
            priority = self.budget.type_priority.get(category, 1.0)
            if priority <= 0:
                continue
            quota = max(1, round(self.budget.questions_per_fact_type * priority))
            shown = tuple(spread(artifacts, self.budget.facts_shown_per_type))
            out.append(
                (
                    -priority,
                    order.index(category) if category in order else 99,
                    category,
                    FactGroup(category, quota, shown),
                )
            )
        return [group for *_, group in sorted(out, key=lambda item: item[:3])]

    def units(self, document: Document) -> list[list[FactGroup]]:
        groups = self.groups(document)
        return [groups] if groups else []

    def draft(self, document: Document, groups: list[FactGroup]) -> list[Candidate]:
        prompt = load(f"facts-{document.app}")
        quotas = "\n".join(f"- {g.category}: up to {g.quota}" for g in groups)
        facts = "\n".join(fact_line(a) for g in groups for a in g.facts)
        total = min(sum(g.quota for g in groups), self.budget.fact_questions_per_document)
        reply = self.client.complete(
            "generator",
            prompt.messages(count=total, quotas=quotas, facts=facts),
            FactQuestions,
        )
        if not reply.ok:
            self._count("no draft (model call failed)")
            return []
        self._count("drafted", len(reply.parsed.questions))
        by_id = {a.id: a for g in groups for a in g.facts}
        order = {g.category: i for i, g in enumerate(groups)}
        left = {g.category: g.quota for g in groups}
        accepted: list[tuple[int, int, FactQuestion, Artifact]] = []
        for position, item in enumerate(reply.parsed.questions):
            artifact = by_id.get(item.fact_id.strip().strip("[]"))
            reason = self._problem(item, artifact, left, document.app)
            if reason:
                self._count(f"dropped: {reason}")
                continue
            assert artifact is not None
            left[artifact.category] -= 1
            accepted.append((order[artifact.category], position, item, artifact))
        accepted.sort(key=lambda entry: entry[:2])
        cap = self.budget.fact_questions_per_document
        self._count("dropped: over the document cap", max(0, len(accepted) - cap))
        version = provenance(self.client, prompt)
        out = []
        for _, _, item, artifact in accepted[:cap]:
            source = f"{artifact.text}\n{facts_text(artifact)}"
            out.append(
                self._candidate(
                    document,
                    artifact,
                    f"fact:{slug(item.question_type)}",
                    item.question,
                    item.answer,
                    item.value,
                    anchor_for(item.question, source, item.value),
                    version,
                )
            )
        self._count("kept", len(out))
        return out

    @staticmethod
    def _problem(
        item: FactQuestion, artifact: Artifact | None, left: dict[str, int], app: str
    ) -> str:
        if artifact is None:
            return "unknown fact id"
        if not item.question.strip() or not item.value.strip():
            return "incomplete draft"
        if left[artifact.category] <= 0:
            return f"over the {artifact.category} quota"
        if not APPLICATIONS[app].yes_no_facts and normalize(item.value) in BOOLEAN_ANSWERS:
            return "a yes/no question (a coin toss for a model that guesses)"
        source = f"{artifact.text}\n{facts_text(artifact)}"
        if normalize(item.value) not in BOOLEAN_ANSWERS and not grounded(item.value, source):
            return "answer not in the fact"
        return ""
