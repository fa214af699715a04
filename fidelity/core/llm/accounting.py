"""Token and cost accounting per stage and model, the run's budget cap, and the usage report.

Prices are USD per million tokens from `[models.prices."MODEL"]` (`input`, `output`,
optional `cached_input`). Replies served from the run store cost nothing in this
run and are counted as `cached`. The budget counts only this run's new calls.
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

USAGE_FILE = "model_usage.json"


@dataclass
class Tally:
    calls: int = 0
    cached: int = 0
    failed: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    unpriced_calls: int = 0


def usage_of(completion_usage: Any) -> dict[str, int]:
    """Token counts from an OpenAI usage object or dict (absent on some local servers)."""
    if completion_usage is None:
        return {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0, "cached_tokens": 0}
    data = completion_usage if isinstance(completion_usage, dict) else completion_usage.model_dump()
    details = data.get("prompt_tokens_details") or {}
    prompt = int(data.get("prompt_tokens") or 0)
    completion = int(data.get("completion_tokens") or 0)
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": int(data.get("total_tokens") or prompt + completion),
        "cached_tokens": int(details.get("cached_tokens") or 0),
    }


class Accounting:
    """Thread-safe counters for one run, and the budget check made before every new call."""

    def __init__(
        self,
        prices: dict[str, dict[str, float]],
        budget_usd: float | None = None,
        max_calls: int | None = None,
    ) -> None:
        self.prices = prices
        self.budget_usd = budget_usd
        self.max_calls = max_calls
        self.tallies: dict[tuple[str, str], Tally] = {}
        self.generation: Counter[str] = Counter()
        self.budget_reason = ""
        self.refused = 0
        self.started = 0
        self.muted = False  # batch collection passes do not count in the funnel
        self._lock = threading.Lock()

    def cost(self, model: str, usage: dict[str, int], discount: float = 1.0) -> float | None:
        price = self.prices.get(model)
        if price is None:
            return None
        cached = usage.get("cached_tokens", 0)
        fresh = usage.get("prompt_tokens", 0) - cached
        dollars = (
            fresh * price.get("input", 0.0)
            + cached * price.get("cached_input", price.get("input", 0.0))
            + usage.get("completion_tokens", 0) * price.get("output", 0.0)
        ) / 1e6
        return dollars * discount

    def _tally(self, stage: str, model: str) -> Tally:
        return self.tallies.setdefault((stage, model), Tally())

    @property
    def spent_usd(self) -> float:
        return sum(t.cost_usd for t in self.tallies.values())

    def reserve(self) -> str:
        """'' when a new call may start (and counts it), else why the budget stops it."""
        with self._lock:
            if not self.budget_reason:
                if self.max_calls is not None and self.started >= self.max_calls:
                    self.budget_reason = f"call cap of {self.max_calls} new calls reached"
                elif self.budget_usd is not None and self.spent_usd >= self.budget_usd:
                    self.budget_reason = (
                        f"budget of ${self.budget_usd:.2f} reached (${self.spent_usd:.4f} spent)"
                    )
            if self.budget_reason:
                self.refused += 1
                return self.budget_reason
            self.started += 1
            return ""

    def add_call(self, stage: str, model: str, usage: dict[str, Any]) -> None:
        with self._lock:
            tally = self._tally(stage, model)
            tally.calls += 1
            tally.prompt_tokens += usage.get("prompt_tokens", 0)
            tally.completion_tokens += usage.get("completion_tokens", 0)
            if usage.get("cost_usd") is None:
                tally.unpriced_calls += 1
            else:
                tally.cost_usd += usage["cost_usd"]

    def add_cached(self, stage: str, model: str) -> None:
        with self._lock:
            self._tally(stage, model).cached += 1

    def add_failure(self, stage: str, model: str) -> None:
        with self._lock:
            self._tally(stage, model).failed += 1

    def count(self, generator: str, event: str, amount: int = 1) -> None:
        """The generation funnel: drafted, kept and dropped (with the reason) per generator."""
        if amount and not self.muted:
            with self._lock:
                self.generation[f"{generator}: {event}"] += amount

    def failed_drafts(self) -> int:
        """Drafting calls of this run that failed or were not made (budget), per the funnel."""
        with self._lock:
            return sum(n for key, n in self.generation.items() if "model call failed" in key)

    def report(self, recorded: list[tuple[str, str, dict[str, Any]]]) -> dict[str, Any]:
        """This run's tallies, the budget state, and the totals over every recorded call."""
        totals: dict[str, dict[str, float]] = {}
        for stage, model, usage in recorded:
            row = totals.setdefault(
                f"{stage} / {model}",
                {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "cost_usd": 0.0},
            )
            row["calls"] += 1
            row["prompt_tokens"] += usage.get("prompt_tokens", 0)
            row["completion_tokens"] += usage.get("completion_tokens", 0)
            row["cost_usd"] += usage.get("cost_usd") or 0.0
        return {
            "this_run": {f"{s} / {m}": asdict(t) for (s, m), t in sorted(self.tallies.items())},
            "this_run_cost_usd": round(self.spent_usd, 6),
            "budget": {
                "budget_usd": self.budget_usd,
                "max_calls": self.max_calls,
                "stopped": self.budget_reason,
                "calls_not_made": self.refused,
            },
            "all_recorded_calls": totals,
            "generation": dict(sorted(self.generation.items())),
        }

    def write(self, out: Path, recorded: list[tuple[str, str, dict[str, Any]]]) -> str:
        """Write OUT/model_usage.json; return the table shown at the end of the run."""
        report = self.report(recorded)
        (out / USAGE_FILE).write_text(json.dumps(report, indent=2, sort_keys=True) + "\n")
        return render(report)


def render(report: dict[str, Any]) -> str:
    lines = [
        "Model usage (this run):",
        f"  {'stage / model':<40} calls cached failed  tokens in/out  cost",
    ]
    for name, tally in report["this_run"].items():
        cost = f"${tally['cost_usd']:.4f}" + (" +unpriced" if tally["unpriced_calls"] else "")
        lines.append(
            f"  {name:<40} {tally['calls']:>5} {tally['cached']:>6} {tally['failed']:>6}"
            f"  {tally['prompt_tokens']:>7}/{tally['completion_tokens']:<7} {cost}"
        )
    if not report["this_run"]:
        lines.append("  (no model calls)")
    lines.append(f"  total cost this run: ${report['this_run_cost_usd']:.4f}")
    budget = report["budget"]
    if budget["stopped"]:
        lines.append(
            f"  budget cap: {budget['stopped']}; {budget['calls_not_made']} calls were not made"
        )
    return "\n".join(lines)
