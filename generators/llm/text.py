"""Text chunks: draft questions, answer them three times (detailed, terse, balanced), keep a
question only when at least two of the three answers agree with each other and with the draft.
"""

from __future__ import annotations

from pydantic import BaseModel

from fidelity.core.config import GenerationBudget
from fidelity.core.document import Artifact, Candidate, Document
from fidelity.core.llm import ModelClient
from fidelity.core.prompt import load
from fidelity.core.text import normalize
from generators.llm.common import (
    DraftingGenerator,
    anchor_for,
    grounded,
    plain,
    provenance,
    spread,
    word_count,
)

MAX_CHUNK_CHARS = 12_000
STYLES = {
    "detailed": "Answer in full sentences and include the supporting detail from the passage.",
    "terse": "Answer with the fewest words that answer the question.",
    "balanced": "Answer in one short sentence.",
}


class DraftedQuestion(BaseModel):
    question: str
    answer: list[str]
    value: str
    evidence: str


class TextQuestions(BaseModel):
    questions: list[DraftedQuestion]


class CandidateAnswer(BaseModel):
    number: int
    answerable: bool
    answer: str
    value: str


class TextAnswers(BaseModel):
    answers: list[CandidateAnswer]


def agree(first: str, second: str) -> bool:
    """Two short answer values say the same thing (equal, or one contains the other)."""
    a, b = normalize(first), normalize(second)
    if not a or not b:
        return False
    return a == b or f" {a} " in f" {b} " or f" {b} " in f" {a} "


def majority(values: list[str]) -> str | None:
    """A value that at least two of the candidate answers agree on."""
    for i, value in enumerate(values):
        if any(agree(value, other) for j, other in enumerate(values) if j != i):
            return value
    return None


class TextGenerator(DraftingGenerator):
    name = "text"

    def __init__(self, client: ModelClient, budget: GenerationBudget) -> None:
        super().__init__(client, budget)
        self.ask = load("text-questions")
        self.answer = load("text-answers")

    def units(self, document: Document) -> list[Artifact]:
        chunks = [
            artifact
            for artifact in document.artifacts
            if artifact.modality == "text"
            and word_count(plain(artifact.text)) >= self.budget.min_chunk_words
        ]
        return spread(chunks, self.budget.max_chunks_per_document)

    def draft(self, document: Document, artifact: Artifact) -> list[Candidate]:
        chunk = plain(artifact.text)[:MAX_CHUNK_CHARS]
        wanted = self.budget.questions_per_chunk
        reply = self.client.complete(
            "generator",
            self.ask.messages(count=wanted, locator=artifact.locator, chunk=chunk),
            TextQuestions,
        )
        if not reply.ok:
            self._count("no draft (model call failed)")
            return []
        drafted_all = reply.parsed.questions[:wanted]
        drafts = [d for d in drafted_all if d.question.strip() and grounded(d.value, chunk)]
        self._count("drafted", len(drafted_all))
        self._count("dropped: answer not in the chunk", len(drafted_all) - len(drafts))
        if not drafts:
            return []
        numbered = "\n".join(f"{i}. {d.question}" for i, d in enumerate(drafts, 1))
        votes: list[dict[int, str]] = []
        for style in STYLES.values():
            answered = self.client.complete(
                "generator",
                self.answer.messages(style=style, chunk=chunk, questions=numbered),
                TextAnswers,
            )
            if answered.ok:
                votes.append({a.number: a.value for a in answered.parsed.answers if a.answerable})
        version = provenance(self.client, self.ask, self.answer)
        out = []
        for number, drafted in enumerate(drafts, 1):
            values = [vote[number] for vote in votes if vote.get(number, "").strip()]
            agreed = majority(values)
            if agreed is None or not agree(agreed, drafted.value):
                self._count("dropped: no majority for the drafted answer")
                continue
            out.append(
                self._candidate(
                    document,
                    artifact,
                    "text",
                    drafted.question,
                    drafted.answer,
                    drafted.value,
                    anchor_for(drafted.question, chunk, drafted.value),
                    version,
                )
            )
        self._count("kept", len(out))
        return out
