"""The model re-ask behind the groundedness checks: answer the question from one view.

With no context the model answers from what it knows (a match means the question is
memorisable); with an ablation view it answers from that view only (a match means the
question does not need its target). Either way a match is a `fail`. The decision keeps
the model's answer, how it was matched, and the record ids of every call behind it
(`model_call`: the answerer's id first, then any judge calls, comma-separated).
A call that cannot be made or used gives a `skipped` decision: the caller keeps the
lexical verdict it already has.
"""

from __future__ import annotations

from pydantic import BaseModel

from fidelity.core.config import FilterSettings
from fidelity.core.document import Candidate, Decision
from fidelity.core.llm import ModelClient
from fidelity.core.prompt import load
from fidelity.core.views import ViewContext
from filters.chain import NO_CONTEXT
from filters.matching import Matcher

MAX_ANSWER_CHARS = 1000
TRUNCATED = "\n\n[… the rest of the document is cut here: it is too long for one request …]"


class ReAnswer(BaseModel):
    answer: str
    answerable: bool


class LLMAnswerer:
    """`Answerer` for filters.groundedness: the answerer model plus the matcher."""

    def __init__(self, client: ModelClient, matcher: Matcher, settings: FilterSettings) -> None:
        self.client = client
        self.matcher = matcher
        self.max_chars = settings.max_context_chars
        self.with_context = load("filter-answer")
        self.without_context = load("filter-no-context")

    @property
    def version(self) -> str:
        return f"{self.with_context.tag}+{self.without_context.tag}"

    def shown(self, view: ViewContext) -> ViewContext:
        """The context the model gets: the view, cut to `max_context_chars` when longer."""
        if not self.max_chars or len(view.text) <= self.max_chars:
            return view
        text = view.text[: self.max_chars].rsplit("\n", 1)[0] + TRUNCATED
        return ViewContext(name=view.name, text=text, images=view.images)

    def check(self, candidate: Candidate, view: ViewContext, check: str) -> Decision:
        if check == NO_CONTEXT.name:
            messages = self.without_context.messages(question=candidate.question)
        else:
            detail = self.client.settings.image_detail
            images = [path for path in view.images if self.client.images.sendable(path)]
            messages = self.with_context.messages(
                images, detail, document=view.text, question=candidate.question
            )
        reply = self.client.complete("answerer", messages, ReAnswer, stage="filter")
        base = {
            "candidate_id": candidate.id,
            "check": check,
            "view": view.name,
            "context_hash": view.hash,
            "model_call": reply.record_id or None,
        }
        if not reply.ok:
            reason = f"no usable model answer ({reply.error or 'pending'})"
            return Decision(**base, answered="", match="none", verdict="skipped", reason=reason)
        answer: ReAnswer = reply.parsed
        said = " ".join(answer.answer.split())[:MAX_ANSWER_CHARS]
        if not answer.answerable:
            where = "without any context" if check == NO_CONTEXT.name else "from this view"
            return Decision(
                **base,
                answered=said,
                match="model-abstained",
                verdict="pass",
                reason=f"the model says it cannot answer {where}",
            )
        match = self.matcher.match(candidate, said)
        calls = [reply.record_id, *match.calls]
        base["model_call"] = ",".join(call for call in calls if call) or None
        if match.matched is None:  # every judge call failed: a call to make again, not a verdict
            verdict, reason = "skipped", f"no usable judge answer ({match.reason})"
        elif match.matched:
            where = "without any context" if check == NO_CONTEXT.name else "from this view"
            verdict, reason = "fail", f"the model answers correctly {where}: {match.reason}"
        else:
            verdict, reason = "pass", f"the model's answer is not the reference: {match.reason}"
        return Decision(**base, answered=said, match=match.method, verdict=verdict, reason=reason)
