"""Issue 38: a wrong method on an API path is a 405 naming the allowed ones (Allow), with the
dashboard served too (its catch-all GET once answered 404 for every POST-only API path), and
PATCH /changes/status is not taken for PATCH /changes/{id}."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from basketbench.app import create_app
from basketbench.core.config import Settings
from fastapi.testclient import TestClient


@pytest.fixture(params=["api only", "with the dashboard"])
def any_client(request: pytest.FixtureRequest, settings: Settings,
               tmp_path: Path) -> Iterator[TestClient]:
    if request.param == "with the dashboard":
        (tmp_path / "index.html").write_text("<!doctype html><div id=root></div>")
        settings = settings.model_copy(update={"frontend_dist": tmp_path})
    with TestClient(create_app(settings)) as c:
        yield c


WRONG = [
    ("GET", "/api/v1/recommend", "POST"),
    ("GET", "/api/v1/recommend/groups", "POST"),
    ("GET", "/api/v1/trigger", "POST"),
    ("GET", "/api/v1/webhooks/github", "POST"),
    ("PATCH", "/api/v1/changes/status", "POST"),
    ("GET", "/api/v1/changes/status", "POST"),
    ("DELETE", "/api/v1/trigger", "POST"),
]


def test_wrong_method_is_405_with_allow(any_client: TestClient,
                                        auth: dict[str, str]) -> None:
    for method, path, allow in WRONG:
        r = any_client.request(method, path, headers=auth)
        assert r.status_code == 405, (method, path, r.text)
        assert r.headers["allow"] == allow, (method, path)
        assert r.json()["error"]["code"] == "method_not_allowed"
    assert any_client.get("/api/v1/no-such-thing").status_code == 404
    assert any_client.get("/api/v1/changes").status_code == 200
    assert any_client.get("/api/v1/changes/12345").status_code == 404  # an id, looked up
