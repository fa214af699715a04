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
        {
            "on-screen show (4:3)",
            "on-screen show 4:3",
            "on-screen show (16:9)",
            "on-screen show 16:9",
            "widescreen",
        }
    ),
    "metadata-Company": frozenset({"microsoft", "microsoft corporation"}),
    # The creation stamps of the templates new files start from: Excel 97's Book template,
    # python-pptx's and python-docx's default files. A file that kept one says nothing.
    "metadata-created": frozenset(
        {"1996-10-14T23:33:28Z", "2013-01-27T09:14:16Z", "2013-12-23T23:15:00Z"}
    ),
    "metadata-Template": frozenset({"normal", "normal.dotm", "normal.dot"}),
    "pivot-aggregation": frozenset({"sum"}),
}

# Software that writes itself into the author fields of the files it makes: asked "who wrote
# it", the answer is a library or an application, not a person.
TOOL_AUTHOR = re.compile(
    r"^(apache poi|python-docx|python-pptx|openpyxl|xlsxwriter|phpexcel|phpspreadsheet|"
    r"closedxml|epplus|npoi|aspose.*|docx4j|open xml sdk|libreoffice|openoffice(\.org)?|"
    r"microsoft (office|excel|word|powerpoint)( user)?|sheetjs|js-xlsx|gembox.*|syncfusion.*|"
    r"spire\..*|pandoc|unknown|author|user|administrator|admin)$",
    re.IGNORECASE,
)
PERSON_TYPES = frozenset({"metadata-creator", "metadata-lastModifiedBy"})

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

# What a conversion to OOXML (LibreOffice, for .doc, .xls and .ppt) writes itself: layout
# names, the document-default and theme fonts, table styles; and the typefaces it falls back
# to where the original names none. Asked of a converted file, they describe the converter.
CONVERSION_WRITTEN_TYPES = frozenset({"slide-layout", "font-body", "font-heading", "table-style"})
CONVERSION_FONTS = re.compile(r"^(dejavu|liberation|opensymbol|noto)\b", re.IGNORECASE)

# Names from a freshly inserted Office chart's sample data (Series 1-3 over Category 1-4,
# a pie's 1st-4th Qtr); a chart still holding that data is marked by its parser.
SAMPLE_CHART_NAME = re.compile(r"^(series|category)\s*\d+$|^[1-4](st|nd|rd|th) qtr$")

# Names Office or add-ins keep for themselves, and references that broke (a name or a
# reference to a deleted range, "Sheet1!#REF!"; an error value a formula holds on purpose,
# "=ERROR.TYPE(#REF!)", "=#REF!*3", is a formula like any other).
SYSTEM_NAME = re.compile(
    r"_xlnm\.|\bZ_[0-9A-F_]{8,}_?[._]wvu[._]|__123Graph|[\w'\]]!#REF!|^#REF!$|_FilterDatabase",
    re.IGNORECASE,
)
# A reference to another workbook by the index of its external-link part ("=[1]Rates!B2",
# "'[2]Q3 plan'!A1"): Excel shows the workbook's file name there, never the index.
EXTERNAL_INDEX = re.compile(r"(?:^|[=(,;:+\-*/&^<> '!])'?\[\d+\][^\]\s]")
# Excel's error values: what a cell shows, never a word of the question repeated.
ERROR_VALUE = re.compile(
    r"^#(NULL!|DIV/0!|VALUE!|REF!|NAME\?|NUM!|N/A|GETTING_DATA|SPILL!|CALC!|FIELD!|BLOCKED!)$",
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
    r"|automatically generated|generated with (?:very )?(?:high|medium|low) confidence"
    r"|\.(png|jpe?g|gif|emf|wmf|bmp|tiff?|svg)$",
    re.IGNORECASE,
)
ALT_TEXT_TYPES = frozenset({"image-alt-text"})

# Words that stand in for content ("goes here", "Click to add", "sample text") or dress up a
# link ("www", "http"): an answer made only of these and of the question's own words
# ("FOOTER GOES HERE" for the footer, "This is the endnote." for an endnote) tells nothing
# the question did not.
FILLER_WORDS = frozenset(
    "here goes go click add type insert enter sample text placeholder your my example dummy "
    "lorem ipsum dolor xxx tbd todo edit master style styles level second third fourth fifth "
    "http https www com org net edu gov html htm php aspx index mailto ftp".split()
)
# An answer's most words for it to be a self-naming placeholder rather than real text.
SELF_NAMED_WORDS = 8

# Names an application gives a new element ("Sheet3", "Tabelle3", "Feuil3", "Section 1",
# "Folie 2", "Table1", "PivotTable2") in the languages Office ships in; with a number the
# question states (the third sheet is "Sheet3") or 1, they are guessed without the file.
DEFAULT_NAME = re.compile(
    r"^(?:sheet|tabelle|feuil|feuille|hoja|foglio|planilha|plan|blad|ark|arkusz|list|лист"
    r"|munka|taulukko|sayfa|工作表|シート|시트|slide|folie|diapositive|diapositiva|dia"
    r"|slajd|слайд|section|abschnitt|sección|sezione|seção|sectie|раздел|chart|diagramm"
    r"|graphique|gráfico|grafico|grafiek|диаграмма|table|tableau|tabla|tabella|tabel"
    r"|таблица|pivottable|pivottabelle|tableau croisé dynamique|tabla dinámica|picture|bild"
    r"|image|imagen|immagine|рисунок|textbox|text box|rectangle|oval|group|series|reihe"
    r"|datenreihe|série|serie|category|kategorie|catégorie|categoría|column|spalte|colonne"
    r"|columna|row|zeile|ligne|fila|page|seite)\s*(\d+)$",
    re.IGNORECASE,
)
# Names with no number that only a new element carries.
DEFAULT_NAMES = frozenset(
    {
        "default section",
        "untitled section",
        "standardabschnitt",
        "section par défaut",
        "sección predeterminada",
        "sezione predefinita",
        "раздел по умолчанию",
        "powerpoint presentation",
        "powerpoint präsentation",
        "présentation powerpoint",
        "presentación de powerpoint",
        "презентация powerpoint",
        "presentation1",
        "document1",
        "book1",
        "mappe1",
        "classeur1",
    }
)
ORDINALS = {
    word: n
    for n, word in enumerate(
        "first second third fourth fifth sixth seventh eighth ninth tenth".split(), start=1
    )
}

# Built-in layout types (p:sldLayout/@type) PowerPoint gives the first slide and every new
# one, whatever the layout is called in the deck's language.
FIRST_SLIDE_LAYOUT_TYPE = "title"
NEW_SLIDE_LAYOUT_TYPE = "obj"
# "2_Title and Content": a copy of a layout keeps the built-in name behind a number.
LAYOUT_COPY = re.compile(r"^\d+_")

# Scripts whose letters give away the language (Unicode script name -> ISO 639 codes).
SCRIPT_LANGUAGES: dict[str, frozenset[str]] = {
    "CYRILLIC": frozenset("ru uk bg sr be mk kk ky mn tg".split()),
    "GREEK": frozenset({"el"}),
    "HEBREW": frozenset({"he", "iw", "yi"}),
    "ARABIC": frozenset({"ar", "fa", "ur", "ps", "ug"}),
    "HANGUL": frozenset({"ko"}),
    "HIRAGANA": frozenset({"ja"}),
    "KATAKANA": frozenset({"ja"}),
    "CJK": frozenset({"zh", "ja"}),
    "THAI": frozenset({"th"}),
    "DEVANAGARI": frozenset({"hi", "mr", "ne", "sa"}),
    "GEORGIAN": frozenset({"ka"}),
    "ARMENIAN": frozenset({"hy"}),
    "BENGALI": frozenset({"bn", "as"}),
    "TAMIL": frozenset({"ta"}),
    "ETHIOPIC": frozenset({"am", "ti"}),
    "KHMER": frozenset({"km"}),
}
# The share of a text's letters one script must hold to give its language away.
SCRIPT_SHARE = 0.6

# Equations Office inserts from its gallery (compacted: lower case, no spaces, backslashes
# or braces): the quadratic formula, Pythagoras, the area of a circle and the others.
BUILT_IN_EQUATIONS = (
    "a^2+b^2=c^2",
    "b^2-4ac",
    "a=πr^2",
    "a=pir^2",
    "e^x=1+",
    "(1+x)^n=1+",
    "(x+a)^n=",
    "sinα±sinβ",
    "sinalphapmsinbeta",
    "cosα+cosβ",
    "cosalpha+cosbeta",
    "f(x)=a_0+",
)

# "How many slides/sheets/pages…" of a file that has one: the answer a reader assumes.
COUNT_OF_ONE = re.compile(
    r"\bhow many (?:slides|sheets|worksheets|pages|sections) (?:does|do|are (?:there )?in|has"
    r"|is) (?:this|the) (?:deck|presentation|slide show|workbook|document|file)\b(?! [a-z]+ed\b)",
    re.I,
)

# The fewest elements of one kind (the target and two others) whose shared value makes
# each one's answer stated by the rest.
UNIFORM_LEAST = 3
