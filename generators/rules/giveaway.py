"""Answers a reader gives without the file: text that names itself, default names, stock phrases.

The Word and Excel rules ask these before drafting a question, so a giveaway is never asked
(the guessability filter still checks every candidate afterwards).
"""

from __future__ import annotations

import re

from fidelity.core.text import normalize

# The name Office gives the Nth new sheet, in the languages its builds ship in.
DEFAULT_SHEET = re.compile(
    r"^(sheet|tabelle|feuil|feuille|hoja|foglio|planilha|plan|folha|blad|arkusz|list|лист"
    r"|munka|ark|taul|taulukko|sayfa|φύλλο|foaie|hárok|lapas|leht|radni list|ورقة|גיליון"
    r"|시트|ワークシート|シート|工作表|sheet ?)\s*\d+$",
    re.IGNORECASE,
)
# What an element is called: a text naming one of these about itself names its own kind.
ELEMENT_WORDS = {
    "header": ("header", "head", "heading", "kopfzeile", "en-tête", "entete"),
    "footer": ("footer", "foot", "fußzeile", "pied"),
    "footnote": ("footnote", "note", "fußnote"),
    "endnote": ("endnote", "note"),
    "comment": ("comment", "kommentar", "commentaire", "note"),
    "textbox": ("textbox", "text box", "box", "textfeld", "textframe", "text frame", "frame"),
    "hyperlink": ("hyperlink", "link"),
    "cell": ("cell", "zelle", "cellule"),
    "shape": ("shape", "form"),
}
# Filler a template or a test writes where the real text would go.
PLACEHOLDER = re.compile(
    r"\b(goes here|lorem ipsum|type (the |your )?(text|title|here)|click here to|enter text"
    r"|insert \w+ here|your \w+ here|sample text|placeholder|add (a |your )?\w+ here)\b"
    r"|\[\s*type [^\]]*",  # Word's building-block prompts: "[Type sidebar content…]"
    re.IGNORECASE,
)
NUMBERED_NAME = re.compile(r"([^\W\d_]{0,8})[\s_-]*(\d{1,3})")
SELF_NAMING_WORDS = 8
SHORT = 4
# How a text announcing itself begins ("This is the footer", "Another header with…").
ANNOUNCING = re.compile(
    r"^(this is|here is|here's|this|another|the|a|an|my|our|first|second|sample|test|dummy)\b",
    re.IGNORECASE,
)
CELL_ADDRESS = re.compile(r"^(cell\s+)?\$?([A-Z]{1,3})\$?(\d+)$", re.IGNORECASE)


def default_sheet_name(name: str) -> bool:
    """True for the name Office gives a new sheet ("Sheet3", "Tabelle3", "Feuil3", "Лист3")."""
    return bool(DEFAULT_SHEET.match(name.strip()))


def numbered_by_place(name: str, position: int) -> bool:
    """A name made of at most one short word and the number of its own place ("S3", "Q3",
    "Page 3" for the third tab): the order gives it away as "Sheet3" does."""
    found = NUMBERED_NAME.fullmatch(name.strip())
    return found is not None and int(found.group(2)) == position


def names_itself(text: str, kind: str) -> bool:
    """True when a short text only announces what it is ("This is the endnote.", "FOOTER GOES
    HERE", "First page header", "Head1": four words or fewer, or eight that begin as an
    announcement does) or is a template's filler: asking for it is a giveaway."""
    plain = " ".join(text.split())
    if not plain:
        return False
    if PLACEHOLDER.search(plain):
        return True
    kinds = "|".join(re.escape(word) for word in ELEMENT_WORDS.get(kind, (kind,)))
    if re.match(
        rf"^(this|here)\s+is\s+(a|an|the|my|another)?\s*(\w+\s+){{0,2}}({kinds})\b",
        plain,
        re.IGNORECASE,
    ):
        return True  # "This is an endnote at the end of the document."
    words = normalize(re.sub(r"(?<=[a-z])(?=\d)", " ", plain)).split()
    if len(words) > SELF_NAMING_WORDS or len(words) > SHORT and not ANNOUNCING.match(plain):
        return False
    joined = f" {' '.join(words)} "
    return any(f" {normalize(word)} " in joined for word in ELEMENT_WORDS.get(kind, (kind,)))


def reads_its_address(text: str, cell: str) -> bool:
    """True for a cell whose text is its own address ("B3" in B3, "Cell B3")."""
    found = CELL_ADDRESS.match(" ".join(str(text).split()))
    own = CELL_ADDRESS.match(cell.replace("$", ""))
    return bool(found and own) and found.group(2, 3) == own.group(2, 3)  # type: ignore[union-attr]


def link_names_target(text: str, target: str) -> bool:
    """True when a link's display text already names where it goes: it spells the address
    out, or the address holds nothing beyond the display text's words and the usual
    scheme, www and domain ending ("Apache POI" for http://poi.apache.org/)."""
    core = re.sub(r"^(mailto:|https?://|ftp://)(www\.)?", "", target.strip(), flags=re.I)
    core = core.rstrip("/").lower()
    shown = re.sub(r"^(https?://)?(www\.)?", "", text.strip(), flags=re.I).rstrip("/").lower()
    if shown and (core == shown or core.startswith(shown) and len(shown) >= 6):
        return True
    words = [w for w in re.findall(r"[^\W_]+", shown) if len(w) >= 3]
    if not words:
        return False
    rest = re.sub(r"[^a-z0-9]", "", core)
    for word in sorted(words, key=len, reverse=True):
        rest = rest.replace(word, "", 1)
    return len(re.sub(r"(com|org|net|gov|edu|html?|index)", "", rest)) <= 3
