"""The check chain is data: one ordered list of stages, each check named once, read by the
per-file checks, the funnel and the quality report."""

from __future__ import annotations

import ast
from pathlib import Path

from fidelity import funnel
from filters.chain import CHAIN, stage_of
from filters.groundedness import FILE_CHECKS

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("fidelity", "ingest", "extractors", "generators", "filters")
# The same words with another meaning: the empty view's name, the model client's accounting
# phase, and the quality report's word for a removal.
OTHER_MEANINGS = {
    ("fidelity/core/views.py", "no-context"),
    ("fidelity/core/llm/client.py", "grade"),
    ("filters/grading.py", "grade"),
    ("fidelity/quality.py", "guessable"),
}


def test_the_per_file_checks_run_in_chain_order() -> None:
    order = [stage.name for stage in CHAIN]
    ran = [check.stage.name for check in FILE_CHECKS]
    assert ran == order[: len(ran)]
    assert funnel.STAGES == tuple(order)


def test_every_decision_name_belongs_to_one_stage() -> None:
    for stage in CHAIN:
        name = stage.check_name("tables-except:2" if stage.per_view else "")
        assert stage_of(name) is stage
    assert stage_of("ablation") is not None and stage_of("memory") is None


def test_no_check_name_is_spelled_outside_the_chain() -> None:
    names = {stage.name for stage in CHAIN}
    spelled = set()
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            where = str(path.relative_to(ROOT))
            if where == "filters/chain.py":
                continue
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Constant) and isinstance(node.value, str):
                    text = node.value
                    if text in names or any(text.startswith(f"{n}:") for n in names):
                        spelled.add((where, text))
    assert spelled <= OTHER_MEANINGS, sorted(spelled - OTHER_MEANINGS)
