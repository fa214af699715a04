"""Deterministic text normalisation shared by generators, the leakage test and answer matching."""

from __future__ import annotations

import re
import unicodedata

_NUMBER_SEPARATOR = re.compile(r"(?<=\d)[,\u00a0\u202f ](?=\d{3}\b)")
_PUNCT = re.compile(r"[^\w%.\-/:@#]+")
_EDGE = re.compile(r"(?<!\w)[.\-/:]+|[.\-/:]+(?!\w)")


def normalize(text: str) -> str:
    """Lower-case, NFKC, thousands separators dropped, punctuation folded to spaces."""
    text = unicodedata.normalize("NFKC", text).casefold()
    text = text.replace("\u2019", "'").replace("'", "")
    text = _NUMBER_SEPARATOR.sub("", text)
    text = _PUNCT.sub(" ", text)
    text = _EDGE.sub(" ", text)
    return " ".join(text.split())


def tokens(text: str) -> list[str]:
    return normalize(text).split()


STOPWORDS = frozenset(
    "a an the of in on at to for and or is are was were be by with from as that this "
    "which what who whom whose where when how does do did it its into than then".split()
)


def content_tokens(text: str) -> list[str]:
    return [token for token in tokens(text) if token not in STOPWORDS]
