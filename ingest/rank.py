"""Word quality ranking: pairwise judgements over five dimensions, aggregated with Elo.

Pairs come in two phases. Bootstrap: each document meets its most similar
("near", by MinHash over word shingles) and its least similar ("far") peers
among a seeded sample. Rank-aware: documents adjacent in the current Elo order
meet, for a few rounds, to separate documents of similar quality. Final scores
are Elo ratings averaged over several random orderings of all outcomes; the
rank is the position inside the document's domain, and `rank_top_k` keeps only
the best k per domain.

Judges: `LLMJudge` asks a model through any `chat(messages) -> str` callable;
`chat_through(LLMClient)` gives one whose calls are recorded and replayed by
the run store. With no model configured,
`HeuristicJudge` stands in: a documented, deterministic comparison of
structure and artifact richness, labelled as such in every output.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

from datasketch import MinHash
from pydantic import BaseModel

from fidelity.core.apps import APPLICATIONS
from fidelity.core.minhash import signature
from ingest.analyze import FileRecord
from ingest.curate import artifact_units
from ingest.elo import Outcome, averaged_elo
from ingest.neardup import shingles
from ingest.settings import IngestSettings

Side = Literal["a", "b", "tie"]
DIMENSIONS = {
    "structure": "structure and navigation: headings, sections, lists, a table of contents",
    "components": "core components present: tables, figures, notes, headers/footers, links",
    "clarity": "clarity and precision of the language",
    "cleanliness": "technical cleanliness for extraction: no empty filler, no tracked-change "
    "clutter, no conversion damage",
    "authenticity": "real-world authenticity: a genuine document written for a purpose, "
    "not a test file, a stub or a template",
}
SAMPLE = 200  # peers considered per document when choosing near and far pairs
MARGIN = 0.02  # heuristic score difference below which a dimension is a tie
OFFICE_SUITES = ("microsoft", "libreoffice", "openoffice", "wps", "word", "pages")
SENTENCE_END = re.compile(r"[.!?]+(?:\s|$)")
WORD = re.compile(r"\w+")


@dataclass
class Judgement:
    winner: Side
    dimensions: dict[str, Side]
    judge: str
    rationale: str = ""
    failed: bool = False  # the judge could not decide (e.g. model call failed): not scored


class Judge(Protocol):
    name: str

    def compare(self, a: FileRecord, b: FileRecord) -> Judgement: ...


def _clip(value: float) -> float:
    return max(0.0, min(1.0, value))


class HeuristicJudge:
    """Deterministic stand-in for a model judge: each dimension is a score in [0, 1].

    structure    headings (up to 8), heading levels (up to 3), a TOC, lists (up to 5)
    components   distinct non-text categories present (up to 6)
    clarity      share of letter words, times closeness of mean sentence length to 8-30 words
    cleanliness  1 - half the share of empty paragraphs - 0.2 if tracked changes
                 - 0.2 if converted from another format - 0.1 if the extension lies
    authenticity office-suite producer 0.4, title 0.2, author 0.2, non-template text 0.2
    A dimension is won by the higher score (ties within 0.02); the document that
    wins more dimensions wins, the higher total breaks a draw.
    """

    name = "heuristic (no model configured: structure and artifact richness)"

    def scores(self, record: FileRecord) -> dict[str, float]:
        f = record.features
        paragraphs = max(1, f.get("paragraphs", 0))
        present = sum(
            1 for name, n in record.categories.items() if n and name not in {"Text", "Metadata"}
        )
        words = WORD.findall(record.text)
        letter_words = sum(1 for word in words if any(c.isalpha() for c in word))
        sentences = max(1, len(SENTENCE_END.findall(record.text)))
        mean = letter_words / sentences
        closeness = 1.0 if 8 <= mean <= 30 else min(mean / 8, 30 / mean) if mean else 0.0
        producer = f.get("producer", "").lower()
        return {
            "structure": 0.5 * _clip(f.get("headings", 0) / 8)
            + 0.2 * _clip(f.get("heading_levels", 0) / 3)
            + 0.15 * bool(f.get("toc"))
            + 0.15 * _clip(f.get("lists", 0) / 5),
            "components": _clip(present / 6),
            "clarity": (letter_words / len(words) if words else 0.0) * closeness,
            "cleanliness": _clip(
                1.0
                - 0.5 * f.get("empty_paragraphs", 0) / paragraphs
                - 0.2 * bool(f.get("tracked_changes"))
                - 0.2 * (record.converted_from is not None)
                - 0.1 * (record.extension_mismatch is not None)
            ),
            "authenticity": 0.4 * any(suite in producer for suite in OFFICE_SUITES)
            + 0.2 * bool(f.get("has_title"))
            + 0.2 * bool(f.get("has_author"))
            + 0.2 * (1.0 - record.placeholder_fraction),
        }

    def compare(self, a: FileRecord, b: FileRecord) -> Judgement:
        left, right = self.scores(a), self.scores(b)
        sides: dict[str, Side] = {}
        for name in DIMENSIONS:
            gap = left[name] - right[name]
            sides[name] = "tie" if abs(gap) < MARGIN else "a" if gap > 0 else "b"
        wins_a = sum(side == "a" for side in sides.values())
        wins_b = sum(side == "b" for side in sides.values())
        total = sum(left.values()) - sum(right.values())
        if wins_a != wins_b:
            winner: Side = "a" if wins_a > wins_b else "b"
        else:
            winner = "tie" if abs(total) < MARGIN else "a" if total > 0 else "b"
        rationale = ", ".join(f"{n} {left[n]:.2f}/{right[n]:.2f}" for n in DIMENSIONS)
        return Judgement(winner, sides, self.name, rationale)


PROMPT = """You are choosing Word documents for a benchmark that asks questions about \
the content and structure of real Office files. Compare document A and document B \
(given as Markdown converted from the .docx) on each dimension:

{dimensions}

Judge only what the text shows. Answer with one JSON object and nothing else:
{{"structure": "A"|"B"|"tie", "components": ..., "clarity": ..., "cleanliness": ..., \
"authenticity": ..., "winner": "A"|"B"|"tie", "reason": "<one sentence>"}}

# Document A
{a}

# Document B
{b}
"""


class LLMJudge:
    """A judge model behind `chat(messages) -> reply text`.

    Which document is shown first is decided by a hash of the pair, so position
    bias averages out over the corpus and the same pair always gets the same prompt.
    """

    def __init__(
        self,
        chat: Callable[[list[dict[str, str]]], str],
        name: str = "model",
        max_chars: int = 12000,
    ) -> None:
        self.chat = chat
        self.name = name
        self.max_chars = max_chars

    def compare(self, a: FileRecord, b: FileRecord) -> Judgement:
        swap = hashlib.sha256(f"{a.sha256}{b.sha256}".encode()).digest()[0] % 2 == 1
        first, second = (b, a) if swap else (a, b)
        prompt = PROMPT.format(
            dimensions="\n".join(f"- {name}: {text}" for name, text in DIMENSIONS.items()),
            a=first.text[: self.max_chars],
            b=second.text[: self.max_chars],
        )
        try:
            reply = self.chat([{"role": "user", "content": prompt}])
        except JudgeUnavailable as error:
            ties: dict[str, Side] = dict.fromkeys(DIMENSIONS, "tie")
            return Judgement("tie", ties, self.name, f"model call failed: {error}", failed=True)
        answer = _parse(reply)

        def side(value: Any) -> Side:
            letter = str(value).strip().upper()
            if letter not in {"A", "B"}:
                return "tie"
            return ("b" if letter == "A" else "a") if swap else ("a" if letter == "A" else "b")

        dimensions = {name: side(answer.get(name)) for name in DIMENSIONS}
        if "winner" not in answer:
            return Judgement("tie", dimensions, self.name, f"unparsed reply: {reply[:200]}", True)
        rationale = str(answer.get("reason", ""))
        return Judgement(side(answer.get("winner")), dimensions, self.name, rationale)


class JudgeUnavailable(RuntimeError):
    """A judge call that gave no usable reply."""


Choice = Literal["A", "B", "tie"]


class WordComparison(BaseModel):
    """The judge's reply schema (structured output through the LLMClient)."""

    structure: Choice
    components: Choice
    clarity: Choice
    cleanliness: Choice
    authenticity: Choice
    winner: Choice
    reason: str = ""


def chat_through(client: Any, role: str = "ranker") -> Callable[[list[dict[str, Any]]], str]:
    """A `chat` callable over the project's LLMClient: recorded, cached, replayable calls
    (role `ranker`, which falls back to the `[models] model`; reply schema WordComparison)."""

    def chat(messages: list[dict[str, Any]]) -> str:
        reply = client.complete(role, messages, WordComparison, stage="ingest")
        if not reply.ok:
            raise JudgeUnavailable(reply.error or "no reply")
        if isinstance(reply.parsed, BaseModel):
            return reply.parsed.model_dump_json()
        return str(reply.text)

    return chat


def _parse(reply: str) -> dict[str, Any]:
    match = re.search(r"\{.*\}", reply, re.DOTALL)
    if not match:
        return {}
    try:
        value = json.loads(match.group(0))
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


@dataclass
class Ranking:
    """The ranking's evidence: every comparison, and the final Elo per file path."""

    judge: str
    comparisons: list[dict[str, Any]] = field(default_factory=list)
    elo: dict[str, float] = field(default_factory=dict)


def _bootstrap_pairs(
    items: list[FileRecord], settings: IngestSettings, rng: random.Random
) -> list[tuple[int, int, str]]:
    hashes: list[MinHash] = [signature(shingles(r.text, settings.shingle_words)) for r in items]
    pairs: list[tuple[int, int, str]] = []
    seen: set[frozenset[int]] = set()
    for i in range(len(items)):
        others = [j for j in range(len(items)) if j != i]
        if len(others) > SAMPLE:
            others = rng.sample(others, SAMPLE)
        by_similarity = sorted(others, key=lambda j: (-hashes[i].jaccard(hashes[j]), j))
        far_start = max(0, len(by_similarity) - settings.rank_far_pairs)
        chosen = [(j, "near") for j in by_similarity[: settings.rank_near_pairs]]
        chosen += [(j, "far") for j in reversed(by_similarity[far_start:])]
        for j, phase in chosen:
            if frozenset((i, j)) not in seen:
                seen.add(frozenset((i, j)))
                pairs.append((i, j, f"bootstrap-{phase}"))
    return pairs


def rank_word(records: list[FileRecord], settings: IngestSettings, judge: Judge) -> Ranking:
    """Rank the kept Word files; sets `elo` and `rank`, drops files below the top k."""
    ranked = (r for r in records if r.kept and r.app and APPLICATIONS[r.app].ranked)
    items = sorted(ranked, key=lambda r: r.path)
    ranking = Ranking(judge=judge.name)
    if not items:
        return ranking
    rng = random.Random(settings.seed)
    keys = [r.path for r in items]
    outcomes: list[Outcome] = []
    compared: set[frozenset[int]] = set()

    def play(i: int, j: int, phase: str) -> None:
        compared.add(frozenset((i, j)))
        verdict = judge.compare(items[i], items[j])
        if not verdict.failed:
            score = {"a": 1.0, "b": 0.0, "tie": 0.5}[verdict.winner]
            outcomes.append(Outcome(keys[i], keys[j], score))
        ranking.comparisons.append({"phase": phase, "a": keys[i], "b": keys[j], **asdict(verdict)})

    for i, j, phase in _bootstrap_pairs(items, settings, rng):
        play(i, j, phase)

    def ratings() -> dict[str, float]:
        return averaged_elo(outcomes, keys, settings.elo_k, settings.rank_orderings, settings.seed)

    for round_number in range(settings.rank_rounds):
        current = ratings()
        order = sorted(range(len(items)), key=lambda i: (-current[keys[i]], keys[i]))
        for left, right in zip(order, order[1:], strict=False):
            if frozenset((left, right)) not in compared:
                play(left, right, f"rank-aware-{round_number + 1}")
    ranking.elo = ratings()
    _assign_ranks(items, ranking.elo, settings)
    return ranking


def _assign_ranks(items: list[FileRecord], elo: dict[str, float], settings: IngestSettings) -> None:
    domains: dict[str, list[FileRecord]] = {}
    for record in items:
        record.elo = round(elo[record.path], 2)
        domains.setdefault(record.domain, []).append(record)
    for domain, members in domains.items():
        members.sort(key=lambda r: (-(r.elo or 0.0), -artifact_units(r), r.path))
        for position, record in enumerate(members, start=1):
            record.rank = position
            if settings.rank_top_k and position > settings.rank_top_k:
                record.drop(
                    "below_top_k",
                    f"Word quality rank {position} of {len(members)} in domain "
                    f"{domain or '(none)'}; only the top {settings.rank_top_k} are kept",
                )


def assign_domains(
    records: list[FileRecord],
    settings: IngestSettings,
    labeler: Callable[[FileRecord], str] | None = None,
) -> None:
    """Domain of each file: its folder's name, or a model's label when asked and available."""
    for record in records:
        if settings.domain_from == "label" and labeler is not None and record.kept:
            record.domain = labeler(record).strip() or Path(record.path).parent.name
        else:
            record.domain = Path(record.path).parent.name
