"""The built dashboard's files: hashed assets cached for a year and served as the build
precompressed them; index.html revalidated on every load (issue 12, first plot)."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from basketbench.app import create_app
from basketbench.core.config import Settings
from basketbench.web.static_assets import IMMUTABLE, accepted_encodings
from fastapi.testclient import TestClient

BUNDLE = "console.log('a bundle well above the gzip threshold');\n" * 200


@pytest.fixture
def dist(tmp_path: Path) -> Path:
    dist = tmp_path / "dist"
    (dist / "assets").mkdir(parents=True)
    (dist / "index.html").write_text("<!doctype html><div id=root>basketbench-spa</div>")
    (dist / "assets" / "plotly-1a2b3c.js").write_text(BUNDLE)
    (dist / "assets" / "plotly-1a2b3c.js.gz").write_bytes(gzip.compress(BUNDLE.encode(), 9))
    # The build writes real brotli (vite.config.ts); its bytes are passed through untouched.
    (dist / "assets" / "plotly-1a2b3c.js.br").write_bytes(b"brotli bytes of the build")
    (dist / "assets" / "app-9f8e7d.js").write_text(BUNDLE)  # no precompressed copy
    return dist


@pytest.fixture
def app_client(settings: Settings, dist: Path):
    with TestClient(create_app(settings.model_copy(update={"frontend_dist": dist}))) as c:
        yield c


def test_accept_encoding_parsing():
    assert accepted_encodings("gzip, deflate, br, zstd") == {"gzip", "deflate", "br", "zstd"}
    assert accepted_encodings("br;q=0, GZIP;q=0.5") == {"gzip"}
    assert accepted_encodings("") == set()
    assert accepted_encodings("gzip;q=bogus") == {"gzip"}


def test_hashed_assets_are_served_precompressed_and_cached_for_a_year(app_client):
    br = app_client.get("/assets/plotly-1a2b3c.js", headers={"Accept-Encoding": "gzip, br"})
    assert br.status_code == 200
    assert br.headers["content-encoding"] == "br"
    assert br.headers["content-type"].startswith("text/javascript")
    assert br.headers["cache-control"] == IMMUTABLE and br.headers["vary"] == "accept-encoding"
    assert br.headers["content-length"] == str(len(b"brotli bytes of the build"))

    gz = app_client.get("/assets/plotly-1a2b3c.js", headers={"Accept-Encoding": "gzip"})
    assert gz.headers["content-encoding"] == "gzip" and gz.text == BUNDLE
    assert gz.headers["content-type"].startswith("text/javascript")
    # another representation, another validator
    assert gz.headers["etag"] != br.headers["etag"]
    again = app_client.get("/assets/plotly-1a2b3c.js",
                           headers={"Accept-Encoding": "gzip", "If-None-Match": gz.headers["etag"]})
    assert again.status_code == 304

    plain = app_client.get("/assets/plotly-1a2b3c.js", headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers and plain.text == BUNDLE
    assert plain.headers["cache-control"] == IMMUTABLE


def test_assets_without_a_precompressed_copy_are_gzipped_on_the_fly(app_client):
    r = app_client.get("/assets/app-9f8e7d.js", headers={"Accept-Encoding": "gzip, br"})
    assert r.headers["content-encoding"] == "gzip" and r.text == BUNDLE
    assert r.headers["cache-control"] == IMMUTABLE
    assert app_client.get("/assets/missing-000000.js").status_code == 404


def test_the_page_is_revalidated_on_every_load(app_client):
    for path in ("/", "/history", "/index.html"):
        r = app_client.get(path)
        assert r.status_code == 200 and "basketbench-spa" in r.text, path
        assert r.headers["cache-control"] == "no-cache", path
