"""/docs works offline: Swagger UI's script, style and icon come from the API itself."""

from __future__ import annotations

import re


def test_docs_page_loads_only_local_assets(client):
    page = client.get("/docs")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    urls = re.findall(r"""(?:src|href)=["']([^"']+)["']""", page.text)
    urls += re.findall(r"""url:\s*['"]([^'"]+)['"]""", page.text)
    assert urls, page.text
    assert not [u for u in urls if "//" in u], f"remote assets: {urls}"
    for url in urls:
        got = client.get(url)
        assert got.status_code == 200, url
        assert len(got.content) > 100, url
    assert "/api/v1/openapi.json" in urls
    assert client.get("/docs-assets/swagger-ui-bundle.js").headers["content-type"].startswith(
        ("application/javascript", "text/javascript"))
