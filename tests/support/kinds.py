"""The artifact kinds each application declares, read from its views module."""

from __future__ import annotations

import importlib

from fidelity.core.apps import APPLICATIONS


def declared_kinds(app: str) -> frozenset[str]:
    """The kinds an application's views module declares (beside its extractor module)."""
    package = APPLICATIONS[app].extractor.rsplit(".", 1)[0]
    kinds: frozenset[str] = importlib.import_module(f"{package}.views").KINDS
    return kinds
