"""The one media writer of an extraction: files under the document's media folder, or nowhere."""

from __future__ import annotations

from pathlib import Path

from fidelity.core.xmlsafe import Package


class MediaWriter:
    """Writes a document's media files into `folder` (None: writes nothing, media paths are None).

    Media paths recorded on artifacts are relative to the output folder that holds
    the media root (`<root>/<document>/<name>`), so an output folder can move whole.
    """

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self.written: dict[str, str] = {}

    @property
    def enabled(self) -> bool:
        return self.folder is not None

    def relative(self, name: str) -> str:
        """The recorded media path of `name` (relative to the output folder)."""
        assert self.folder is not None
        return f"{self.folder.parent.name}/{self.folder.name}/{name}"

    def directory(self) -> Path:
        """The media folder, created on first use (only when media are written)."""
        assert self.folder is not None
        self.folder.mkdir(parents=True, exist_ok=True)
        return self.folder

    def write(self, name: str, data: bytes) -> str | None:
        """Write `data` as `name`; its recorded path, or None when media are not written."""
        if self.folder is None:
            return None
        (self.directory() / name).write_bytes(data)
        return self.relative(name)

    def copy_part(self, package: Package, part: str, name: str) -> str | None:
        """Copy a package part (once per part) as `name`; None when missing or not written."""
        if part in self.written:
            return self.written[part]
        if not package.has(part):
            return None
        path = self.write(name, package.read(part))
        if path is not None:
            self.written[part] = path
        return path
