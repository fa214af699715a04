"""The model client shared by every stage: calls, records, accounting, batch mode."""

from fidelity.core.llm.client import LLMClient, Reply
from fidelity.core.llm.messages import assistant, system, user

__all__ = ["LLMClient", "Reply", "assistant", "system", "user"]
