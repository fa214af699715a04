"""Language identification with the model shipped inside the py3langid wheel (no download)."""

from __future__ import annotations

import re
from functools import cache

from py3langid.langid import MODEL_FILE, LanguageIdentifier

LETTER_WORD = re.compile(r"[^\W\d_]{2,}")
SAMPLE_WORDS = 3000


@cache
def _identifier() -> LanguageIdentifier:
    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


def identify(text: str, min_words: int) -> tuple[str, float]:
    """(ISO 639-1 code, probability); ("und", 0.0) when there are too few words to tell.

    Only words made of letters are used, so numbers and codes in spreadsheets do
    not sway the guess.
    """
    words = LETTER_WORD.findall(text)
    if len(words) < min_words:
        return "und", 0.0
    language, probability = _identifier().classify(" ".join(words[:SAMPLE_WORDS]))
    return language, round(float(probability), 4)
