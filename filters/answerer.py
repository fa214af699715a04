"""The model re-ask behind the groundedness checks: answer the question from one view.

With no context the model answers from what it knows (a match means the question is
memorisable); with an ablation view it answers from that view only (a match means the
question does not need its target). Either way a match is a `fail`. The decision keeps
the model's answer, how it was matched, and the record ids of every call behind it
(`model_call`: the answerer's id first, then any judge calls, comma-separated).
A call that cannot be made or used gives a `skipped` decision: the caller keeps the
lexical verdict it already has.

`check_all` asks many re-asks at once: those over one context share a request with numbered
questions (filters.batching); a request of one question is the single re-ask of `check`.
Each decision records the request its answer came from; a failed request, or a reply
without a question's number, leaves each of its questions `skipped`. A replay, whose
questions may meet in other requests than they were asked in, answers each from the
request its stored decision names (`Recorded`, `answer_in`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from fidelity.core.config import FilterSettings
from fidelity.core.document import Candidate, Decision
from fidelity.core.llm import ModelClient
from fidelity.core.llm.structured import parse
from fidelity.core.prompt import load
from fidelity.core.views import ViewContext
from filters.batching import Ask, batches
from filters.chain import NO_CONTEXT
from filters.groundedness import Mapper
from filters.matching import Matcher
from filters.replies import no_reply, reply_fields

MAX_ANSWER_CHARS = 1000
TRUNCATED = "\n\n[… the rest of the document is cut here: it is too long for one request …]"


class ReAnswer(BaseModel):
    answer: str
    answerable: bool


class NumberedAnswer(BaseModel):
    number: int
    answer: str
    answerable: bool


class ReAnswers(BaseModel):
    answers: list[NumberedAnswer]


# A recorded request's id, and the answer it gave one question (None with the request's error).
Answered = tuple[str, ReAnswer | None, str]
Recorded = Callable[[Ask], Answered | None]


def one_line(question: str) -> str:
    return " ".join(question.split())


def numbered(asks: list[Ask]) -> str:
    """The questions of one request, numbered from 1, each on one line."""
    return "\n".join(f"{i}. {one_line(ask.candidate.question)}" for i, ask in enumerate(asks, 1))


def answer_in(record: dict[str, Any], question: str) -> Answered | None:
    """The answer a recorded request of numbered questions gave `question` (None when the
    record is no such request or did not ask it)."""
    if (record["request"].get("schema") or {}).get("name") != ReAnswers.__name__:
        return None
    asked: list[str] = []
    for message in record["request"]["messages"]:
        content = message.get("content")
        parts = [content] if isinstance(content, str) else [p.get("text", "") for p in content]
        for text in parts:
            if message.get("role") == "user" and "\nQuestions:\n" in f"\n{text}":
                asked = text.rsplit("Questions:\n", 1)[1].split("\n")
                break
        if asked:
            break
    wanted = [i for i, line in enumerate(asked, 1) if line == f"{i}. {one_line(question)}"]
    if not wanted:
        return None
    if not record["response"] or record["error"]:
        return record["key"], None, record["error"] or "no recorded reply"
    try:
        reply = parse(record["response"].get("content") or "", ReAnswers)
    except ValueError as problem:
        return record["key"], None, f"invalid reply: {problem}"
    assert isinstance(reply, ReAnswers)
    for answer in reply.answers:
        if answer.number == wanted[0]:
            return record["key"], ReAnswer(answer=answer.answer, answerable=answer.answerable), ""
    return record["key"], None, f"the reply has no answer {wanted[0]}"


class LLMAnswerer:
    """`Answerer` for filters.groundedness: the answerer model plus the matcher."""

    def __init__(
        self,
        client: ModelClient,
        matcher: Matcher,
        settings: FilterSettings,
        recorded: Recorded | None = None,
    ) -> None:
        self.client = client
        self.recorded = recorded
        self.matcher = matcher
        self.max_chars = settings.max_context_chars
        self.per_request = max(1, settings.batch_questions)
        self.with_context = load("filter-answer")
        self.without_context = load("filter-no-context")
        self.many_with_context = load("filter-answers")
        self.many_without_context = load("filter-no-context-answers")

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
            messages = self.with_context.messages(
                self._images(view),
                self.client.settings.image_detail,
                document=view.text,
                question=candidate.question,
            )
        reply = self.client.complete("answerer", messages, ReAnswer, stage="filter")
        if not reply.ok:
            return self._unanswered(Ask(candidate, view, check), reply.record_id, reply.error)
        return self._decide(Ask(candidate, view, check), reply.record_id, reply.parsed)

    def check_all(self, asks: list[Ask], mapper: Mapper | None = None) -> list[Decision]:
        """Each ask's decision, in order; the requests (one per batch) spread over `mapper`."""
        groups = batches(asks, self.per_request)
        run = mapper or (lambda fn, items: [fn(item) for item in items])
        answered = run(self._ask_together, [[asks[i] for i in group] for group in groups])
        decided: dict[int, Decision] = {}
        for group, decisions in zip(groups, answered, strict=True):
            decided.update(zip(group, decisions, strict=True))
        return [decided[i] for i in range(len(asks))]

    def _ask_together(self, asks: list[Ask]) -> list[Decision]:
        if self.recorded is not None:
            return [self._replayed(ask) for ask in asks]
        if len(asks) == 1:
            ask = asks[0]
            return [self.check(ask.candidate, ask.view, ask.check)]
        view = asks[0].view
        if asks[0].check == NO_CONTEXT.name:
            messages = self.many_without_context.messages(questions=numbered(asks))
        else:
            messages = self.many_with_context.messages(
                self._images(view),
                self.client.settings.image_detail,
                document=view.text,
                questions=numbered(asks),
            )
        reply = self.client.complete("answerer", messages, ReAnswers, stage="filter")
        if not reply.ok:
            return [self._unanswered(ask, reply.record_id, reply.error) for ask in asks]
        answers: dict[int, NumberedAnswer] = {}
        for answer in reply.parsed.answers:
            answers.setdefault(answer.number, answer)
        decisions = []
        for number, ask in enumerate(asks, 1):
            found = answers.get(number)
            if found is None:
                missing = f"the reply to {len(asks)} numbered questions has no answer {number}"
                decisions.append(self._unanswered(ask, reply.record_id, missing))
                continue
            one = ReAnswer(answer=found.answer, answerable=found.answerable)
            decisions.append(self._decide(ask, reply.record_id, one))
        return decisions

    def _replayed(self, ask: Ask) -> Decision:
        """A replay's decision: from the recorded request of numbered questions its stored
        decision names, else from the single re-ask's record."""
        assert self.recorded is not None  # a replay's answerer
        found = self.recorded(ask)
        if found is None:
            return self.check(ask.candidate, ask.view, ask.check)
        record_id, answer, error = found
        if answer is None:
            return self._unanswered(ask, record_id, error)
        return self._decide(ask, record_id, answer)

    def _images(self, view: ViewContext) -> list[str]:
        return [path for path in view.images if self.client.images.sendable(path)]

    def _base(self, ask: Ask, record_id: str) -> dict[str, Any]:
        return reply_fields(ask.candidate.id, ask.check, ask.view, record_id)

    def _unanswered(self, ask: Ask, record_id: str, error: str) -> Decision:
        reason = f"no usable model answer ({error or 'pending'})"
        return no_reply(self._base(ask, record_id), reason)

    def _decide(self, ask: Ask, record_id: str, answer: ReAnswer) -> Decision:
        """The verdict on the model's answer to one question (the judge asked when needed)."""
        candidate, check = ask.candidate, ask.check
        base = self._base(ask, record_id)
        said = " ".join(answer.answer.split())[:MAX_ANSWER_CHARS]
        where = "without any context" if check == NO_CONTEXT.name else "from this view"
        if not answer.answerable:
            return Decision(
                **base,
                answered=said,
                match="model-abstained",
                verdict="pass",
                reason=f"the model says it cannot answer {where}",
            )
        match = self.matcher.match(candidate, said)
        calls = [record_id, *match.calls]
        base["model_call"] = ",".join(call for call in calls if call) or None
        if match.matched is None:  # every judge call failed: a call to make again, not a verdict
            verdict, reason = "skipped", f"no usable judge answer ({match.reason})"
        elif match.matched:
            verdict, reason = "fail", f"the model answers correctly {where}: {match.reason}"
        else:
            verdict, reason = "pass", f"the model's answer is not the reference: {match.reason}"
        return Decision(**base, answered=said, match=match.method, verdict=verdict, reason=reason)
