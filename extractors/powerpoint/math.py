"""Office Math (OMML) to a linear, readable form: fractions, radicals, scripts, n-ary operators."""

from __future__ import annotations

from lxml import etree

from extractors.ooxml.namespaces import M, local


def _m(name: str) -> str:
    return f"{{{M}}}{name}"


def _val(parent: etree._Element, path: str, default: str) -> str:
    found = parent.find(path, {"m": M})
    if found is None:
        return default
    return found.get(_m("val"), default)


def _group(text: str) -> str:
    """Parenthesise a multi-character operand so the linear form stays unambiguous."""
    text = text.strip()
    return text if len(text) <= 1 or (text[0] + text[-1]) in ("()", "[]", "{}") else f"({text})"


def _part(element: etree._Element, name: str) -> str:
    found = element.find(_m(name))
    return "" if found is None else linear(found)


def linear(element: etree._Element) -> str:
    """The linear text of an OMML element and its content."""
    kind = local(element)
    if kind == "t":
        return element.text or ""
    if kind == "f":
        return f"{_group(_part(element, 'num'))}/{_group(_part(element, 'den'))}"
    if kind == "rad":
        degree = _part(element, "deg").strip()
        root = {"": "√", "3": "∛", "4": "∜"}.get(degree, f"root{_group(degree)}")
        return f"{root}{_group(_part(element, 'e'))}"
    if kind == "sSup":
        return f"{_part(element, 'e')}^{_group(_part(element, 'sup'))}"
    if kind == "sSub":
        return f"{_part(element, 'e')}_{_group(_part(element, 'sub'))}"
    if kind == "sSubSup":
        base = _part(element, "e")
        return f"{base}_{_group(_part(element, 'sub'))}^{_group(_part(element, 'sup'))}"
    if kind == "sPre":
        sub, sup = _group(_part(element, "sub")), _group(_part(element, "sup"))
        return f"_{sub}^{sup}{_part(element, 'e')}"
    if kind == "nary":
        symbol = _val(element, "m:naryPr/m:chr", "∫")
        sub, sup = _part(element, "sub").strip(), _part(element, "sup").strip()
        limits = (f"_{_group(sub)}" if sub else "") + (f"^{_group(sup)}" if sup else "")
        return f"{symbol}{limits} {_part(element, 'e')}"
    if kind == "d":
        begin = _val(element, "m:dPr/m:begChr", "(")
        end = _val(element, "m:dPr/m:endChr", ")")
        separator = _val(element, "m:dPr/m:sepChr", ",")
        items = [linear(e) for e in element.findall(_m("e"))]
        return f"{begin}{(separator + ' ').join(items)}{end}"
    if kind == "func":
        return f"{_part(element, 'fName')}{_group(_part(element, 'e'))}"
    if kind in ("limLow", "limUpp"):
        mark = "_" if kind == "limLow" else "^"
        return f"{_part(element, 'e')}{mark}{_group(_part(element, 'lim'))}"
    if kind == "acc":
        return f"{_part(element, 'e')}{_val(element, 'm:accPr/m:chr', '̂')}"
    if kind == "bar":
        return f"{_group(_part(element, 'e'))}̅"
    if kind == "eqArr":
        return "; ".join(linear(e) for e in element.findall(_m("e")))
    if kind == "m":
        rows = [
            ", ".join(linear(e) for e in row.findall(_m("e"))) for row in element.findall(_m("mr"))
        ]
        return "[" + "; ".join(rows) + "]"
    if kind.endswith("Pr") or kind in ("ctrlPr", "argPr"):
        return ""
    return "".join(linear(child) for child in element if isinstance(child.tag, str))


def equation_text(element: etree._Element) -> str:
    """Linear form of an m:oMathPara or m:oMath (several equations joined by '; ')."""
    maths = [element] if local(element) == "oMath" else element.findall(f".//{_m('oMath')}")
    return "; ".join(" ".join(linear(item).split()) for item in maths)
