"""Render OUT/report.html from the Jinja2 templates: summary sections plus a JSON data island."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from markupsafe import Markup

from fidelity.core.atomic import write_text
from fidelity.core.config import CoverageConfig
from fidelity.core.gc_pause import collector_paused
from fidelity.core.run_snapshot import RunSnapshot
from fidelity.core.store import RunStore, snapshot_of
from fidelity.report import sections
from fidelity.report.questions import FILTERS, collect

REPORT_NAME = "report.html"
PAGE_SIZE = 50
# Characters that could end the <script> element or open a comment inside it, as JSON escapes
# (replaced one after the other: str.replace is many times faster than str.translate on a
# large page, and no escape contains a character replaced after it).
ISLAND_ESCAPES = (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"))


def environment() -> Environment:
    return Environment(
        loader=PackageLoader("fidelity.report", "templates"),
        autoescape=select_autoescape(["html", "j2"], default_for_string=True, default=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def json_island(data: Any) -> Markup:
    """JSON safe to place inside <script type="application/json"> (no `</script>` can occur)."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    for character, escape in ISLAND_ESCAPES:
        text = text.replace(character, escape)
    return Markup(text)


def asset(env: Environment, name: str) -> Markup:
    """A static script or stylesheet, inlined verbatim (not parsed as a template)."""
    assert env.loader is not None
    source, _, _ = env.loader.get_source(env, name)
    return Markup(source)


def render(run: RunStore | RunSnapshot, out: Path, targets: CoverageConfig) -> str:
    """The page's HTML (a store is read once, into a snapshot freed on return)."""
    env = environment()
    with snapshot_of(run) as snapshot:
        table = collect(snapshot, out)
        return env.get_template("report.html.j2").render(
            mode=snapshot.meta.get("mode", "offline"),
            out_name=out.resolve().name,
            generated=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
            coverage=sections.coverage_section(snapshot, targets),
            funnel=sections.funnel_section(snapshot, table),
            files=sections.files_section(snapshot, out, table),
            usage=sections.usage_section(snapshot, out),
            options=table.options,
            filters=FILTERS,
            total=len(table.rows),
            page_size=PAGE_SIZE,
            data=json_island(table.island()),
            style=asset(env, "report.css"),
            script=asset(env, "report.js"),
        )


def write_report(
    run: RunStore | RunSnapshot, out: Path, targets: CoverageConfig | None = None
) -> Path:
    """Write OUT/report.html (atomically) and return its path."""
    path = out / REPORT_NAME
    with collector_paused():  # until the snapshot and the page's tables are freed
        write_text(path, render(run, out, targets or CoverageConfig()))
    return path
