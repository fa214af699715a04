"""Slide animations from p:timing: each effect's class, preset, target shape, trigger and order."""

from __future__ import annotations

from dataclasses import dataclass

from lxml import etree

from extractors.ooxml.namespaces import local, p

CLASSES = {
    "entr": "entrance",
    "exit": "exit",
    "emph": "emphasis",
    "path": "motion path",
    "verb": "object action",
    "mediacall": "media",
}
# Built-in entrance/exit presets (exit effects reuse the ids with the "out" direction).
ENTRANCE = {
    1: "Appear",
    2: "Fly In",
    3: "Blinds",
    4: "Box",
    5: "Checkerboard",
    6: "Circle",
    7: "Crawl In",
    8: "Diamond",
    9: "Dissolve In",
    10: "Fade",
    11: "Flash Once",
    12: "Peek In",
    13: "Plus",
    14: "Random Bars",
    15: "Spiral In",
    16: "Split",
    17: "Stretch",
    18: "Strips",
    19: "Swivel",
    20: "Wedge",
    21: "Wheel",
    22: "Wipe",
    23: "Zoom",
}
EXIT_NAMES = {"Fly In": "Fly Out", "Crawl In": "Crawl Out", "Peek In": "Peek Out"}
EMPHASIS = {1: "Change Fill Color", 6: "Grow/Shrink", 8: "Spin", 9: "Transparency"}
TRIGGERS = {
    "clickEffect": "on click",
    "withEffect": "with previous",
    "afterEffect": "after previous",
}


@dataclass
class Effect:
    order: int
    effect_class: str
    effect: str
    preset: int
    trigger: str
    shape_id: str
    paragraphs: str = ""
    sequence: str = "main"
    trigger_shape: str | None = None


def effect_name(preset_class: str, preset: int) -> str:
    if preset_class == "entr" and preset in ENTRANCE:
        return ENTRANCE[preset]
    if preset_class == "exit" and preset in ENTRANCE:
        return EXIT_NAMES.get(ENTRANCE[preset], ENTRANCE[preset])
    if preset_class == "emph" and preset in EMPHASIS:
        return EMPHASIS[preset]
    if preset_class == "path":
        return "custom path" if preset == 0 else f"motion path preset {preset}"
    return f"preset {preset}"


def animations(timing: etree._Element | None) -> list[Effect]:
    """Effects of the main sequence then of interactive (shape-triggered) sequences, in order."""
    if timing is None:
        return []
    out: list[Effect] = []
    for seq in timing.iter(p("seq")):
        node = seq.find(p("cTn"))
        if node is None:
            continue
        kind = node.get("nodeType", "")
        trigger_shape = None
        if kind == "interactiveSeq":
            target = node.find(f"{p('stCondLst')}/{p('cond')}/{p('tgtEl')}/{p('spTgt')}")
            trigger_shape = target.get("spid") if target is not None else None
        elif kind != "mainSeq":
            continue
        for effect in node.iter(p("cTn")):
            preset_class = effect.get("presetClass")
            if preset_class is None:
                continue
            target = next(effect.iter(p("spTgt")), None)
            if target is None:
                continue
            preset = int(effect.get("presetID", "0") or 0)
            out.append(
                Effect(
                    order=len(out) + 1,
                    effect_class=CLASSES.get(preset_class, preset_class),
                    effect=effect_name(preset_class, preset),
                    preset=preset,
                    trigger=TRIGGERS.get(effect.get("nodeType", ""), "on click"),
                    shape_id=target.get("spid", ""),
                    paragraphs=_paragraph_range(target),
                    sequence="main" if trigger_shape is None else "interactive",
                    trigger_shape=trigger_shape,
                )
            )
    return out


def _paragraph_range(target: etree._Element) -> str:
    for node in target.iter():
        if isinstance(node.tag, str) and local(node) == "pRg":
            start, end = int(node.get("st", "0")) + 1, int(node.get("end", "0")) + 1
            return f"paragraph {start}" if start == end else f"paragraphs {start}–{end}"
    return ""
