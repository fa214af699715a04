"""The model client shared by every stage: calls, records, accounting, batch mode."""

from fidelity.core.llm.client import LLMClient, Reply
from fidelity.core.llm.messages import assistant, system, user
from fidelity.core.llm.protocol import Completer, ModelClient

__all__ = [
    "Completer",
    "LLMClient",
    "ModelClient",
    "Reply",
    "assistant",
    "system",
    "user",
]
