"""Artifacts made one way by every extractor: an id from the document's id maker, a placeholder."""

from __future__ import annotations

from typing import Any

from fidelity.core.document import Artifact, placeholder_for
from fidelity.core.hashing import IdMaker


class ArtifactMaker:
    """Makes artifacts whose ids come from one IdMaker (stable keys, repeats numbered)."""

    def __init__(self, ids: IdMaker) -> None:
        self.ids = ids

    def make(
        self, prefix: str, key: tuple[str, ...], placed: bool = True, **fields: Any
    ) -> Artifact:
        """An artifact with id `prefix-hash(key)`; `placed`: it has a placeholder in the body."""
        artifact_id = self.ids(prefix, *key)
        placeholder = placeholder_for(artifact_id) if placed else None
        return Artifact(id=artifact_id, placeholder=placeholder, **fields)
