"""The built dashboard's files (frontend/dist) as a browser should get them.

Files under /assets carry a content hash in their name (Vite), so they are cached for a
year without revalidation, and served as the build precompressed them (``x.js.br`` and
``x.js.gz`` beside ``x.js``, written by vite.config.ts): no CPU spent compressing the
1 MB Plotly chunk on every cold load, in the process that also answers the page's data.
Files without a precompressed copy are left to GZipMiddleware. index.html and the other
unhashed files are revalidated on every load (``no-cache``), so a new build is picked up.
"""

from __future__ import annotations

import mimetypes
import os
from pathlib import Path

from starlette.datastructures import Headers
from starlette.responses import FileResponse, Response
from starlette.staticfiles import NotModifiedResponse, PathLike, StaticFiles
from starlette.types import Scope

IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
# Preferred first: brotli is ~15 % smaller than gzip -9 on the Plotly chunk.
PRECOMPRESSED = (("br", ".br"), ("gzip", ".gz"))


def accepted_encodings(header: str) -> set[str]:
    """Codings of an Accept-Encoding header, without those refused with q=0."""
    codings = set()
    for item in header.split(","):
        name, *params = (part.strip() for part in item.split(";"))
        q = next((p[2:] for p in params if p.startswith("q=")), "1")
        try:
            refused = float(q) == 0
        except ValueError:
            refused = False
        if name and not refused:
            codings.add(name.lower())
    return codings


def precompressed(path: Path, accept: set[str]) -> tuple[str, Path, os.stat_result] | None:
    """The smallest accepted precompressed copy of ``path`` the build wrote, if any."""
    for coding, suffix in PRECOMPRESSED:
        if coding not in accept:
            continue
        packed = path.with_name(path.name + suffix)
        try:
            stat_result = packed.stat()
        except OSError:
            continue
        return coding, packed, stat_result
    return None


class HashedAssets(StaticFiles):
    """StaticFiles for content-hashed names: long-lived cache, precompressed copies."""

    def file_response(self, full_path: PathLike, stat_result: os.stat_result, scope: Scope,
                      status_code: int = 200) -> Response:
        request_headers = Headers(scope=scope)
        path = Path(full_path)
        media_type = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        headers = {"cache-control": IMMUTABLE, "vary": "accept-encoding"}
        packed = precompressed(path, accepted_encodings(request_headers.get("accept-encoding", "")))
        if packed is not None:
            coding, path, stat_result = packed
            headers["content-encoding"] = coding
        response = FileResponse(path, status_code=status_code, stat_result=stat_result,
                                media_type=media_type, headers=headers)
        if self.is_not_modified(response.headers, request_headers):
            return NotModifiedResponse(response.headers)
        return response


def page_file(path: Path) -> FileResponse:
    """index.html and the other unhashed files: the browser revalidates them every load."""
    return FileResponse(path, headers={"cache-control": REVALIDATE})
