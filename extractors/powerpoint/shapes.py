"""A slide's shape tree as records: kind, placeholder role, absolute box, stacking order,
group nesting, alt text, and what a graphic frame holds (table, chart, SmartArt, OLE)."""

from __future__ import annotations

from dataclasses import dataclass, field

from lxml import etree

from extractors.ooxml.namespaces import DGM, P14, TABLE_URI, a, children, int_attr, local, p, r

CHART_URIS = {
    "http://schemas.openxmlformats.org/drawingml/2006/chart": "chart",
    "http://schemas.microsoft.com/office/drawing/2014/chartex": "chart",
    TABLE_URI: "table",
    DGM: "smartart",
    "http://schemas.openxmlformats.org/presentationml/2006/ole": "ole",
}
SHAPE_KINDS = {"sp", "pic", "graphicFrame", "grpSp", "cxnSp", "contentPart"}
FOOTER_ROLES = {"dt", "ftr", "sldNum", "hdr"}

Box = tuple[int, int, int, int]


@dataclass
class Transform:
    """Maps a group's child coordinates to slide coordinates."""

    scale_x: float = 1.0
    scale_y: float = 1.0
    shift_x: float = 0.0
    shift_y: float = 0.0

    def apply(self, box: Box) -> Box:
        x, y, cx, cy = box
        return (
            round(x * self.scale_x + self.shift_x),
            round(y * self.scale_y + self.shift_y),
            round(cx * self.scale_x),
            round(cy * self.scale_y),
        )


@dataclass
class Shape:
    shape_id: str
    name: str
    kind: str
    element: etree._Element
    z: int
    siblings: int
    role: str | None = None
    ph_idx: str | None = None
    box: Box | None = None
    group: Shape | None = None
    members: list[Shape] = field(default_factory=list)
    alt_text: str = ""
    frame: str | None = None
    text_box: bool = False

    @property
    def label(self) -> str:
        return f"[{self.name or 'shape ' + self.shape_id}]"

    @property
    def placeholder(self) -> bool:
        return self.role is not None

    def flatten(self) -> list[Shape]:
        out = [self]
        for member in self.members:
            out.extend(member.flatten())
        return out


def _xfrm(element: etree._Element, kind: str) -> etree._Element | None:
    if kind == "graphicFrame":
        return element.find(p("xfrm"))
    if kind == "grpSp":
        return element.find(f"{p('grpSpPr')}/{a('xfrm')}")
    if kind == "contentPart":
        return element.find(f"{{{P14}}}xfrm")
    return element.find(f"{p('spPr')}/{a('xfrm')}")


def _box(xfrm: etree._Element | None) -> Box | None:
    if xfrm is None:
        return None
    off, ext = xfrm.find(a("off")), xfrm.find(a("ext"))
    if off is None or ext is None:
        return None
    return (int_attr(off, "x"), int_attr(off, "y"), int_attr(ext, "cx"), int_attr(ext, "cy"))


def _group_transform(xfrm: etree._Element | None, outer: Transform) -> Transform:
    box = _box(xfrm)
    if xfrm is None or box is None:
        return outer
    child_off, child_ext = xfrm.find(a("chOff")), xfrm.find(a("chExt"))
    if child_off is None or child_ext is None:
        return outer
    scale_x = box[2] / int_attr(child_ext, "cx") if int_attr(child_ext, "cx") else 1.0
    scale_y = box[3] / int_attr(child_ext, "cy") if int_attr(child_ext, "cy") else 1.0
    inner = Transform(
        scale_x,
        scale_y,
        box[0] - int_attr(child_off, "x") * scale_x,
        box[1] - int_attr(child_off, "y") * scale_y,
    )
    return Transform(
        inner.scale_x * outer.scale_x,
        inner.scale_y * outer.scale_y,
        inner.shift_x * outer.scale_x + outer.shift_x,
        inner.shift_y * outer.scale_y + outer.shift_y,
    )


def _non_visual(element: etree._Element) -> tuple[etree._Element | None, etree._Element | None]:
    """(cNvPr, nvPr) of any shape kind, including p14 content parts."""
    for nv in element:
        if not isinstance(nv.tag, str) or not local(nv).startswith("nv"):
            continue
        cnv = next((c for c in nv if isinstance(c.tag, str) and local(c) == "cNvPr"), None)
        nvpr = next((c for c in nv if isinstance(c.tag, str) and local(c) == "nvPr"), None)
        return cnv, nvpr
    return None, None


def placeholder_of(element: etree._Element) -> tuple[str | None, str | None]:
    """(role, idx) of a placeholder shape; role is the ph type ('body' when unset)."""
    _, nvpr = _non_visual(element)
    ph = nvpr.find(p("ph")) if nvpr is not None else None
    if ph is None:
        return None, None
    return ph.get("type", "body"), ph.get("idx")


def shape_tree(
    tree: etree._Element,
    inherited: dict[tuple[str, str], Box] | None = None,
) -> list[Shape]:
    """Top-level shapes of a p:spTree (groups carry their members); positions are absolute."""
    return _shapes(tree, Transform(), None, inherited or {})


def _shapes(
    container: etree._Element,
    transform: Transform,
    group: Shape | None,
    inherited: dict[tuple[str, str], Box],
) -> list[Shape]:
    elements = [c for c in children(container) if local(c) in SHAPE_KINDS]
    out: list[Shape] = []
    for z, element in enumerate(elements, start=1):
        kind = local(element)
        cnv, _ = _non_visual(element)
        role, idx = placeholder_of(element)
        box = _box(_xfrm(element, kind))
        if box is None and role is not None:
            box = inherited.get(("idx", idx or "")) or inherited.get(("type", role))
        shape = Shape(
            shape_id=cnv.get("id", "") if cnv is not None else "",
            name=" ".join((cnv.get("name", "") if cnv is not None else "").split()),
            kind=kind,
            element=element,
            z=z,
            siblings=len(elements),
            role=role,
            ph_idx=idx,
            box=transform.apply(box) if box is not None else None,
            group=group,
            alt_text=_alt_text(cnv),
            frame=_frame_kind(element) if kind == "graphicFrame" else None,
            text_box=_is_text_box(element),
        )
        if kind == "grpSp":
            inner = _group_transform(_xfrm(element, kind), transform)
            shape.members = _shapes(element, inner, shape, inherited)
        out.append(shape)
    return out


def _alt_text(cnv: etree._Element | None) -> str:
    if cnv is None:
        return ""
    parts = [cnv.get("title", ""), cnv.get("descr", "")]
    return " — ".join(" ".join(x.split()) for x in parts if x.strip())


def _frame_kind(element: etree._Element) -> str | None:
    data = element.find(f"{a('graphic')}/{a('graphicData')}")
    return CHART_URIS.get(data.get("uri", "")) if data is not None else None


def _is_text_box(element: etree._Element) -> bool:
    for nv in element:
        if isinstance(nv.tag, str) and local(nv) == "nvSpPr":
            cnv_sp = nv.find(p("cNvSpPr"))
            return cnv_sp is not None and cnv_sp.get("txBox") in ("1", "true")
    return False


def placeholder_boxes(tree: etree._Element | None) -> dict[tuple[str, str], Box]:
    """Positions of a layout's or master's placeholders, by idx and by type."""
    out: dict[tuple[str, str], Box] = {}
    if tree is None:
        return out
    for element in tree.iter(p("sp")):
        role, idx = placeholder_of(element)
        box = _box(_xfrm(element, "sp"))
        if role is None or box is None:
            continue
        if idx is not None:
            out.setdefault(("idx", idx), box)
        out.setdefault(("type", role), box)
    return out


def relationship_id(element: etree._Element) -> str | None:
    """The r:embed / r:id / r:dm a picture, chart, SmartArt or ink part is reached through."""
    for node in element.iter():
        if not isinstance(node.tag, str):
            continue
        for attribute in ("embed", "id", "dm"):
            value = node.get(r(attribute))
            if value and (local(node) in ("blip", "chart", "relIds", "contentPart")):
                return value
    return None
