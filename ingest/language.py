"""Language identification with the model shipped inside the py3langid wheel (no download)."""

from __future__ import annotations

import re

LETTER_WORD = re.compile(r"[^\W\d_]{2,}")
SAMPLE_WORDS = 3000


def identify(text: str, min_words: int) -> tuple[str, float]:
    """(ISO 639-1 code, probability); ("und", 0.0) when there are too few words to tell.

    Only words made of letters are used, so numbers and codes in spreadsheets do
    not sway the guess.
    """
    words = LETTER_WORD.findall(text)
    if len(words) < min_words:
        return "und", 0.0
    # Imported here, on first use: loading the model takes about 0.7 s of CPU, which a
    # command that identifies no language should not pay (workers have it preloaded).
    from ingest.language_model import IDENTIFIER

    language, probability = IDENTIFIER.classify(" ".join(words[:SAMPLE_WORDS]))
    return language, round(float(probability), 4)
