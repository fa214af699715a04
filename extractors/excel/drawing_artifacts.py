"""Drawings as artifacts: charts (rendered when asked), pictures and shapes at their anchor."""

from __future__ import annotations

from typing import Any

from extractors.excel.book import WorkbookState
from extractors.excel.workbook import SheetInfo
from extractors.ooxml.chart import chart_text, parse_chart
from extractors.ooxml.namespaces import preset_name
from fidelity.core.locator import Locator, sheet_label
from fidelity.core.xmlsafe import UnsafePackage


def geometry_words(prst: str) -> str:
    """A DrawingML preset geometry by the name Office shows (shared with PowerPoint)."""
    return "freeform" if prst == "custom" else preset_name(prst)


class DrawingArtifacts(WorkbookState):
    """Drawings as artifacts: charts (rendered when asked), pictures and shapes at their anchor."""

    def drawing_item(
        self, sheet: SheetInfo, item: dict[str, Any]
    ) -> list[tuple[tuple[int, int], str]]:
        label = sheet_label(sheet.name)
        position = item.get("position") or (0, 0)
        where = item["anchor"] + (f":{item['anchor_end']}" if item.get("anchor_end") else "")
        located = Locator(sheet=sheet.name, cells=item["anchor"] or None)
        base = {
            "sheet": sheet.name,
            "name": item["name"],
            "description": item["description"],
            "anchor": item["anchor"],
            "anchor_range": where,
        }
        alt = f"\nAlt text: {item['description']}" if item["description"] else ""
        if item["type"] == "chart":
            try:
                facts = parse_chart(self.package, item["part"])
            except (KeyError, ValueError, UnsafePackage) as error:
                self.note(f"chart {item['part']} could not be read: {error}")
                return []
            facts.update(base)
            media = self.render_chart(sheet, facts)
            text = f"Chart '{item['name']}' on sheet {label}, placed over {where}{alt}\n"
            text += chart_text(facts)
            artifact = self.add(
                "chart",
                (item["part"],),
                "Chart",
                "chart",
                "visual",
                located,
                text,
                facts,
                media=media,
            )
            return [(position, artifact.placeholder or "")]
        if item["type"] == "image":
            media, info = self.copy_media(item.get("part"))
            text = f"Image '{item['name']}' on sheet {label}, placed over {where}{alt}"
            if info.get("width"):
                text += f"\nImage size: {info['width']}x{info['height']} pixels ({info['format']})"
            artifact = self.add(
                "image",
                (sheet.name, item["name"], item.get("part") or "", item["anchor"]),
                "Image",
                "image",
                "visual",
                located,
                text,
                {**base, **info, "part": item.get("part")},
                media=media,
            )
            return [(position, artifact.placeholder or "")]
        if item.get("connector") and not item["text"]:
            return []
        shape = geometry_words(item["geometry"])
        text = f"Shape '{item['name']}' ({shape}) on sheet {label}, placed over {where}"
        if item["text"]:
            text += f"\nShape text: {item['text']}"
        if item.get("group"):
            text += f"\nPart of group '{item['group']}'"
        text += alt
        facts = {**base, "geometry": item["geometry"], "shape_type": shape, "text": item["text"]}
        facts["group"] = item.get("group")
        artifact = self.add(
            "shape",
            (sheet.name, item["name"], item["anchor"]),
            "Shape",
            "shape",
            "element",
            located,
            text,
            facts,
        )
        return [(position, artifact.placeholder or "")]

    def render_chart(self, sheet: SheetInfo, facts: dict[str, Any]) -> str | None:
        if self.chart_renderer is None:
            return None
        try:
            image = self.chart_renderer(self.path, sheet.name, facts, self.media.directory())
        except Exception as error:  # rendering is optional; the chart's facts remain
            self.note(f"chart image not rendered: {error}")
            return None
        return self.media.relative(image.name) if image else None

    def copy_media(self, part: str | None) -> tuple[str | None, dict[str, Any]]:
        """The media path and image facts of a picture part, copied once per part: a picture
        placed many times (one was placed 22 times) was read, measured and written each time."""
        if not part or not self.package.has(part):
            return None, {}
        if part not in self.copied_media:
            self.copied_media[part] = self._copy_media(part)
        media, info = self.copied_media[part]
        return media, dict(info)

    def _copy_media(self, part: str) -> tuple[str | None, dict[str, Any]]:
        data = self.package.read(part)
        info: dict[str, Any] = {"format": part.rsplit(".", 1)[-1].lower()}
        try:
            from io import BytesIO

            from PIL import Image

            with Image.open(BytesIO(data)) as image:
                info.update(width=image.width, height=image.height, format=image.format or "")
        except Exception:  # not every embedded picture is a raster image Pillow reads
            pass
        from fidelity.core.hashing import short_hash

        name = f"{short_hash(part)}-{part.rsplit('/', 1)[-1]}"
        return self.media.write(name, data), info
