"""Model mode's positive checks: the file itself must give the reference answer.

After the ablation views (which the question must *fail* to be answered from), the
answerer is given the whole document, and a question about a modality the paper keeps
apart is also asked from that modality alone (OCB §14.2, §20.1.0.3): a speaker-note
question from the notes-only view, a layout, grouping or colour question from the
rendered image of its slide (when slides were rendered). A model that does not give the
reference answer there means the question is not answerable from the file: rejected.
"""

from __future__ import annotations

from fidelity.core.document import Artifact, Decision, Document
from fidelity.core.views import View, deck_views

NOTES = "Slide Note"
LAYOUT = frozenset(
    {"Position/Association/Grouping", "Shapes/Type & Color", "Tables/Cell color coding"}
)


def positive_views(document: Document, artifact: Artifact) -> list[View]:
    """The whole document, then the modality-only view the target's category calls for."""
    views = [View("full")]
    if artifact.category == NOTES:
        views.append(deck_views(document)["notes-only"])
    slide = artifact.facts.get("slide")
    if artifact.category in LAYOUT and isinstance(slide, int):
        renders = frozenset(
            a.id
            for a in document.artifacts
            if a.kind == "slide-render" and a.facts.get("slide") == slide
        )
        if renders:
            views.append(View(f"slide-image:{slide}", include_only=renders))
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
