"""SmartArt from its diagram data part: layout type, node text, and the structure the
connections encode (hierarchy, sequence, cycle or grouped list)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lxml import etree

from extractors.ooxml.namespaces import DGM, a, one_line
from fidelity.core.office_names import LAYOUT_NAMES

NODE_TYPES = {"doc", "node", "asst"}

KIND_HINTS = (
    ("orgChart", "hierarchy"),
    ("hierarchy", "hierarchy"),
    ("cycle", "cycle"),
    ("process", "process"),
    ("Process", "process"),
    ("chevron", "process"),
    ("arrow", "process"),
    ("pyramid", "pyramid"),
)


@dataclass
class Node:
    key: str
    text: str
    children: list[Node] = field(default_factory=list)
    assistant: bool = False


def _dgm(name: str) -> str:
    return f"{{{DGM}}}{name}"


def _point_text(point: etree._Element) -> str:
    body = point.find(_dgm("t"))
    if body is None:
        return ""
    lines = ["".join(t.text or "" for t in p.iter(a("t"))) for p in body.iter(a("p"))]
    return one_line(" ".join(line for line in lines if line.strip()))


def parse_smartart(data: etree._Element) -> dict[str, Any]:
    """Facts of a diagram data model: layout, category, kind and the node tree."""
    points: dict[str, tuple[str, str]] = {}
    layout_id, category = "", ""
    for point in data.iter(_dgm("pt")):
        kind = point.get("type", "node")
        points[point.get("modelId", "")] = (kind, _point_text(point))
        if kind == "doc":
            props = point.find(_dgm("prSet"))
            if props is not None:
                layout_id = props.get("loTypeId", "")
                category = props.get("loCatId", "")
    links: dict[str, list[tuple[int, str]]] = {}
    for cxn in data.iter(_dgm("cxn")):
        if cxn.get("type", "parOf") != "parOf":
            continue
        source, dest = cxn.get("srcId", ""), cxn.get("destId", "")
        if points.get(source, ("",))[0] in NODE_TYPES and points.get(dest, ("",))[0] in NODE_TYPES:
            order = int(cxn.get("srcOrd", "0") or 0)
            links.setdefault(source, []).append((order, dest))
    root_key = next((k for k, (kind, _) in points.items() if kind == "doc"), "")
    roots = _build(root_key, points, links, set())
    short = layout_id.rsplit("/", 1)[-1].split("#", 1)[0]
    kind = category if category in ("hierarchy", "process", "cycle", "pyramid") else ""
    if not kind:
        kind = next((k for hint, k in KIND_HINTS if hint in short), "list")
    return {
        "layout_id": layout_id,
        "layout": short,
        "layout_name": LAYOUT_NAMES.get(short, short or "unknown layout"),
        "category": category or kind,
        "structure": kind,
        "tree": [_as_dict(node) for node in roots],
    }


def _build(
    key: str,
    points: dict[str, tuple[str, str]],
    links: dict[str, list[tuple[int, str]]],
    seen: set[str],
) -> list[Node]:
    """Children of `key` with text; empty nodes are skipped and their children lifted."""
    out: list[Node] = []
    for _, child in sorted(links.get(key, [])):
        if child in seen:
            continue
        seen.add(child)
        kind, text = points[child]
        below = _build(child, points, links, seen)
        if text:
            out.append(Node(child, text, below, assistant=kind == "asst"))
        else:
            out.extend(below)
    return out


def _as_dict(node: Node) -> dict[str, Any]:
    return {
        "text": node.text,
        "assistant": node.assistant,
        "children": [_as_dict(c) for c in node.children],
    }


def items(tree: list[dict[str, Any]], depth: int = 0) -> list[tuple[int, str]]:
    """(depth, text) of every node, depth first."""
    out: list[tuple[int, str]] = []
    for node in tree:
        out.append((depth, node["text"]))
        out.extend(items(node["children"], depth + 1))
    return out


def relations(facts: dict[str, Any]) -> list[dict[str, str]]:
    """The relations the diagram encodes, each a dict with a 'line' to render."""
    tree = facts["tree"]
    structure = facts["structure"]
    out: list[dict[str, str]] = []
    if structure in ("process", "cycle", "pyramid") and len(tree) > 1:
        total = len(tree)
        noun = "level" if structure == "pyramid" else "step"
        for index, node in enumerate(tree):
            before = tree[index - 1]["text"] if index else None
            line = f"SmartArt {noun} {index + 1} of {total}: “{node['text']}”"
            if before is not None:
                line += f", right after “{before}”"
            out.append(
                {"relation": "after", "item": node["text"], "other": before or "", "line": line}
            )
        if structure == "cycle":
            first, last = tree[0]["text"], tree[-1]["text"]
            out.append(
                {
                    "relation": "cycle",
                    "item": first,
                    "other": last,
                    "line": f"SmartArt cycle: after the last step “{last}” "
                    f"the cycle returns to “{first}”",
                }
            )
    word = "directly under" if structure == "hierarchy" else "listed under"
    for parent, child in _pairs(tree):
        if structure != "hierarchy" and parent is None:
            continue
        if parent is None:
            line = f"SmartArt hierarchy: “{child['text']}” is at the top level"
            out.append({"relation": "top", "item": child["text"], "other": "", "line": line})
            continue
        role = " (assistant)" if child.get("assistant") else ""
        line = f"SmartArt {structure}: “{child['text']}”{role} is {word} “{parent['text']}”"
        out.append(
            {"relation": "under", "item": child["text"], "other": parent["text"], "line": line}
        )
    return out


def _pairs(
    tree: list[dict[str, Any]], parent: dict[str, Any] | None = None
) -> list[tuple[dict[str, Any] | None, dict[str, Any]]]:
    out: list[tuple[dict[str, Any] | None, dict[str, Any]]] = []
    for node in tree:
        out.append((parent, node))
        out.extend(_pairs(node["children"], node))
    return out
