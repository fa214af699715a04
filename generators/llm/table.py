"""Tables: lookup and identification questions over a table's HTML, read with the narrative
around it (other tables shown only as placeholders). No arithmetic: the answer must be a
value written in the table.
"""

from __future__ import annotations

import html
import re

from pydantic import BaseModel

from fidelity.core.config import GenerationBudget
from fidelity.core.document import Artifact, Candidate, Document
from fidelity.core.llm import ModelClient
from fidelity.core.prompt import load
from fidelity.core.views import View, placed_ids, view_context
from generators.llm.common import (
    DraftingGenerator,
    anchor_for,
    expanded,
    grounded,
    plain,
    provenance,
)

TARGET = "[[TARGET TABLE]]"
OTHER = "[[another table]]"
WINDOW = 1500
MAX_TABLE_CHARS = 20_000


class TableQuestion(BaseModel):
    question: str
    answer: list[str]
    value: str
    row_label: str
    column_label: str


class TableQuestions(BaseModel):
    questions: list[TableQuestion]


def table_text(document: Document, artifact: Artifact) -> str:
    """The table's cell text (from the HTML when there is one) for grounding checks."""
    markup = re.sub(r"<[^>]+>", " ", artifact.html or "")
    return f"{html.unescape(markup)}\n{plain(expanded(document, artifact.text))}"


def narrative(document: Document, artifact: Artifact, window: int = WINDOW) -> str:
    """The rendered text around the table, every table shown as a placeholder.

    A table placed in the body is read with the body (no annex sections); a table
    placed nowhere is read with the other annex entries of its group.
    """
    tables = {a.id for a in document.artifacts if a.modality == "table"}
    marked = document.model_copy(
        update={
            "artifacts": [
                a.model_copy(update={"text": TARGET if a.id == artifact.id else OTHER})
                if a.id in tables
                else a
                for a in document.artifacts
            ]
        }
    )
    placed = placed_ids(document)
    if artifact.id in placed:
        unplaced = frozenset(a.id for a in document.artifacts if a.id not in placed)
        view = View("table-context", exclude=unplaced)
    else:
        group = frozenset(
            a.id for a in document.artifacts if a.group == artifact.group and a.id not in placed
        )
        view = View("table-context", include_only=group | placed)
    text = view_context(marked, view).text
    at = text.find(TARGET)
    if at < 0:
        where = artifact.group or artifact.locator
        return f"(No text around this table; it is listed under: {where}.)"
    start = text.rfind("\n", 0, at - window) + 1 if at > window else 0
    end = text.find("\n", at + len(TARGET) + window)
    return text[start : end if end >= 0 else len(text)].strip()


class TableGenerator(DraftingGenerator):
    name = "table"

    def __init__(self, client: ModelClient, budget: GenerationBudget) -> None:
        super().__init__(client, budget)
        self.prompt = load("table-questions")

    def units(self, document: Document) -> list[Artifact]:
        return [
            a for a in document.artifacts if a.modality == "table" and (a.html or plain(a.text))
        ]

    def draft(self, document: Document, artifact: Artifact) -> list[Candidate]:
        wanted = self.budget.questions_per_table
        reply = self.client.complete(
            "generator",
            self.prompt.messages(
                count=wanted,
                locator=artifact.locator,
                table=(artifact.html or plain(expanded(document, artifact.text)))[:MAX_TABLE_CHARS],
                narrative=narrative(document, artifact),
            ),
            TableQuestions,
        )
        if not reply.ok:
            self._count("no draft (model call failed)")
            return []
        drafted = reply.parsed.questions[:wanted]
        self._count("drafted", len(drafted))
        cells = table_text(document, artifact)
        version = provenance(self.client, self.prompt)
        out = []
        for item in drafted:
            if not item.question.strip() or not grounded(item.value, cells):
                self._count("dropped: answer is not a value of the table")
                continue
            anchor = (
                [item.row_label]
                if item.row_label.strip() and grounded(item.row_label, cells)
                else anchor_for(item.question, cells, item.value)
            )
            out.append(
                self._candidate(
                    document,
                    artifact,
                    "table-lookup",
                    item.question,
                    item.answer,
                    item.value,
                    anchor,
                    version,
                )
            )
        self._count("kept", len(out))
        return out
