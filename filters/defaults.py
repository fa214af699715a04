"""What Office fills in by itself: the answers a reader can guess without opening the file.

One table per kind of default, all in normalised form (fidelity.core.text.normalize), read by
filters.guessability. Keep the entries to values the applications really set on their own.
"""

from __future__ import annotations

import re

# Question type -> answers that are the application's default for it (compared normalised).
DEFAULT_ANSWERS: dict[str, frozenset[str]] = {
    "chart-legend": frozenset({"right", "r"}),
    "layout-columns": frozenset(
        {"1", "one", "1 column", "one column", "single column", "1 text column", "one text column"}
    ),
    "layout-orientation": frozenset({"portrait", "portrait orientation"}),
    "layout-alignment": frozenset({"left", "left-aligned", "left aligned"}),
    "deck-language": frozenset({"en-us", "english (united states)"}),
    "run-language": frozenset({"en-us", "english (united states)"}),
    "language": frozenset({"en-us", "english (united states)"}),
    "ink-colour": frozenset({"black", "#000000", "000000"}),
    "ink-colours": frozenset({"black", "#000000", "000000"}),
    "font-span": frozenset({"black", "automatic", "auto", "#000000", "000000"}),
    "highlight-colour": frozenset({"yellow", "#ffff00", "ffff00"}),
    "header-field": frozenset({"page"}),
    "footer-field": frozenset({"page"}),
    "chart-title": frozenset({"chart title"}),
    "chart-type": frozenset({"clustered column chart", "clustered column"}),
    "table-style": frozenset({"TableStyleMedium2", "Table Style Medium 2"}),
    "metadata-PresentationFormat": frozenset(
        {"on-screen show (4:3)", "on-screen show 4:3", "widescreen"}
    ),
    "metadata-Template": frozenset({"normal", "normal.dotm", "normal.dot"}),
}

# Question types whose default is the application's language only when the file's main
# language is that default too (a run tagged en-US in an en-GB deck is worth asking).
LANGUAGE_TYPES = frozenset({"run-language"})
DEFAULT_LANGUAGE = "en-us"

# The layout PowerPoint gives a new deck's first slide, and every slide added after it.
FIRST_SLIDE_LAYOUT = "title slide"
NEW_SLIDE_LAYOUT = "title and content"

# Body typefaces a new document gets (Word 2003, 2007-2019, 365; LibreOffice).
DEFAULT_BODY_FONTS = frozenset({"times new roman", "calibri", "aptos", "liberation serif"})
# Heading typefaces of the default themes.
DEFAULT_HEADING_FONTS = frozenset({"calibri light", "cambria", "aptos display"})
FONT_TYPES = frozenset({"font-body", "font-typeface", "font-span"})

# The data a freshly inserted Office chart holds (Series 1-3 over Category 1-4).
SAMPLE_CHART_SERIES: tuple[tuple[float, ...], ...] = (
    (4.3, 2.5, 3.5, 4.5),
    (2.4, 4.4, 1.8, 2.8),
    (2.0, 2.0, 3.0, 5.0),
)
SAMPLE_CHART_NAME = re.compile(r"^(series|category)\s*\d+$")

# Names Office or add-ins keep for themselves, and references that broke (a name or a
# reference to a deleted range, "Sheet1!#REF!"; an error value a formula holds on purpose,
# "=ERROR.TYPE(#REF!)", "=#REF!*3", is a formula like any other).
SYSTEM_NAME = re.compile(
    r"_xlnm\.|\bZ_[0-9A-F_]{8,}_?[._]wvu[._]|__123Graph|[\w'\]]!#REF!|^#REF!$|_FilterDatabase",
    re.IGNORECASE,
)
# Identifiers nobody reads: GUIDs, long hex strings, build and version numbers.
GUID = re.compile(r"\b[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}\b", re.I)
LONG_HEX = re.compile(r"^(0x)?(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{12,}(_\d+)?$", re.I)
BUILD_NUMBER = re.compile(r"^[a-z]{0,2}\d+(?:[.-]\d+){2,}$|^\d+\.0{2,}$", re.IGNORECASE)
# Alt text the application writes by itself: the shape's own name or the picture's file name.
AUTO_ALT_TEXT = re.compile(
    r"^(picture|image|graphic|grafik|chart|figure|diagram|object|photo|img|clip_image|ink"
    r"|drawing|shape|rectangle|text ?box|group|oval)[\s_-]*\d*$"
    r"|\.(png|jpe?g|gif|emf|wmf|bmp|tiff?|svg)$",
    re.IGNORECASE,
)
ALT_TEXT_TYPES = frozenset({"image-alt-text"})
