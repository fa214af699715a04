"""The pluggable per-file stages of a build (generation, re-asking, grading) and how they run."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from fidelity.core.config import Config
from fidelity.core.document import Candidate, Document
from fidelity.core.llm import ModelClient
from filters.answerer import LLMAnswerer, Recorded
from filters.grading import Grader
from filters.groundedness import Answerer, Mapper, Outcome, check_document
from filters.matching import Matcher
from filters.qualify import qualify
from generators import rules
from generators.llm import LLMGenerators

Generate = Callable[[Document], list[Candidate]]


@dataclass
class Stages:
    """The pluggable parts of a build: candidate generation, the model answerer and grader."""

    generate: Generate = rules.generate
    answerer: Answerer | None = None
    grader: Grader | None = None
    map: Mapper | None = None  # spreads a file's candidates over the model client's threads
    mode: str = "offline"


def model_filters(
    config: Config, client: ModelClient, recorded: Recorded | None = None
) -> tuple[LLMAnswerer, Grader | None]:
    """The model-mode answerer (with its matcher) and grader; a replay builds the same, with
    the recorded answers of questions asked together."""
    matcher = Matcher(client, config.filters.judges)
    answerer = LLMAnswerer(client, matcher, config.filters, recorded)
    return answerer, Grader(client, config.filters) if config.filters.grading else None


def model_stages(config: Config, client: ModelClient) -> Stages:
    """Model mode (rules + model generators, model filters) over the driver's client or a
    worker's proxy of it."""
    answerer, grader = model_filters(config, client)
    generate = LLMGenerators(client, config.models)
    return Stages(generate, answerer, grader, client.map, mode="model")


def filter_candidates(
    document: Document, candidates: list[Candidate], stages: Stages
) -> list[Outcome]:
    """Every per-file filter on a document's candidates (the build, `regen` and replay share it).

    Questions recurring with other answers are qualified, groundedness is checked, then
    (in model mode) the survivors are graded.
    """
    candidates = qualify(document, candidates)
    outcomes = check_document(document, candidates, stages.answerer, stages.map)
    if stages.grader is not None:
        stages.grader.grade_outcomes(document, outcomes, stages.map)
    return outcomes
