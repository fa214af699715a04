"""Language tags of text runs: the deck's main language and readable names for tags."""

from __future__ import annotations

from collections import Counter

from lxml import etree

from extractors.ooxml.namespaces import a

NAMES = {
    "ar": "Arabic",
    "cs": "Czech",
    "da": "Danish",
    "de": "German",
    "el": "Greek",
    "en": "English",
    "es": "Spanish",
    "fi": "Finnish",
    "fr": "French",
    "he": "Hebrew",
    "hi": "Hindi",
    "hu": "Hungarian",
    "it": "Italian",
    "ja": "Japanese",
    "ko": "Korean",
    "nb": "Norwegian",
    "nl": "Dutch",
    "no": "Norwegian",
    "pl": "Polish",
    "pt": "Portuguese",
    "ro": "Romanian",
    "ru": "Russian",
    "sv": "Swedish",
    "tr": "Turkish",
    "uk": "Ukrainian",
    "uz": "Uzbek",
    "zh": "Chinese",
}


def language_name(tag: str) -> str:
    return NAMES.get(tag.split("-", 1)[0].lower(), tag)


def main_language(slides: list[etree._Element], default: str | None) -> tuple[str | None, int, int]:
    """(most used run language weighted by text length, its characters, all tagged characters)."""
    counts: Counter[str] = Counter()
    for root in slides:
        for run in root.iter(a("r")):
            props = run.find(a("rPr"))
            lang = props.get("lang") if props is not None else None
            lang = lang or default
            text = run.findtext(a("t")) or ""
            if lang and lang.lower() != "x-none" and text.strip():
                counts[lang] += len(text.strip())
    if not counts:
        return default, 0, 0
    lang, chars = counts.most_common(1)[0]
    return lang, chars, sum(counts.values())
