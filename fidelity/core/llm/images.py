"""Images for vision models: resolve, fingerprint and encode local files as data URLs.

A call's key uses the file's sha256 (plus the size limit), never the encoded bytes,
so the key does not change with the Pillow version. Formats a model endpoint does
not take (BMP, TIFF, large images…) are re-encoded as PNG within `max_side` pixels;
files Pillow cannot decode (EMF/WMF on Linux, broken files) are not sendable.
"""

from __future__ import annotations

import base64
import hashlib
import io
import threading
from pathlib import Path

from PIL import Image

SENDABLE_AS_IS = {
    "PNG": "image/png",
    "JPEG": "image/jpeg",
    "GIF": "image/gif",
    "WEBP": "image/webp",
}
MAX_RAW_BYTES = 15_000_000


class ImageUnavailable(Exception):
    """An image that cannot be sent to a model, with the reason."""


class ImageLoader:
    """Turns image paths (absolute, or relative to `root`) into fingerprints and data URLs."""

    def __init__(self, root: Path, max_side: int = 1536) -> None:
        self.root = root
        self.max_side = max_side
        self._lock = threading.Lock()
        self._hashes: dict[tuple[Path, int, int], str] = {}

    def resolve(self, path: str | Path) -> Path:
        candidate = Path(path)
        return candidate if candidate.is_absolute() else self.root / candidate

    def sha256(self, path: str | Path) -> str:
        resolved = self.resolve(path)
        try:
            stat = resolved.stat()
        except OSError as error:
            raise ImageUnavailable(f"{resolved.name}: {error.strerror or error}") from error
        marker = (resolved, stat.st_mtime_ns, stat.st_size)
        with self._lock:
            if marker not in self._hashes:
                self._hashes[marker] = hashlib.sha256(resolved.read_bytes()).hexdigest()
            return self._hashes[marker]

    def sendable(self, path: str | Path | None) -> bool:
        if not path:
            return False
        try:
            self.data_url(path)
        except ImageUnavailable:
            return False
        return True

    def data_url(self, path: str | Path) -> str:
        mime, data = self._encode(self.resolve(path))
        return f"data:{mime};base64,{base64.b64encode(data).decode()}"

    def _encode(self, path: Path) -> tuple[str, bytes]:
        try:
            raw = path.read_bytes()
            with Image.open(io.BytesIO(raw)) as image:
                image.load()
                fmt = image.format or ""
                small = max(image.size) <= self.max_side and len(raw) <= MAX_RAW_BYTES
                if fmt in SENDABLE_AS_IS and small:
                    return SENDABLE_AS_IS[fmt], raw
                return "image/png", self._to_png(image)
        except (OSError, ValueError, Image.DecompressionBombError) as error:
            raise ImageUnavailable(f"{path.name}: {type(error).__name__}: {error}") from error

    def _to_png(self, image: Image.Image) -> bytes:
        if image.mode not in ("RGB", "RGBA", "L", "LA"):
            image = image.convert("RGBA")
        image.thumbnail((self.max_side, self.max_side))
        buffer = io.BytesIO()
        image.save(buffer, format="PNG")
        return buffer.getvalue()
