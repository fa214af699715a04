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

NAMED = {
    "black": (0, 0, 0),
    "white": (255, 255, 255),
    "red": (255, 0, 0),
    "dark red": (192, 0, 0),
    "light red": (255, 199, 206),
    "orange": (255, 192, 0),
    "light orange": (252, 228, 214),
    "yellow": (255, 255, 0),
    "light yellow": (255, 242, 204),
    "green": (0, 176, 80),
    "dark green": (0, 97, 0),
    "light green": (198, 239, 206),
    "blue": (0, 112, 192),
    "dark blue": (31, 73, 125),
    "light blue": (221, 235, 247),
    "purple": (112, 48, 160),
    "light purple": (228, 223, 236),
    "grey": (128, 128, 128),
    "light grey": (217, 217, 217),
    "dark grey": (64, 64, 64),
    "pink": (255, 153, 204),
    "teal": (0, 128, 128),
    "brown": (153, 102, 51),
}


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
    """The nearest plain colour name for 'RRGGBB'."""
    rgb = tuple(int(hex_rgb[i : i + 2], 16) for i in (0, 2, 4))
    return min(NAMED, key=lambda n: sum((a - b) ** 2 for a, b in zip(NAMED[n], rgb, strict=True)))


def describe(hex_rgb: str) -> str:
    """'yellow (#FFFF00)'."""
    return f"{name(hex_rgb)} (#{hex_rgb})"
