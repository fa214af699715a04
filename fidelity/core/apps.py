"""The applications fidelity reads, in one table: for each, its stage modules (import paths,
resolved by the stage that needs them, so the ground imports no stage), its formats, size unit
and taxonomy. Adding an application touches this table and that application's own modules."""

from __future__ import annotations

from dataclasses import dataclass, field

_WML = "application/vnd.openxmlformats-officedocument.wordprocessingml"
_SML = "application/vnd.openxmlformats-officedocument.spreadsheetml"
_PML = "application/vnd.openxmlformats-officedocument.presentationml"
_ODF = "application/vnd.oasis.opendocument"


@dataclass(frozen=True)
class Application:
    """One Office application: where its code lives and what its files are."""

    name: str
    extractor: str  # module with EXTRACTOR: an extractors.base.Extractor
    probe: str  # ingest module with fill(package, probe, values)
    rules: str  # generators module with RULES (artifact kind -> rule)
    plain_format: str  # the format its extractor reads; other flavours are normalised to it
    ooxml_types: dict[str, str]  # main part content type -> format
    odf_types: dict[str, str]  # ODF mimetype -> format
    ole_streams: dict[str, str]  # OLE2 stream that marks a legacy binary file -> format
    size_unit: str
    size_buckets: tuple[int, int]  # upper bounds of Small and Medium (Long is above)
    # (probe feature that counts the units, where it comes from); None: pages of a rendering
    size_count: tuple[str, str] | None
    pdf_options: tuple[str, ...]  # LibreOffice PDF export options that show what the file holds
    taxonomy: tuple[str, ...]
    other_formats: tuple[str, ...] = ()  # formats sniffed by signature (RTF)
    ranked: bool = False  # its kept files are ranked by the pairwise judge
    slide_images: bool = False  # its locators name slides that can be rendered as pictures
    yes_no_facts: bool = True  # its facts prompt may ask yes/no questions
    display: str = ""  # its name as people write it ("PowerPoint"); empty: the name capitalised
    formats: frozenset[str] = field(init=False)

    def __post_init__(self) -> None:
        every = (
            *self.ooxml_types.values(),
            *self.odf_types.values(),
            *self.ole_streams.values(),
            *self.other_formats,
        )
        object.__setattr__(self, "formats", frozenset(every))
        object.__setattr__(self, "display", self.display or self.name.capitalize())


APPLICATIONS: dict[str, Application] = {
    app.name: app
    for app in (
        Application(
            name="word",
            extractor="extractors.word.extractor",
            probe="ingest.probe_word",
            rules="generators.rules.word",
            plain_format="docx",
            ooxml_types={
                f"{_WML}.document.main+xml": "docx",
                f"{_WML}.template.main+xml": "dotx",
                "application/vnd.ms-word.document.macroEnabled.main+xml": "docm",
                "application/vnd.ms-word.template.macroEnabledTemplate.main+xml": "dotm",
            },
            odf_types={f"{_ODF}.text": "odt", f"{_ODF}.text-template": "ott"},
            ole_streams={"WordDocument": "doc"},
            other_formats=("rtf",),
            size_unit="pages",
            size_buckets=(10, 30),
            size_count=None,
            pdf_options=(),
            ranked=True,
            yes_no_facts=False,  # its facts prompt asks for values, never yes or no
            taxonomy=(
                "Text",
                "Table",
                "Font",
                "Layout",
                "Hyperlink",
                "Metadata",
                "Footnote",
                "Highlight",
                "Footer",
                "Comment",
                "Header",
                "Equation",
                "Strikeout",
                "Textbox",
                "Video",
                "Image",
                "Chart",
            ),
        ),
        Application(
            name="excel",
            extractor="extractors.excel.extractor",
            probe="ingest.probe_excel",
            rules="generators.rules.excel",
            plain_format="xlsx",
            ooxml_types={
                f"{_SML}.sheet.main+xml": "xlsx",
                f"{_SML}.template.main+xml": "xltx",
                "application/vnd.ms-excel.sheet.macroEnabled.main+xml": "xlsm",
                "application/vnd.ms-excel.template.macroEnabled.main+xml": "xltm",
            },
            odf_types={f"{_ODF}.spreadsheet": "ods", f"{_ODF}.spreadsheet-template": "ots"},
            ole_streams={"Workbook": "xls", "Book": "xls"},
            size_unit="sheets",
            size_buckets=(3, 8),
            size_count=("sheets", "workbook.xml"),
            pdf_options=("SinglePageSheets=true",),  # a chart is never split across pages
            taxonomy=(
                "TLR",
                "Table",
                "Unstructured",
                "Formula",
                "Sheet",
                "Chart",
                "Image",
                "PivotTable",
                "Shape",
                "Other",
            ),
        ),
        Application(
            name="powerpoint",
            display="PowerPoint",
            extractor="extractors.powerpoint.extractor",
            probe="ingest.probe_powerpoint",
            rules="generators.rules.powerpoint",
            plain_format="pptx",
            ooxml_types={
                f"{_PML}.presentation.main+xml": "pptx",
                f"{_PML}.template.main+xml": "potx",
                f"{_PML}.slideshow.main+xml": "ppsx",
                "application/vnd.ms-powerpoint.presentation.macroEnabled.main+xml": "pptm",
                "application/vnd.ms-powerpoint.template.macroEnabled.main+xml": "potm",
                "application/vnd.ms-powerpoint.slideshow.macroEnabled.main+xml": "ppsm",
            },
            odf_types={
                f"{_ODF}.presentation": "odp",
                f"{_ODF}.presentation-template": "otp",
            },
            ole_streams={"PowerPoint Document": "ppt"},
            size_unit="slides",
            size_buckets=(10, 30),
            size_count=("slides", "presentation.xml"),
            pdf_options=("ExportHiddenSlides=true",),
            slide_images=True,
            taxonomy=(
                "Slide Text",
                "Position/Association/Grouping",
                "Tables/Values",
                "Image",
                "Chart",
                "Text Highlight",
                "Shape/Text",
                "Equation/Symbol",
                "Hyperlink",
                "Header/Footer/SlideNum/DateTime",
                "Slide Note",
                "Language",
                "Metadata",
                "Shapes/Type & Color",
                "Ink",
                "Tables/Cell color coding",
                "SmartArt/Type & Text",
                "SmartArt/Semantics",
                "Slide Properties - Hidden",
                "Animations",
                "Section",
            ),
        ),
    )
}

APP_NAMES: tuple[str, ...] = tuple(APPLICATIONS)
# The paper's categories per application, in the paper's order.
TAXONOMY: dict[str, tuple[str, ...]] = {name: app.taxonomy for name, app in APPLICATIONS.items()}


def application_of_format(fmt: str) -> str:
    """The application whose files come in format `fmt` (docx, xls, rtf…)."""
    return next(name for name, app in APPLICATIONS.items() if fmt in app.formats)
