"""The API reference: every operation and parameter described; public reads unlocked,
writes locked (Swagger UI draws a lock where an operation has `security`)."""

from __future__ import annotations

from basketbench.app import create_app
from fastapi.testclient import TestClient


def test_every_operation_and_parameter_is_described(client):
    spec = client.get("/api/v1/openapi.json").json()
    undescribed, unparam, locked_reads, open_writes = [], [], [], []
    for path, item in spec["paths"].items():
        for method, op in item.items():
            name = f"{method.upper()} {path}"
            if not (op.get("description") or "").strip():
                undescribed.append(name)
            unparam += [f"{name} {p['name']}" for p in op.get("parameters", [])
                        if not (p.get("description") or "").strip()]
            if method == "get" and op.get("security"):
                locked_reads.append(name)
            if method in ("post", "patch") and not op.get("security") and path not in (
                    "/api/v1/webhooks/github",  # signed with HMAC, not a token
                    # Rankings computed from the body, nothing stored: reads (the page's).
                    "/api/v1/recommend", "/api/v1/recommend/groups"):
                open_writes.append(name)
    assert len(spec["paths"]) > 25
    assert undescribed == [] and unparam == []
    assert locked_reads == [] and open_writes == []


def test_reads_still_need_a_token_when_private(settings, token):
    app = create_app(settings.model_copy(update={"private_reads": True}))
    with TestClient(app) as private:
        assert private.get("/api/v1/commits").status_code == 401
        bad = private.get("/api/v1/commits", headers={"Authorization": "Bearer nope"})
        assert bad.status_code == 401
        ok = private.get("/api/v1/commits", headers={"Authorization": f"Bearer {token}"})
        assert ok.status_code == 200
