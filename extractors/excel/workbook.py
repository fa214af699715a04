"""Workbook-level parts of a spreadsheet package: sheets, defined names, strings, styles.

Namespace-agnostic (`{*}` paths) so transitional and strict OOXML read the same way.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TypedDict, TypeVar

from lxml import etree

from extractors.excel import colors as excel_colors
from extractors.ooxml.numfmt import format_code
from fidelity.core.xmlsafe import Package, UnsafePackage

STATES = {"visible": "visible", "hidden": "hidden", "veryHidden": "very hidden"}


def rid(element: etree._Element) -> str | None:
    """The r:id attribute of an element, whatever the relationships namespace."""
    for key, value in element.attrib.items():
        if key.endswith("}id"):
            return value
    return None


def local(element: etree._Element) -> str:
    """The tag without its namespace (sliced: QName costs an object per call on every cell);
    '' for a comment, processing instruction or entity, whose tag is no name (QName of it
    raised ValueError, so one comment among a rule's or an anchor's children lost the sheet)."""
    tag = element.tag
    return tag[tag.rfind("}") + 1 :] if isinstance(tag, str) else ""


def is_true(value: str | None, default: bool = False) -> bool:
    return default if value is None else value in ("1", "true", "on")


@dataclass
class SheetInfo:
    name: str
    index: int
    state: str
    part: str | None
    kind: str


@dataclass
class DefinedName:
    name: str
    value: str
    scope: str | None
    hidden: bool
    comment: str | None


T = TypeVar("T")
D = TypeVar("D")


class FontStyle(TypedDict, total=False):
    """What a font of the styles part gives a cell format (nothing for a missing font)."""

    bold: bool
    italic: bool
    underline: bool
    strike: bool
    font_color: str | None


@dataclass
class CellStyle:
    """What a style index means for display and for meaningful formatting cues."""

    number_format: str = "General"
    bold: bool = False
    italic: bool = False
    underline: bool = False
    strike: bool = False
    font_color: str | None = None
    fill: str | None = None
    border_top: str | None = None
    border_bottom: str | None = None

    def cues(self, usual_font: str | None = None) -> list[str]:
        """Formatting that carries meaning; the sheet's usual font colour is not repeated."""
        out = []
        if self.fill:
            out.append(f"fill {excel_colors.describe(self.fill)}")
        if self.font_color and self.font_color not in ("000000", usual_font):
            out.append(f"font {excel_colors.describe(self.font_color)}")
        if self.underline:
            out.append("underlined")
        if self.strike:
            out.append("strikethrough")
        return out


@dataclass
class Styles:
    """A workbook's cell formats (cellXfs) and differential formats (dxfs), each worked out
    from its element when first asked for: workbooks declare far more than their cells
    and rules use (a thousand cell formats for a few dozen in use)."""

    xfs: list[etree._Element] = field(default_factory=list)
    dxfs: list[etree._Element] = field(default_factory=list)
    theme: list[str] = field(default_factory=list)
    custom: dict[int, str] = field(default_factory=dict)  # numFmtId -> format code
    fonts: list[FontStyle] = field(default_factory=list)
    fills: list[str | None] = field(default_factory=list)
    borders: list[tuple[str | None, str | None]] = field(default_factory=list)
    cells: dict[int, CellStyle] = field(default_factory=dict)  # by index, as worked out
    differentials: dict[int, dict[str, str]] = field(default_factory=dict)

    def of(self, index: int) -> CellStyle:
        """The cell format of a style index (an empty one when there is none; do not modify)."""
        style = self.cells.get(index)
        if style is None:
            made = 0 <= index < len(self.xfs)
            style = self.cells[index] = self._cell(self.xfs[index]) if made else CellStyle()
        return style

    def differential(self, index: str | None) -> dict[str, str]:
        """The differential format of a dxfId attribute ({} when there is none)."""
        if index is None or not index.isdigit() or int(index) >= len(self.dxfs):
            return {}
        number = int(index)
        entry = self.differentials.get(number)
        if entry is None:
            entry = self.differentials[number] = _differential(self.dxfs[number], self.theme)
        return entry

    def _cell(self, xf: etree._Element) -> CellStyle:
        try:
            num_fmt = int(xf.get("numFmtId", "0"))
        except ValueError:
            num_fmt = 0
        font = _pick(self.fonts, xf.get("fontId"), FontStyle())
        top, bottom = _pick(self.borders, xf.get("borderId"), (None, None))
        return CellStyle(
            number_format=format_code(num_fmt, self.custom),
            fill=_pick(self.fills, xf.get("fillId"), None),
            border_top=top,
            border_bottom=bottom,
            **font,
        )


def _pick(items: list[T], index: str | None, default: D) -> T | D:
    """`items[index]` of an index attribute, `default` when it is unreadable or out of range."""
    try:
        return items[int(index or 0)]
    except (ValueError, IndexError):
        return default


@dataclass
class Workbook:
    package: Package
    part: str
    sheets: list[SheetInfo]
    names: list[DefinedName]
    strings: list[str]
    styles: Styles
    date1904: bool
    theme: list[str]
    rels: dict[str, tuple[str, str, str]]


def _office_document(package: Package) -> str:
    for kind, target, _ in package.rels("").values():
        if kind == "officeDocument":
            return Package.resolve("", target)
    if package.has("xl/workbook.xml"):
        return "xl/workbook.xml"
    raise UnsafePackage("no workbook part in this package")


def _rich_text(si: etree._Element) -> str:
    """Text of a shared string or inline string, without phonetic runs."""
    if len(si) == 1:  # plain text, the usual case: one t element without children
        only = si[0]
        tag = only.tag  # told by its ending: no local name sliced out
        if tag.__class__ is str and (tag[-2:] == "}t" or tag == "t") and not len(only):
            return only.text or ""
    parts = []
    for node in si.iter("{*}t"):
        parent = node.getparent()
        if parent is not None and local(parent) == "rPh":
            continue
        parts.append(node.text or "")
    return "".join(parts)


WHOLE_PART_BYTES = 8 * 1024 * 1024  # parts up to this size are parsed in one go
_WHOLE_PARSER = etree.XMLParser(
    resolve_entities=False, no_network=True, load_dtd=False, huge_tree=True
)


def iterparse_part(package: Package, name: str, tags: tuple[str, ...]) -> Iterator[etree._Element]:
    """The elements `tags` ("{*}row"…) of a part, in document order, safely.

    A DTD or entity declaration is refused. A part of up to WHOLE_PART_BYTES is read
    and parsed in one go (its tree stays small, and one parse costs far less than a
    stream of zip reads and parser events); a larger one is streamed from the zip in
    bounded memory, each yielded element cleared (with its earlier siblings) once the
    caller moves on. The tags never nest in a worksheet or shared-strings part, so
    both ways yield the same elements in the same order.
    """
    info = package.zip.getinfo(name)
    if info.file_size > 4 * 1024 * 1024 * 1024:
        raise UnsafePackage(f"{name} is {info.file_size} bytes, over the limit")
    if info.file_size <= WHOLE_PART_BYTES:
        with package.zip.open(name) as handle:
            data = handle.read()
        _refuse_declarations(name, data[:65536])
        yield from etree.fromstring(data, parser=_WHOLE_PARSER).iter(tags)
        return
    with package.zip.open(name) as handle:
        _refuse_declarations(name, handle.read(65536))
    with package.zip.open(name) as handle:
        events = etree.iterparse(
            handle,
            events=("end",),
            tag=tags,
            resolve_entities=False,
            no_network=True,
            load_dtd=False,
            huge_tree=True,
        )
        for _, element in events:
            yield element
            element.clear(keep_tail=False)
            parent = element.getparent()
            while parent is not None and element.getprevious() is not None:
                del parent[0]


def _refuse_declarations(name: str, head: bytes) -> None:
    """Raise UnsafePackage when the start of a part declares a DTD or entities."""
    if b"<!DOCTYPE" in head or b"<!ENTITY" in head:
        raise UnsafePackage(f"{name} declares a DTD or entities")


def _shared_strings(package: Package, part: str | None) -> list[str]:
    if part is None or not package.has(part):
        return []
    return [_rich_text(si) for si in iterparse_part(package, part, ("{*}si",))]


def _color_of(parent: etree._Element | None, theme: list[str]) -> str | None:
    if parent is None:
        return None
    return excel_colors.resolve(parent.find("{*}color"), theme)


def _fill(fill: etree._Element, theme: list[str]) -> str | None:
    pattern = fill.find("{*}patternFill")
    if pattern is not None:
        kind = pattern.get("patternType", "none")
        if kind == "none":
            return None
        colour = excel_colors.resolve(pattern.find("{*}fgColor"), theme)
        if kind != "solid" and colour is None:
            colour = excel_colors.resolve(pattern.find("{*}bgColor"), theme)
        if colour in (None, "FFFFFF") and kind == "solid":
            return None
        return colour
    gradient = fill.find("{*}gradientFill")
    if gradient is not None:
        stops = [excel_colors.resolve(s.find("{*}color"), theme) for s in gradient]
        return next((s for s in stops if s), None)
    return None


def _border(border: etree._Element, side: str) -> str | None:
    element = border.find(f"{{*}}{side}")
    if element is None:
        return None
    return element.get("style") or None


def _font(font: etree._Element, theme: list[str]) -> FontStyle:
    def flag(tag: str) -> bool:
        element = font.find(f"{{*}}{tag}")
        return element is not None and is_true(element.get("val"), True)

    underline = font.find("{*}u")
    return {
        "bold": flag("b"),
        "italic": flag("i"),
        "underline": underline is not None and underline.get("val", "single") != "none",
        "strike": flag("strike"),
        "font_color": _color_of(font, theme),
    }


def _styles(package: Package, part: str | None, theme: list[str]) -> Styles:
    root = package.xml(part) if part else None
    if root is None:
        return Styles()
    custom = {}
    for fmt in root.iterfind("{*}numFmts/{*}numFmt"):
        try:
            custom[int(fmt.get("numFmtId", "-1"))] = fmt.get("formatCode", "General")
        except ValueError:
            continue
    fonts = [_font(f, theme) for f in root.iterfind("{*}fonts/{*}font")]
    fills = [_fill(f, theme) for f in root.iterfind("{*}fills/{*}fill")]
    borders = [
        (_border(b, "top"), _border(b, "bottom")) for b in root.iterfind("{*}borders/{*}border")
    ]
    return Styles(
        xfs=root.findall("{*}cellXfs/{*}xf"),
        dxfs=root.findall("{*}dxfs/{*}dxf"),
        theme=theme,
        custom=custom,
        fonts=fonts,
        fills=fills,
        borders=borders,
    )


def _differential(dxf: etree._Element, theme: list[str]) -> dict[str, str]:
    """The fill and font cues of a differential format (a conditional format's look)."""
    entry: dict[str, str] = {}
    fill = dxf.find("{*}fill")
    if fill is not None:
        pattern = fill.find("{*}patternFill")
        colour = None
        if pattern is not None:
            colour = excel_colors.resolve(pattern.find("{*}bgColor"), theme)
            colour = colour or excel_colors.resolve(pattern.find("{*}fgColor"), theme)
        if colour:
            entry["fill"] = excel_colors.describe(colour)
    font = dxf.find("{*}font")
    if font is not None:
        details = _font(font, theme)
        if details["font_color"]:
            entry["font"] = excel_colors.describe(str(details["font_color"]))
        if details["bold"]:
            entry["bold"] = "bold"
    return entry


def open_workbook(package: Package) -> Workbook:
    part = _office_document(package)
    root = package.xml(part)
    if root is None:
        raise UnsafePackage(f"{part} is missing")
    rels = package.rels(part)
    by_type: dict[str, str] = {}
    for kind, target, mode in rels.values():
        if mode != "External":
            by_type.setdefault(kind, Package.resolve(part, target))
    theme = excel_colors.theme_colors(
        package.xml(by_type["theme"]) if by_type.get("theme") in package.names else None
    )
    sheets = []
    for index, sheet in enumerate(root.iterfind("{*}sheets/{*}sheet"), start=1):
        rel = rels.get(rid(sheet) or "")
        sheet_part = Package.resolve(part, rel[1]) if rel else None
        sheets.append(
            SheetInfo(
                name=sheet.get("name", f"Sheet{index}"),
                index=index,
                state=STATES.get(sheet.get("state", "visible"), "visible"),
                part=sheet_part if sheet_part in package.names else None,
                kind=rel[0] if rel else "worksheet",
            )
        )
    names = []
    for defined in root.iterfind("{*}definedNames/{*}definedName"):
        scope = defined.get("localSheetId")
        scope_name = None
        if scope is not None and scope.isdigit() and int(scope) < len(sheets):
            scope_name = sheets[int(scope)].name
        names.append(
            DefinedName(
                name=defined.get("name", ""),
                value=(defined.text or "").strip(),
                scope=scope_name,
                hidden=is_true(defined.get("hidden")),
                comment=defined.get("comment"),
            )
        )
    properties = root.find("{*}workbookPr")
    date1904 = properties is not None and is_true(properties.get("date1904"))
    return Workbook(
        package=package,
        part=part,
        sheets=sheets,
        names=names,
        strings=_shared_strings(package, by_type.get("sharedStrings")),
        styles=_styles(package, by_type.get("styles"), theme),
        date1904=date1904,
        theme=theme,
        rels=rels,
    )
