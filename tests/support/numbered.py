"""Test endpoints for numbered re-asks: a request of numbered questions answered one by one.

`each_alone(responder)` turns a stub that knows only the single re-ask (filters/answerer.py,
schema ReAnswer) into one that also answers a request of numbered questions (ReAnswers): each
question goes to the stub as the single re-ask over the same context, so an answer cannot
depend on the questions asked with it.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from typing import Any

from fidelity.core.prompt import load
from tests.support.openai_stub import Spec, json_reply, schema_name, text_of

Responder = Callable[[dict[str, Any]], Spec]
DOCUMENT = re.compile(r"Document:\n<<<\n(.*)\n>>>", re.DOTALL)
NUMBERED = re.compile(r"^(\d+)\. (.*)$", re.MULTILINE)


def prompt_tokens(body: dict[str, Any]) -> int:
    """A request's prompt tokens, counted as a quarter of its characters."""
    return math.ceil(len(text_of(body)) / 4)


def context_of(text: str) -> str | None:
    found = DOCUMENT.search(text)
    return found.group(1) if found else None


def questions_of(text: str) -> list[tuple[int, str]]:
    """The numbered questions of a request's text."""
    after = text.rsplit("Questions:\n", 1)[-1]
    return [(int(number), question) for number, question in NUMBERED.findall(after)]


def alone(body: dict[str, Any], question: str) -> dict[str, Any]:
    """The single re-ask of `question` over the context of a numbered request `body`."""
    context = context_of(text_of(body))
    if context is None:
        messages = load("filter-no-context").messages(question=question)
    else:
        messages = load("filter-answer").messages(document=context, question=question)
    single = {"type": "json_schema", "json_schema": {"name": "ReAnswer"}}
    return {**body, "messages": messages, "response_format": single}


def each_alone(responder: Responder) -> Responder:
    """`responder`, answering a request of numbered questions by asking it each one alone."""

    def respond(body: dict[str, Any]) -> Spec:
        if schema_name(body) != "ReAnswers":
            return responder(body)
        answers = []
        for number, question in questions_of(text_of(body)):
            reply = responder(alone(body, question))
            answer = json.loads(reply["json"]["choices"][0]["message"]["content"])
            answers.append({"number": number, **answer})
        return json_reply({"answers": answers}, prompt_tokens=prompt_tokens(body))

    return respond
