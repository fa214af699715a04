"""DrawingML colours resolved to hex: theme scheme through the master's colour map,
preset and system colours, and the luminance/tint/shade modifiers; plus a plain name."""

from __future__ import annotations

import colorsys
from dataclasses import dataclass

from lxml import etree

from extractors.ooxml.namespaces import a, local

DEFAULT_MAP = {"bg1": "lt1", "tx1": "dk1", "bg2": "lt2", "tx2": "dk2"}

PRESET = {
    "black": "000000",
    "white": "FFFFFF",
    "red": "FF0000",
    "green": "008000",
    "lime": "00FF00",
    "blue": "0000FF",
    "yellow": "FFFF00",
    "cyan": "00FFFF",
    "magenta": "FF00FF",
    "darkBlue": "00008B",
    "darkRed": "8B0000",
    "darkGreen": "006400",
    "darkGray": "A9A9A9",
    "gray": "808080",
    "lightGray": "D3D3D3",
    "orange": "FFA500",
    "purple": "800080",
    "navy": "000080",
    "teal": "008080",
    "maroon": "800000",
    "olive": "808000",
    "silver": "C0C0C0",
}

# Hue sectors (upper bound in degrees, name) for saturated colours.
HUES = (
    (15, "red"),
    (40, "orange"),
    (52, "gold"),
    (70, "yellow"),
    (165, "green"),
    (195, "teal"),
    (255, "blue"),
    (290, "purple"),
    (345, "magenta"),
    (360, "red"),
)


@dataclass(frozen=True)
class Color:
    """A resolved colour: 'RRGGBB' and where it came from (a theme slot, when it did)."""

    hex: str
    theme: str | None = None

    @property
    def name(self) -> str:
        return color_name(self.hex)

    def describe(self) -> str:
        """'blue #4472C4 (theme accent1)'."""
        source = f" (theme {self.theme})" if self.theme else ""
        return f"{self.name} #{self.hex}{source}"


class Palette:
    """A theme's colour scheme seen through a master's (or slide's) colour map."""

    def __init__(self, theme: etree._Element | None, color_map: dict[str, str]) -> None:
        self.scheme: dict[str, str] = {}
        scheme = None if theme is None else next(theme.iter(a("clrScheme")), None)
        if scheme is not None:
            for slot in scheme:
                for color in slot:
                    value = color.get("lastClr") or color.get("val") or ""
                    if local(color) in ("srgbClr", "sysClr") and len(value) == 6:
                        self.scheme[local(slot)] = value.upper()
        self.color_map = {**DEFAULT_MAP, **color_map}

    def with_map(self, override: dict[str, str]) -> Palette:
        clone = Palette(None, {})
        clone.scheme = self.scheme
        clone.color_map = {**self.color_map, **override}
        return clone

    def slot(self, name: str) -> tuple[str, str] | None:
        """(hex, slot name) for a scheme colour name such as tx1 or accent2."""
        slot = self.color_map.get(name, name)
        value = self.scheme.get(slot)
        return (value, slot) if value else None

    def resolve(
        self, element: etree._Element | None, placeholder: Color | None = None
    ) -> Color | None:
        """A colour choice element (a:srgbClr, a:schemeClr…) with its modifiers applied."""
        if element is None:
            return None
        kind = local(element)
        value = element.get("val", "")
        theme = None
        if kind == "srgbClr":
            base = value.upper()
        elif kind == "sysClr":
            base = (element.get("lastClr") or ("FFFFFF" if value == "window" else "000000")).upper()
        elif kind == "prstClr":
            base = PRESET.get(value, "")
        elif kind == "scrgbClr":
            base = "".join(
                f"{round(min(100000, int(element.get(c, '0'))) / 100000 * 255):02X}" for c in "rgb"
            )
        elif kind == "schemeClr" and value == "phClr":
            if placeholder is None:
                return None
            base, theme = placeholder.hex, placeholder.theme
        elif kind == "schemeClr":
            found = self.slot(value)
            if found is None:
                return None
            base, theme = found
        else:
            return None
        if len(base) != 6:
            return None
        return Color(_modify(base, element), theme)

    def fill(self, parent: etree._Element | None) -> Color | None | bool | str:
        """A fill under `parent`: its colour, False for an explicit no-fill, None when unset.

        A gradient whose stops differ in colour is no one colour: it is described as
        'gradient (blue to white)', a string, never answered as its first stop.
        """
        if parent is None:
            return None
        for child in parent:
            kind = local(child)
            if kind == "noFill":
                return False
            if kind == "solidFill":
                return self.resolve(next(iter(child), None)) or None
            if kind == "gradFill":
                stops = [
                    color
                    for stop in child.iterfind(f"{a('gsLst')}/{a('gs')}")
                    if (color := self.resolve(next(iter(stop), None))) is not None
                ]
                names = list(dict.fromkeys(color.name for color in stops))
                if len(names) > 1:
                    return f"gradient ({' to '.join(names)})"
                return stops[0] if stops else None
        return None


def _modify(base: str, element: etree._Element) -> str:
    red, green, blue = (int(base[i : i + 2], 16) / 255 for i in (0, 2, 4))
    for modifier in element:
        kind = local(modifier)
        amount = int(modifier.get("val", "100000") or 0) / 100000
        if kind in ("lumMod", "lumOff", "satMod"):
            hue, light, sat = colorsys.rgb_to_hls(red, green, blue)
            if kind == "lumMod":
                light *= amount
            elif kind == "lumOff":
                light += amount
            else:
                sat *= amount
            red, green, blue = colorsys.hls_to_rgb(hue, _clip(light), _clip(sat))
        elif kind == "tint":
            red, green, blue = (c * amount + (1 - amount) for c in (red, green, blue))
        elif kind == "shade":
            red, green, blue = (c * amount for c in (red, green, blue))
    return "".join(f"{round(_clip(c) * 255):02X}" for c in (red, green, blue))


def _clip(value: float) -> float:
    return min(1.0, max(0.0, value))


def color_name(hex_rgb: str) -> str:
    """A plain name for 'RRGGBB': greys by lightness, others by hue with dark/light shades."""
    red, green, blue = (int(hex_rgb[i : i + 2], 16) / 255 for i in (0, 2, 4))
    hue, light, sat = colorsys.rgb_to_hls(red, green, blue)
    if max(red, green, blue) - min(red, green, blue) < 0.08 or sat < 0.12:
        for limit, name in (
            (0.1, "black"),
            (0.35, "dark grey"),
            (0.65, "grey"),
            (0.97, "light grey"),
        ):
            if light < limit:
                return name
        return "white"
    degrees = hue * 360
    base = next(name for limit, name in HUES if degrees < limit)
    if base == "orange" and light < 0.4:
        return "brown"
    if base == "orange" and sat < 0.5 and light < 0.75:
        return "tan"
    if base == "teal" and light >= 0.45:
        base = "cyan"
    if light <= 0.3 or (base == "red" and light < 0.4):
        return f"dark {base}"
    if light >= 0.75:
        return "light yellow" if base == "gold" else f"light {base}"
    return base


def color_map(element: etree._Element | None) -> dict[str, str]:
    """The attributes of a p:clrMap or a:overrideClrMapping element."""
    return dict(element.attrib) if element is not None else {}
