"""Model mode's positive checks: the file itself must give the reference answer.

After the ablation views (which the question must *fail* to be answered from), the
answerer is given the whole document, and a question about a modality the paper keeps
apart is also asked from that modality alone (OCB §14.2, §20.1.0.3): each view its
extractor declares in `Artifact.answerable_from` (a speaker note's notes-only view, the
rendered image of a layout, grouping or colour question's slide), when some artifact
is shown by it. A model that does not give the reference answer there means the
question is not answerable from the file: rejected.
"""

from __future__ import annotations

from fidelity.core.document import Artifact, Decision, Document
from fidelity.core.views import View, shown_by


def positive_views(document: Document, artifact: Artifact) -> list[View]:
    """The whole document, then the modality-only views the target declares."""
    views = [View("full")]
    for name in artifact.answerable_from:
        alone = shown_by(document, name)
        if alone.include_only:
            views.append(alone)
    return views


def positive(asked: Decision) -> Decision:
    """Turn the answerer's re-ask verdict around: a correct answer is what must happen here."""
    if asked.verdict == "fail":
        verdict = "pass"
        reason = asked.reason.replace("answers correctly", "gives the reference answer")
    elif asked.verdict == "pass":
        verdict, reason = "fail", f"not answerable from the file: {asked.reason}"
    else:
        return asked
    return asked.model_copy(update={"verdict": verdict, "reason": reason})
