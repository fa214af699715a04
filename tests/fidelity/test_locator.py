"""An artifact's place is fields; its locator text is rendered from them for display and
parsed back nowhere (readers take the slide, shape, sheet, heading or table number from
the fields)."""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path

import docx

from extractors.powerpoint.views import shape_ids
from fidelity.core.document import Document
from fidelity.core.locator import Locator
from filters.elements import place

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("fidelity", "ingest", "extractors", "generators", "filters", "tests")
# String methods that take a text apart, and pattern methods (re.X or a compiled pattern's).
STRING_READS = frozenset(
    "split rsplit partition rpartition startswith endswith removeprefix removesuffix "
    "find rfind index rindex".split()
)
PATTERN_READS = frozenset("match search fullmatch findall finditer sub subn split".split())


def _rendered(node: ast.AST, names: frozenset[str] = frozenset()) -> bool:
    """An expression that holds a rendered place: a locator, a Locator's text, a place(), or
    a name given one of these (a method named `locator`, Playwright's, is none of them)."""
    methods = {id(sub.func) for sub in ast.walk(node) if isinstance(sub, ast.Call)}
    for sub in ast.walk(node):
        if isinstance(sub, ast.Attribute) and sub.attr == "locator" and id(sub) not in methods:
            return True
        if isinstance(sub, ast.Name) and (sub.id == "locator" or sub.id in names):
            return True
        if isinstance(sub, ast.Attribute) and sub.attr == "text":
            if isinstance(sub.value, ast.Attribute) and sub.value.attr == "where":
                return True
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id == "place":
            return True
    return False


def _holders(scope: ast.AST) -> frozenset[str]:
    """The names a function gives a rendered place to (`here = place(target)`)."""
    return frozenset(
        target.id
        for node in ast.walk(scope)
        if isinstance(node, ast.Assign) and _rendered(node.value)
        for target in node.targets
        if isinstance(target, ast.Name)
    )


def parse_backs(source: str) -> list[int]:
    """The lines of `source` that take a rendered place apart (split it, match a pattern
    in it, test or strip its prefix)."""
    tree = ast.parse(source)
    scopes = [tree, *(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef))]
    lines = set()
    for scope in scopes:
        names = _holders(scope) if isinstance(scope, ast.FunctionDef) else frozenset()
        for node in ast.walk(scope):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
                continue
            method = node.func.attr
            if method in STRING_READS and _rendered(node.func.value, names):
                lines.add(node.lineno)
            elif method in PATTERN_READS and any(_rendered(arg, names) for arg in node.args):
                lines.add(node.lineno)
    return sorted(lines)


def test_the_scan_finds_a_parse_back_and_not_a_display() -> None:
    source = """
def read(artifact, target, locator, a, b, page):
    found = re.match(r"table (\\d+)", artifact.locator)
    on_slide = artifact.locator.startswith("slide ")
    sheet = place(target).removeprefix("On sheet ")
    parts = locator.split(" / ")
    here = place(target)
    on_slide = here.startswith("On slide ")
    shown = f"at {artifact.locator} ({here.lower()})"
    same = a.locator == b.locator
    words = artifact.text.split()
    caption = page.locator("figcaption").inner_text()
    return caption.startswith("the chart")
"""
    assert parse_backs(source) == [3, 4, 5, 6, 8]


def test_no_locator_is_parsed_back_anywhere() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{line}"
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        if path != Path(__file__).resolve()
        for line in parse_backs(path.read_text())
    ]
    assert found == []


def test_a_nested_word_table_is_numbered_from_its_path(
    corpus: Path, extracted: Callable[[Path], Document]
) -> None:
    document = extracted(corpus / "word" / "memo.docx")
    tables = {a.where.table: a for a in document.artifacts if a.kind == "table"}
    paths = {number: table.where.table_path for number, table in tables.items()}
    assert paths == {1: [1], 2: [1, 2], 3: [1, 2, 3]}
    for number, table in tables.items():
        assert table.locator == f"table {number} in section '{table.where.section}'"
    # the artifact list holds the nested tables before the table holding them
    assert [a.where.table for a in document.artifacts if a.kind == "table"] == [3, 2, 1]


def test_a_shape_locator_names_its_slide_and_shape(typical: Document) -> None:
    shaped = [a for a in typical.artifacts if a.where.shape is not None]
    assert len(shaped) > 20
    for artifact in shaped:
        where = artifact.where
        assert where.shape is not None and where.slide == artifact.facts["slide"]
        name = where.shape.name or f"shape {where.shape.id}"
        assert artifact.locator == f"slide {where.slide} / shape {where.shape.id} [{name}]"
    first = shaped[0]
    assert first.where.shape is not None and first.where.slide is not None
    assert first.id in shape_ids(typical, first.where.slide, first.where.shape.id)


def test_a_sheet_is_quoted_as_formulas_write_it(
    corpus: Path, extracted: Callable[[Path], Document]
) -> None:
    document = extracted(corpus / "excel" / "2023-half-year-analyses-by-segment.xlsx")
    sheet = "OS-Rev.and results 30 06 2023"
    placed = [a for a in document.artifacts if a.where.sheet == sheet and a.where.cells]
    assert placed
    for artifact in placed:
        assert artifact.locator == f"'{sheet}'!{artifact.where.cells}"
        assert place(artifact) == f"On sheet '{sheet}'"
    assert Locator(sheet="Bob's", cells="A1").text == "'Bob''s'!A1"
    assert Locator(sheet="Sales_2").text == "Sales_2"


def test_a_heading_with_an_apostrophe_is_the_place_whole(
    tmp_path: Path, extracted: Callable[[Path], Document]
) -> None:
    made = docx.Document()
    made.add_heading("Bob's plan for 2024", level=1)
    made.add_paragraph("The plan has two parts, shown in the table below.")
    table = made.add_table(rows=2, cols=2)
    for row, texts in zip(table.rows, (("Part", "Owner"), ("Budget", "Ann")), strict=True):
        for cell, text in zip(row.cells, texts, strict=True):
            cell.text = text
    path = tmp_path / "apostrophe.docx"
    made.save(str(path))
    document = extracted(path)
    (found,) = [a for a in document.artifacts if a.kind == "table"]
    assert found.locator == "table 1 in section 'Bob's plan for 2024'"
    assert place(found) == "Under the heading “Bob's plan for 2024”"
