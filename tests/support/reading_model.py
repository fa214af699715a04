"""A deterministic stand-in model for the filters: it reads its context, nothing else.

Each question is answered on its own from the context it is asked over (the line sharing the
most of the question's content words, when it shares at least half of them), whether it comes
alone or numbered among others (tests/support/numbered.py), so asking questions together
cannot change an answer: a build's keep/drop decisions may be compared between the two ways
of asking. Judges, the grader and the generators are deterministic functions of their own
request too. Every reply reports prompt tokens as a quarter of its request's characters, so
a build's token count measures what it sends.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from fidelity.core.text import content_tokens, tokens
from tests.generators.test_llm_generators_pipeline import generic_model
from tests.support.numbered import context_of, each_alone, prompt_tokens
from tests.support.openai_stub import Spec, json_reply, schema_name, text_of

MAX_ANSWER = 200


def read(question: str, context: str | None) -> tuple[str, bool]:
    """(answer, answerable): the context's line that best matches the question, if any."""
    if context is None:
        return "unknown", False
    wanted = set(content_tokens(question))
    best, score = "", 0
    for line in context.splitlines():
        shared = len(wanted & set(tokens(line)))
        if shared > score:
            best, score = line, shared
    if not wanted or score * 2 < len(wanted):
        return "unknown", False
    return " ".join(best.split())[:MAX_ANSWER], True


def _last(pattern: str, text: str) -> str:
    found = re.findall(pattern, text)
    return found[-1].strip() if found else ""


def _grade(question: str) -> dict[str, Any]:
    digest = hashlib.sha256(question.encode()).digest()
    return {
        "clarity": 3 + digest[0] % 3,
        "precision": 4,
        "value": 1 + digest[1] % 5,
        "rationale": "deterministic",
    }


def _judge(text: str) -> bool:
    response = re.search(r"Response:\n<<<\n(.*?)\n>>>", text, re.DOTALL)
    said = set(tokens(response.group(1) if response else ""))
    wanted = set(content_tokens(_last(r"Statement: (.*)", text)))
    return bool(wanted) and len(wanted & said) * 5 >= len(wanted) * 3


def read_alone(body: dict[str, Any]) -> Spec:
    """The reply to one chat request of a model-mode build, numbered questions aside."""
    name, text = schema_name(body), text_of(body)
    usage = {"prompt_tokens": prompt_tokens(body)}
    if name == "ReAnswer":
        answer, answerable = read(_last(r"Question: (.*)", text), context_of(text))
        return json_reply({"answer": answer, "answerable": answerable}, **usage)
    if name == "JudgeVerdict":
        return json_reply({"satisfied": _judge(text), "reason": "deterministic"}, **usage)
    if name == "Grade":
        return json_reply(_grade(_last(r"Question: (.*)", text)), **usage)
    reply = generic_model(body)
    reply["json"]["usage"]["prompt_tokens"] = usage["prompt_tokens"]
    return reply


reading_model = each_alone(read_alone)
