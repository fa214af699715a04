"""Model-mode filter cost: requests, prompt tokens and lexically settled ablation checks.

Builds the bundled fixtures in model mode against a local OpenAI-compatible endpoint that
answers deterministically (tests/support/reading_model.py) and reports, per candidate, the
filter and grading requests and their prompt tokens (a quarter of each request's characters),
and the share of ablation checks the lexical leakage test settled without a model call.
With `--compare`, the fixtures are built a second time with `[filters] batch_questions = 1`
(every question asked alone) and the keep/drop decisions of the two builds are compared.
Run on demand: `python bench/filter_bench.py`.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from fidelity.cli import main as fidelity
from tests.support.openai_stub import StubServer
from tests.support.reading_model import reading_model

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
OUTPUTS = ("questions", "rejected", "incomplete")
FILTER_STAGES = ("filter", "grade")


@dataclass
class Figures:
    candidates: int
    requests: int
    prompt_tokens: int
    ablation_checks: int
    settled_lexically: int
    decisions: dict[str, str]

    def table(self, label: str) -> str:
        per = max(1, self.candidates)
        share = self.settled_lexically / max(1, self.ablation_checks)
        return (
            f"| {label} | {self.candidates} | {self.requests} ({self.requests / per:.2f}) | "
            f"{self.prompt_tokens:,} ({self.prompt_tokens / per:,.0f}) | "
            f"{self.settled_lexically} of {self.ablation_checks} ({share:.0%}) |"
        )


def rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def build(inputs: list[Path], out: Path, batch: bool) -> Figures:
    """One fresh model-mode build of `inputs`, and its figures."""
    config = out.parent / f"{out.name}.toml"
    alone = "" if batch else "[filters]\nbatch_questions = 1\n"
    config.write_text('[models]\nmodel = "stub-model"\nmax_retries = 0\n' + alone)
    code = fidelity(["--config", str(config), "build", *map(str, inputs), "-o", str(out)])
    if code != 0:
        raise SystemExit(f"the build into {out} exited {code}")
    usage = json.loads((out / "model_usage.json").read_text())["this_run"]
    requests = tokens = 0
    for name, tally in usage.items():
        if name.split(" / ")[0] in FILTER_STAGES:
            requests += tally["calls"]
            tokens += tally["prompt_tokens"]
    produced = [row for name in OUTPUTS for row in rows(out / f"{name}.jsonl")]
    ablation = [
        check
        for row in produced
        for check in row["checks"]
        if check["check"].startswith("ablation:")
    ]
    settled = [check for check in ablation if not check.get("model_call")]
    decisions = {row["id"]: row["status"] for row in produced}
    return Figures(len(produced), requests, tokens, len(ablation), len(settled), decisions)


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__)
    options.add_argument("--compare", action="store_true", help="also build one at a time")
    options.add_argument("--out", type=Path, help="keep the builds in this folder")
    options.add_argument("inputs", nargs="*", type=Path, help="files or folders (the fixtures)")
    args = options.parse_args()
    inputs = args.inputs or [FIXTURES]
    settings = [True, False] if args.compare else [True]
    with tempfile.TemporaryDirectory() as scratch, StubServer(reading_model) as endpoint:
        os.environ["OPENAI_BASE_URL"] = endpoint.base_url
        os.environ["OPENAI_API_KEY"] = "sk-filter-bench"
        where = args.out or Path(scratch)
        where.mkdir(parents=True, exist_ok=True)
        names = {True: "together", False: "alone"}
        figures = {batch: build(inputs, where / names[batch], batch) for batch in settings}
    print(
        "| questions asked | candidates | filter + grading requests (per candidate) | "
        "prompt tokens (per candidate) | ablation checks settled lexically |"
    )
    print("|---|---:|---:|---:|---:|")
    for batch, result in figures.items():
        print(result.table("together" if batch else "one at a time"))
    if args.compare:
        together, alone = figures[True].decisions, figures[False].decisions
        differing = sorted(
            key for key in together.keys() | alone.keys() if together.get(key) != alone.get(key)
        )
        print(f"\nkeep/drop decisions differing between the two builds: {len(differing)}")
        for key in differing[:20]:
            print(f"- {key}: together {together.get(key)}, alone {alone.get(key)}")


if __name__ == "__main__":
    main()
