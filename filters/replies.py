"""A Decision made from a model's reply: the fields every model check records, and the
decision when no usable reply came (skipped: the check runs again on a rerun, never a verdict)."""

from __future__ import annotations

from typing import Any

from fidelity.core.document import Decision
from fidelity.core.views import ViewContext


def reply_fields(
    candidate_id: str, check: str, view: ViewContext, record_id: str
) -> dict[str, Any]:
    """What every model check records: the candidate, the check, the view and its context hash,
    the model call the reply came from."""
    return {
        "candidate_id": candidate_id,
        "check": check,
        "view": view.name,
        "context_hash": view.hash,
        "model_call": record_id or None,
    }


def no_reply(fields: dict[str, Any], reason: str) -> Decision:
    """The check did not run: no usable reply (a failed call, a bad answer, the budget)."""
    return Decision(**fields, answered="", match="none", verdict="skipped", reason=reason)
