"""A synthetic run store of any size: every status, a check the funnel does not name, hostile text
(the report tests and bench/report_bench.py use it)."""

from __future__ import annotations

from pathlib import Path

from fidelity.core.document import Artifact, Candidate, Decision, Document, Probe
from fidelity.core.locator import Locator
from fidelity.core.store import RunStore

HOSTILE = "</script><script>window.pwned=1</script><!--"


def synthetic_store(path: Path, questions: int, per_file: int = 100) -> RunStore:
    """A run store of `questions` candidates over files of `per_file` artifacts each, every status
    and a check (`guessability`) the funnel does not name, hostile text in a question and a name."""
    store = RunStore(path)
    statuses = ("kept", "unverified", "rejected", "incomplete")
    with store.transaction():
        for first in range(0, questions, per_file):
            sha = f"{first:064x}"
            name = f"in/file-{first // per_file:05d}.docx" if first else "in/<i>odd</i>.docx"
            artifacts = [
                Artifact(
                    id=f"a{n}",
                    category=("Table", "Comment", "Text")[n % 3],
                    kind="paragraph",
                    modality="table" if n % 3 == 0 else "text",
                    where=Locator(element=f"paragraph {n}"),
                    text=f"Element {n} of {name} says value {first + n}.",
                    html=f"<table><tr><td>{first + n}</td></tr></table>" if n % 3 == 0 else None,
                )
                for n in range(min(per_file, questions - first))
            ]
            document = Document(sha256=sha, app="word", format="docx", source=name)
            document.artifacts = artifacts
            store.put_file(sha, name, "done", document=document)
            for seq, artifact in enumerate(artifacts):
                number = first + seq
                text = HOSTILE if number == 7 else f"What value does element {number} state?"
                candidate = Candidate(
                    id=f"q{number:07d}",
                    file_sha=sha,
                    file=name,
                    app="word",
                    artifact_id=artifact.id,
                    category=artifact.category,
                    question_type="value",
                    question=text,
                    answer=[f"Element {number} states value {number}."],
                    probe=Probe(value=str(number)),
                    generator="rules",
                    generator_version="1",
                )
                store.put_candidate(candidate, seq)
                status = statuses[number % len(statuses)]
                store.add_decision(
                    Decision(
                        candidate_id=candidate.id,
                        check="ablation:without",
                        view=f"without:{artifact.id}",
                        context_hash="",
                        answered="",
                        match="lexical-leakage",
                        verdict="pass",
                        reason="answer gone from this view",
                    )
                )
                if status == "rejected":
                    store.add_decision(
                        Decision(
                            candidate_id=candidate.id,
                            check="guessability",
                            view="no-context",
                            context_hash="",
                            answered=str(number),
                            match="exact",
                            verdict="fail",
                            reason="guessed without the file",
                        )
                    )
                    store.set_status(candidate.id, status, "guessability", "guessed")
                else:
                    store.set_status(candidate.id, status)
    return store
