"""What the model generators share: a base class, clean text, grounding, probes, provenance."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any, Protocol, TypeVar

from fidelity.core.config import GenerationBudget
from fidelity.core.document import Artifact, Candidate, Document
from fidelity.core.llm import ModelClient
from fidelity.core.prompt import Prompt
from fidelity.core.text import content_tokens, normalize, tokens
from fidelity.core.views import PLACEHOLDER
from generators.draft import candidate

MAX_NESTING = 8

BOOLEAN_ANSWERS = frozenset({"yes", "no", "true", "false"})
T = TypeVar("T")


class LLMGenerator(Protocol):
    """One model generator: the units of a document it drafts for, and the drafting."""

    name: str

    def __init__(self, client: ModelClient, budget: GenerationBudget) -> None: ...

    def units(self, document: Document) -> Sequence[Any]: ...

    def draft(self, document: Document, unit: Any) -> list[Candidate]: ...


class DraftingGenerator:
    """What every model generator does alike: count its events, make its drafts Candidates."""

    name = ""

    def __init__(self, client: ModelClient, budget: GenerationBudget) -> None:
        self.client = client
        self.budget = budget

    def _count(self, event: str, amount: int = 1) -> None:
        self.client.accounting.count(f"model:{self.name}", event, amount)

    def _candidate(
        self,
        document: Document,
        artifact: Artifact,
        question_type: str,
        question: str,
        answer: Sequence[str],
        value: str,
        anchor: list[str],
        version: str,
    ) -> Candidate:
        """A drafted question with its whitespace folded, answered by its statements."""
        return candidate(
            document,
            artifact,
            question_type,
            " ".join(question.split()),
            statements(answer, value),
            value,
            anchor,
            generator=f"model:{self.name}",
            generator_version=version,
        )


def expanded(document: Document, text: str, depth: int = 0) -> str:
    """Text with each nested artifact written in place (a formula cell: its value and formula).

    `plain` would drop them, leaving formula cells of a sheet grid blank.
    """
    by_id = {artifact.id: artifact for artifact in document.artifacts}

    def substitute(match: re.Match[str]) -> str:
        nested = by_id.get(match.group(1))
        if nested is None or depth >= MAX_NESTING:
            return ""
        return expanded(document, nested.text, depth + 1)

    return PLACEHOLDER.sub(substitute, text)


def plain(text: str) -> str:
    """Artifact text without placeholders, with tidy whitespace."""
    text = PLACEHOLDER.sub("", text)
    lines = [" ".join(line.split()) for line in text.splitlines()]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def word_count(text: str) -> int:
    return len(text.split())


def grounded(value: str, *sources: str) -> bool:
    """Is the answer value written (after normalisation) in one of the sources?"""
    wanted = normalize(value)
    if not wanted:
        return False
    return any(f" {wanted} " in f" {normalize(source)} " for source in sources)


def anchor_for(question: str, source: str, value: str) -> list[str]:
    """Question words that the source also uses (the value's own words left out)."""
    present = set(tokens(source))
    value_words = set(tokens(value))
    out: list[str] = []
    for word in content_tokens(question):
        if word in present and word not in value_words and word not in out:
            out.append(word)
    return out


def spread(items: Sequence[T], limit: int) -> list[T]:
    """At most `limit` items, evenly spaced over the sequence, in order."""
    if limit <= 0:
        return []
    if len(items) <= limit:
        return list(items)
    step = len(items) / limit
    return [items[int(i * step)] for i in range(limit)]


def statements(answer: Sequence[str], value: str) -> list[str]:
    cleaned = [" ".join(item.split()) for item in answer if item and item.strip()]
    return cleaned or [value]


def facts_text(artifact: Artifact) -> str:
    return json.dumps(artifact.facts, ensure_ascii=False, sort_keys=True, default=str)


def provenance(client: ModelClient, *prompts: Prompt) -> str:
    """The generator_version: the prompt versions used and the generator model."""
    tags = "+".join(prompt.tag for prompt in prompts)
    return f"{tags}; model={client.model_for('generator')}"
