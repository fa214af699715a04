"""The model client shared by every stage: calls, records, accounting, batch mode."""

from fidelity.llm.client import ModelClient, Reply
from fidelity.llm.messages import assistant, system, user

__all__ = ["ModelClient", "Reply", "assistant", "system", "user"]
