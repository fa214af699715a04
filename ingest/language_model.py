"""The py3langid model, loaded when this module is first imported (about 0.7 s of CPU).

A module of its own so that the worker forkserver can preload it: every worker forked
from it then starts with the model instead of loading it again.
"""

from __future__ import annotations

from py3langid.langid import MODEL_FILE, LanguageIdentifier

IDENTIFIER = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
