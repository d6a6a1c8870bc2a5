"""Security headers on every response, and /docs served from local files so that its
Content-Security-Policy can be strict (no CDN, inline scripts allowed by hash only).

The dashboard needs: its own scripts plus the inline theme script of index.html (by hash);
inline styles (Plotly and React set them); data:/blob: images (plot export); and
'unsafe-eval', only because Plotly's WebGL traces (scattergl, via regl) compile their
shader code with ``Function`` (seen in Chromium as a CSP violation on the history page
without it). Plotly's "strict" bundle would remove that need. /docs gets the same policy
without 'unsafe-eval'; the API's JSON answers get the strictest one.
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import MutableMapping
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse
from starlette.staticfiles import StaticFiles

from basketbench.web.guards import ASGIApp, Receive, Scope, Send

DOCS_ASSETS = "/docs-assets"
API_POLICY = "default-src 'none'; frame-ancestors 'none'"
_INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)[^>]*>(.*?)</script>", re.S | re.I)


def inline_script_hashes(html: str) -> list[str]:
    """CSP source expressions for the inline <script> blocks of a page."""
    return ["'sha256-" + base64.b64encode(hashlib.sha256(body.encode()).digest()).decode() + "'"
            for body in _INLINE_SCRIPT.findall(html)]


def page_policy(script_hashes: list[str], allow_eval: bool = False) -> str:
    scripts = " ".join(["'self'", *(["'unsafe-eval'"] if allow_eval else []),
                        *sorted(set(script_hashes))])
    return ("default-src 'self'; "
            f"script-src {scripts}; "
            "style-src 'self' 'unsafe-inline'; "
            "img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; "
            "worker-src 'self' blob:; object-src 'none'; base-uri 'self'; "
            "form-action 'self'; frame-ancestors 'none'")


def swagger_static() -> Path | None:
    try:
        import swagger_ui
    except ImportError:  # pragma: no cover - a dependency; /docs then falls back to nothing
        return None
    path = Path(swagger_ui.__file__).parent / "static"
    return path if (path / "swagger-ui-bundle.js").is_file() else None


def mount_docs(app: FastAPI, openapi_url: str) -> list[str]:
    """GET /docs with Swagger UI from the swagger-ui-py wheel; returns the page's inline
    script hashes."""
    static = swagger_static()
    if static is None:
        return []
    app.mount(DOCS_ASSETS, StaticFiles(directory=static), name="docs-assets")
    page = get_swagger_ui_html(
        openapi_url=openapi_url, title=f"{app.title} - API",
        swagger_js_url=f"{DOCS_ASSETS}/swagger-ui-bundle.js",
        swagger_css_url=f"{DOCS_ASSETS}/swagger-ui.css",
        swagger_favicon_url=f"{DOCS_ASSETS}/favicon-32x32.png")
    html = bytes(page.body).decode()

    @app.get("/docs", include_in_schema=False)
    def docs() -> HTMLResponse:
        return HTMLResponse(html)

    return inline_script_hashes(html)


class SecurityHeadersMiddleware:
    def __init__(self, app: ASGIApp, page_csp: str, docs_csp: str,
                 api_prefix: str = "/api/") -> None:
        self.app, self.api_prefix = app, api_prefix
        common = [(b"x-content-type-options", b"nosniff"), (b"x-frame-options", b"DENY"),
                  (b"referrer-policy", b"same-origin")]
        self.api_headers = [*common, (b"content-security-policy", API_POLICY.encode())]
        self.page_headers = [*common, (b"content-security-policy", page_csp.encode())]
        self.docs_headers = [*common, (b"content-security-policy", docs_csp.encode())]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope["path"]
        extra = (self.api_headers if path.startswith(self.api_prefix)
                 else self.docs_headers if path == "/docs" or path.startswith(DOCS_ASSETS)
                 else self.page_headers)

        async def with_headers(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start":
                present = {k.lower() for k, _ in message.get("headers", [])}
                message["headers"] = [*message.get("headers", []),
                                      *(h for h in extra if h[0] not in present)]
            await send(message)

        await self.app(scope, receive, with_headers)
