"""Images and charts: first ask whether the picture carries information (logos, decoration
and stock photos are dropped), then draft SQuAD-style questions with short answers read off
the picture, each in two forms: naming the figure, and standing alone. A visual element
with no image to send (chart data, SmartArt, ink, an EMF picture) is asked about from its
description instead, without the triage.
"""

from __future__ import annotations

from pydantic import BaseModel

from fidelity.core.config import GenerationBudget
from fidelity.core.document import Artifact, Candidate, Document
from fidelity.core.llm import ModelClient
from fidelity.core.prompt import load
from fidelity.core.text import content_tokens, tokens
from generators.llm.common import (
    DraftingGenerator,
    grounded,
    plain,
    provenance,
    spread,
    word_count,
)

MIN_DESCRIPTION_WORDS = 5
MAX_DESCRIPTION_CHARS = 6_000


class VisualTriage(BaseModel):
    informative: bool
    content_type: str
    reason: str


class VisualQuestion(BaseModel):
    question_with_reference: str
    question_standalone: str
    answer: list[str]
    value: str


class VisualQuestions(BaseModel):
    questions: list[VisualQuestion]


def question_anchor(question: str, value: str) -> list[str]:
    value_words = set(tokens(value))
    out: list[str] = []
    for word in content_tokens(question):
        if word not in value_words and word not in out:
            out.append(word)
    return out


class VisualGenerator(DraftingGenerator):
    name = "visual"

    def __init__(self, client: ModelClient, budget: GenerationBudget) -> None:
        super().__init__(client, budget)
        self.triage = load("visual-triage")
        self.ask = load("visual-questions")

    def units(self, document: Document) -> list[Artifact]:
        usable = [a for a in document.artifacts if a.modality == "visual" and self._usable(a)]
        return spread(usable, self.budget.max_visuals_per_document)

    def _usable(self, artifact: Artifact) -> bool:
        """An image a model can see, or an element (chart, SmartArt, ink) described in words."""
        if self.client.images.sendable(artifact.media):
            return True
        return word_count(plain(artifact.text)) >= MIN_DESCRIPTION_WORDS

    def draft(self, document: Document, artifact: Artifact) -> list[Candidate]:
        media = artifact.media
        images = [media] if media and self.client.images.sendable(media) else []
        description = plain(artifact.text)[:MAX_DESCRIPTION_CHARS] or "(no caption or alt text)"
        context = {
            "kind": artifact.category,
            "locator": artifact.locator,
            "description": description,
        }
        prompts = [self.ask]
        if images:
            prompts.insert(0, self.triage)
            verdict = self.client.complete(
                "generator", self.triage.messages(images, "low", **context), VisualTriage
            )
            if not verdict.ok:
                self._count("no triage (model call failed)")
                return []
            if not verdict.parsed.informative:
                self._count(f"dropped: not informative ({verdict.parsed.content_type})")
                return []
        wanted = self.budget.questions_per_image
        reply = self.client.complete(
            "generator",
            self.ask.messages(images, self.client.settings.image_detail, count=wanted, **context),
            VisualQuestions,
        )
        if not reply.ok:
            self._count("no draft (model call failed)")
            return []
        drafted = reply.parsed.questions[:wanted]
        self._count("drafted", len(drafted))
        version = provenance(self.client, *prompts)
        out = []
        for item in drafted:
            forms = [
                ("visual-referenced", item.question_with_reference),
                ("visual-standalone", item.question_standalone),
            ]
            if not item.value.strip() or not all(text.strip() for _, text in forms):
                self._count("dropped: incomplete draft")
                continue
            if not images and not grounded(item.value, description):
                self._count("dropped: answer not in the element's description")
                continue
            for question_type, question in forms:
                out.append(
                    self._candidate(
                        document,
                        artifact,
                        question_type,
                        question,
                        item.answer,
                        item.value,
                        question_anchor(item.question_standalone, item.value),
                        version,
                    )
                )
        self._count("kept", len(out))
        return out
