"""Resolve spreadsheet colours (rgb, indexed palette, theme + tint) to hex and a plain name."""

from __future__ import annotations

import colorsys

from lxml import etree
from openpyxl.styles.colors import COLOR_INDEX

# Excel's theme colour index order swaps the first two pairs of the scheme.
THEME_ORDER = (
    "lt1",
    "dk1",
    "lt2",
    "dk2",
    "accent1",
    "accent2",
    "accent3",
    "accent4",
    "accent5",
    "accent6",
    "hlink",
    "folHlink",
)

HUES = (
    (15, "red"),
    (40, "orange"),
    (70, "yellow"),
    (165, "green"),
    (195, "teal"),
    (255, "blue"),
    (290, "purple"),
    (345, "pink"),
    (360, "red"),
)


def theme_colors(theme: etree._Element | None) -> list[str]:
    """Hex colours of a theme part's colour scheme in Excel's theme index order."""
    if theme is None:
        return []
    scheme = next(theme.iter("{*}clrScheme"), None)
    if scheme is None:
        return []
    found: dict[str, str] = {}
    for slot in scheme:
        name = etree.QName(slot).localname
        for colour in slot:
            found[name] = (colour.get("lastClr") or colour.get("val") or "000000").upper()
    return [found.get(name, "000000") for name in THEME_ORDER]


def _tint(hex_rgb: str, tint: float) -> str:
    red, green, blue = (int(hex_rgb[i : i + 2], 16) / 255 for i in (0, 2, 4))
    hue, light, sat = colorsys.rgb_to_hls(red, green, blue)
    light = light * (1 + tint) if tint < 0 else light * (1 - tint) + tint
    red, green, blue = colorsys.hls_to_rgb(hue, min(1.0, max(0.0, light)), sat)
    return "".join(f"{round(v * 255):02X}" for v in (red, green, blue))


def resolve(element: etree._Element | None, theme: list[str]) -> str | None:
    """A colour element (rgb / indexed / theme with tint) as 'RRGGBB', or None for auto."""
    if element is None or element.get("auto") in ("1", "true"):
        return None
    hex_rgb = None
    if element.get("rgb"):
        hex_rgb = element.get("rgb", "")[-6:].upper()
    elif element.get("indexed") is not None:
        index = int(element.get("indexed", "0"))
        if index < len(COLOR_INDEX):
            hex_rgb = COLOR_INDEX[index][-6:]
    elif element.get("theme") is not None:
        index = int(element.get("theme", "0"))
        if index < len(theme):
            hex_rgb = theme[index]
    if hex_rgb is None or len(hex_rgb) != 6:
        return None
    tint = float(element.get("tint", "0") or 0)
    return _tint(hex_rgb, tint) if tint else hex_rgb


def name(hex_rgb: str) -> str:
    """A plain colour name for 'RRGGBB' from its hue, lightness and saturation."""
    red, green, blue = (int(hex_rgb[i : i + 2], 16) / 255 for i in (0, 2, 4))
    hue, light, sat = colorsys.rgb_to_hls(red, green, blue)
    if sat < 0.15 or light < 0.08 or light > 0.95:
        if light < 0.15:
            return "black"
        if light > 0.93:
            return "white"
        return "light grey" if light > 0.7 else "dark grey" if light < 0.35 else "grey"
    degrees = hue * 360
    base = next(word for limit, word in HUES if degrees < limit or limit == 360)
    if light > 0.75:
        return f"light {base}"
    if light < 0.3:
        return f"dark {base}"
    return base


def describe(hex_rgb: str) -> str:
    """'yellow (#FFFF00)'."""
    return f"{name(hex_rgb)} (#{hex_rgb})"
