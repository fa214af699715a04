"""Word quality ranking: Elo, the heuristic and model judges, pair phases, top-k per domain."""

from __future__ import annotations

import json

import pytest

from ingest.analyze import FileRecord
from ingest.elo import Outcome, averaged_elo, elo
from ingest.rank import (
    DIMENSIONS,
    HeuristicJudge,
    JudgeUnavailable,
    LLMJudge,
    WordComparison,
    chat_through,
    rank_word,
)
from ingest.settings import IngestSettings

SENTENCE = "The committee reviewed the budget and approved the plan for next year. "


def record(name: str, richness: int, domain: str = "finance", app: str = "word") -> FileRecord:
    """A Word record whose structure grows with `richness` (0 = flat, unstructured text)."""
    return FileRecord(
        path=f"/corpus/{domain}/{name}.docx",
        sha256=name.ljust(64, "0"),
        bytes=1000,
        extension="docx",
        app=app,
        format="docx",
        text=f"# {name}\n" + SENTENCE * (5 + richness * 3) + f"topic {name} " * 3,
        text_chars=400 + richness * 200,
        categories={"Text": 10, "Table": richness, "Footnote": richness // 2, "Image": richness},
        features={
            "paragraphs": 12,
            "empty_paragraphs": max(0, 6 - richness),
            "headings": richness * 2,
            "heading_levels": min(3, richness),
            "lists": richness,
            "toc": richness > 3,
            "producer": "Microsoft Office Word" if richness else "",
            "has_title": richness > 1,
            "has_author": richness > 0,
        },
        domain=domain,
    )


def test_elo_rewards_the_winner_and_is_zero_sum() -> None:
    outcomes = [Outcome("a", "b", 1.0), Outcome("a", "c", 1.0), Outcome("b", "c", 1.0)]
    ratings = elo(outcomes, ["a", "b", "c"], k=32)
    assert ratings["a"] > ratings["b"] > ratings["c"]
    assert abs(sum(ratings.values()) - 3000) < 1e-6


def test_averaged_elo_is_reproducible_and_order_insensitive() -> None:
    outcomes = [
        Outcome("a", "b", 1.0),
        Outcome("a", "b", 1.0),
        Outcome("a", "c", 0.0),
        Outcome("b", "c", 1.0),
        Outcome("a", "c", 1.0),
    ]
    players = ["a", "b", "c"]
    first = averaged_elo(outcomes, players, k=32, orderings=50, seed=7)
    assert first == averaged_elo(outcomes, players, k=32, orderings=50, seed=7)
    reordered = averaged_elo(outcomes[::-1], players, k=32, orderings=50, seed=7)
    single = [elo(order, players, 32)["a"] for order in (outcomes, outcomes[::-1])]
    assert abs(first["a"] - reordered["a"]) < abs(single[0] - single[1]) / 4


def test_heuristic_judge_prefers_structure_and_richness() -> None:
    judge = HeuristicJudge()
    rich, flat = record("rich", 5), record("flat", 0)
    verdict = judge.compare(rich, flat)
    assert verdict.winner == "a"
    assert judge.compare(flat, rich).winner == "b"
    assert set(verdict.dimensions) == set(DIMENSIONS)
    assert verdict.dimensions["structure"] == "a"
    assert verdict.judge.startswith("heuristic")


def test_ranking_orders_by_quality_and_records_both_phases() -> None:
    records = [record(f"doc{n}", n) for n in range(6)]
    records.append(record("deck", 9, app="powerpoint"))
    settings = IngestSettings(rank_rounds=2, rank_orderings=8)
    ranking = rank_word(records, settings, HeuristicJudge())
    by_name = {r.path.rsplit("/", 1)[1]: r for r in records}
    assert by_name["doc5.docx"].rank == 1
    assert by_name["doc0.docx"].rank == 6
    assert by_name["deck.docx"].rank is None and by_name["deck.docx"].elo is None
    phases = {comparison["phase"].rsplit("-", 1)[0] for comparison in ranking.comparisons}
    assert {"bootstrap-near", "bootstrap-far"} <= {c["phase"] for c in ranking.comparisons}
    assert "rank-aware" in phases
    pairs = [frozenset((c["a"], c["b"])) for c in ranking.comparisons]
    assert len(pairs) == len(set(pairs)), "a pair is never judged twice"
    assert all(r.kept for r in records)


def test_top_k_is_per_domain() -> None:
    records = [record(f"f{n}", n, "finance") for n in range(4)]
    records += [record(f"h{n}", n + 2, "health") for n in range(3)]
    rank_word(records, IngestSettings(rank_top_k=2), HeuristicJudge())
    kept = sorted(r.path.rsplit("/", 1)[1] for r in records if r.kept)
    assert kept == ["f2.docx", "f3.docx", "h1.docx", "h2.docx"]
    dropped = next(r for r in records if r.path.endswith("f0.docx"))
    assert dropped.reason_code == "below_top_k" and "domain finance" in dropped.reason


def test_model_judge_maps_positions_back_and_skips_failed_calls() -> None:
    prompts: list[str] = []

    def chat(messages: list[dict[str, str]]) -> str:
        prompt = messages[0]["content"]
        prompts.append(prompt)
        first = prompt.split("# Document A", 1)[1].split("# Document B", 1)[0]
        better = "A" if "topic good" in first else "B"
        answer = dict.fromkeys(DIMENSIONS, better)
        return "Here you are: " + json.dumps({**answer, "winner": better, "reason": "richer"})

    judge = LLMJudge(chat, name="model test")
    good, poor = record("good", 4), record("poor", 1)
    assert judge.compare(good, poor).winner == "a"
    assert judge.compare(poor, good).winner == "b"
    assert judge.compare(good, poor).dimensions["clarity"] == "a"
    assert all("real-world authenticity" in prompt for prompt in prompts)

    def broken(messages: list[dict[str, str]]) -> str:
        raise JudgeUnavailable("endpoint down")

    failed = LLMJudge(broken).compare(good, poor)
    assert failed.failed and "endpoint down" in failed.rationale
    records = [record("x", 1), record("y", 3)]
    ranking = rank_word(records, IngestSettings(), LLMJudge(broken))
    assert ranking.comparisons and all(r.elo == 1000.0 for r in records)


def test_chat_through_uses_the_ranker_role_and_reports_failures() -> None:
    class Reply:
        def __init__(self, parsed: WordComparison | None, error: str = "") -> None:
            self.parsed, self.text, self.error, self.ok = parsed, "", error, not error

    class Client:
        def __init__(self, reply: Reply) -> None:
            self.reply, self.calls = reply, []

        def complete(self, role, messages, schema=None, *, stage=None, params=None):
            self.calls.append((role, stage, schema.__name__))
            return self.reply

    verdict = WordComparison(**dict.fromkeys(DIMENSIONS, "B"), winner="B", reason="tidier")
    client = Client(Reply(verdict))
    reply = chat_through(client)([{"role": "user", "content": "hi"}])
    assert json.loads(reply)["winner"] == "B" and json.loads(reply)["reason"] == "tidier"
    assert client.calls == [("ranker", "ingest", "WordComparison")]
    failing = chat_through(Client(Reply(None, error="budget exhausted")))
    with pytest.raises(JudgeUnavailable, match="budget exhausted"):
        failing([{"role": "user", "content": "hi"}])
