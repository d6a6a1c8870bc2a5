"""Issue 38: every write endpoint x every token scope. A wrong scope is a 403, no token or a
bad one a 401, the right scope (or admin) gets past the check. The write routes are read from
the app itself: a new write endpoint missing from WRITE_SCOPES fails here until its scope is
stated (and docs/API.md lists it)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from basketbench.app import create_app
from basketbench.core.tokens import create_token
from basketbench.web.deps import SCOPE_OF
from fastapi import routing
from fastapi.dependencies.models import Dependant
from fastapi.testclient import TestClient

WRITE_METHODS = {"POST", "PUT", "PATCH", "DELETE"}
# (method, path) -> the scope it needs; "public": no token (computations on the body);
# "signature": GitHub's HMAC signature instead of a token.
WRITE_SCOPES: dict[tuple[str, str], str] = {
    ("POST", "/api/v1/machines"): "machine",
    ("POST", "/api/v1/machines/{machine_id}/heartbeat"): "machine",
    ("POST", "/api/v1/runs/{run_id}/claim"): "machine",
    ("PATCH", "/api/v1/runs/{run_id}"): "machine",
    ("POST", "/api/v1/results"): "machine",
    ("POST", "/api/v1/results/gbench"): "machine",
    ("POST", "/api/v1/branch-sizes"): "machine",
    ("PUT", "/api/v1/advise/{run_id}"): "machine",
    ("POST", "/api/v1/changes/{change_id:int}/bisection/range"): "machine",
    ("POST", "/api/v1/lossy-sweeps"): "machine",
    ("POST", "/api/v1/ab-runs"): "machine",
    ("POST", "/api/v1/arena-runs"): "machine",
    ("POST", "/api/v1/trigger"): "user",
    ("POST", "/api/v1/advise"): "user",
    ("POST", "/api/v1/ab-requests"): "user",
    ("POST", "/api/v1/changes/status"): "user",
    ("PATCH", "/api/v1/changes/{change_id:int}"): "user",
    ("PUT", "/api/v1/worker-tags/{tag}"): "admin",
    ("DELETE", "/api/v1/worker-tags/{tag}"): "admin",
    ("POST", "/api/v1/recommend"): "public",
    ("POST", "/api/v1/recommend/groups"): "public",
    ("POST", "/api/v1/webhooks/github"): "signature",
}
SCOPES = ("machine", "user", "admin")


def api_routes(app: Any) -> list[Any]:
    """Every API route as served (FastAPI >= 0.165 keeps included routers as contexts)."""
    contexts = getattr(routing, "iter_route_contexts", None)
    routes = contexts(app.routes) if contexts is not None else app.routes
    return [r for r in routes if hasattr(r, "dependant") and r.methods]


def write_routes(app: Any) -> set[tuple[str, str]]:
    return {(method, route.path) for route in api_routes(app)
            for method in route.methods & WRITE_METHODS}


def declared_scopes(dependant: Dependant) -> set[str]:
    found = {SCOPE_OF[d.call] for d in dependant.dependencies if d.call in SCOPE_OF}
    for sub in dependant.dependencies:
        found |= declared_scopes(sub)
    return found


def concrete(path: str) -> str:
    """A path to call: ids that exist nowhere, a well-formed tag."""
    return re.sub(r"\{(\w+)(?::\w+)?\}",
                  lambda m: "scope-tag" if m.group(1) == "tag" else "1", path)


@pytest.fixture
def scoped(session: Any) -> dict[str, dict[str, str]]:
    return {scope: {"Authorization": f"Bearer {create_token(session, f't-{scope}', scope)[1]}"}
            for scope in SCOPES}


def test_every_write_route_states_its_scope(client: TestClient) -> None:
    routes = write_routes(client.app)
    assert routes - WRITE_SCOPES.keys() == set(), "write routes without a stated scope"
    assert WRITE_SCOPES.keys() - routes == set(), "scopes stated for routes that are gone"
    for route in api_routes(client.app):
        for method in route.methods & WRITE_METHODS:
            want = WRITE_SCOPES[(method, route.path)]
            expected = {want} if want in SCOPES else set()
            assert declared_scopes(route.dependant) == expected, (method, route.path)


def test_wrong_scope_403_none_or_bad_401_right_scope_passes(
        client: TestClient, scoped: dict[str, dict[str, str]]) -> None:
    checked = 0
    for (method, path), need in sorted(WRITE_SCOPES.items()):
        if need not in SCOPES:
            continue
        url = concrete(path)

        def call(headers: dict[str, str], method: str = method, url: str = url) -> Any:
            return client.request(method, url, headers=headers, json={})

        for headers in ({}, {"Authorization": "Bearer bb_not-a-token"},
                        {"Authorization": "Basic dXNlcjpwYXNz"}):
            r = call(headers)
            assert r.status_code == 401, (method, path, headers, r.text)
            assert r.json()["error"]["code"] == "unauthorized"
        for scope in SCOPES:
            r = call(scoped[scope])
            if scope == need or scope == "admin":
                assert r.status_code not in (401, 403), (method, path, scope, r.text)
            else:
                assert r.status_code == 403, (method, path, scope, r.text)
                assert f"needs a {need} token" in r.json()["error"]["message"]
            checked += 1
    assert checked == 3 * sum(1 for s in WRITE_SCOPES.values() if s in SCOPES)


def test_public_writes_need_no_token(client: TestClient) -> None:
    for (method, path), need in WRITE_SCOPES.items():
        if need == "public":
            r = client.request(method, concrete(path), json={})
            assert r.status_code == 422, (path, r.text)  # the body, not a token, is refused


def test_revoked_token_is_401(client: TestClient, session: Any) -> None:
    from basketbench.core.tokens import revoke_token

    _, plain = create_token(session, "gone", "admin")
    revoke_token(session, "gone")
    r = client.post("/api/v1/trigger", json={}, headers={"Authorization": f"Bearer {plain}"})
    assert r.status_code == 401


def test_machine_token_limited_to_tags(client: TestClient, session: Any,
                                       scoped: dict[str, dict[str, str]]) -> None:
    _, plain = create_token(session, "haswell-only", "machine", ["haswell"])
    mine = {"Authorization": f"Bearer {plain}"}
    runs = client.post("/api/v1/trigger", headers=scoped["user"], json={
        "commits": ["a" * 40], "tags": ["haswell", "epyc"]}).json()["run_ids"]
    tags = {client.get(f"/api/v1/runs/{r}").json()["tag"]: r for r in runs}
    refused = client.post(f"/api/v1/runs/{tags['epyc']}/claim", headers=mine,
                          json={"generation": 0})
    assert refused.status_code == 403 and "not 'epyc'" in refused.text
    assert client.get(f"/api/v1/runs/{tags['epyc']}").json()["status"] == "queued"
    taken = client.post(f"/api/v1/runs/{tags['haswell']}/claim", headers=mine,
                        json={"generation": 0})
    assert taken.status_code == 200, taken.text
    # another machine token may not report on the claimed run; the claimer may
    other = client.patch(f"/api/v1/runs/{tags['haswell']}", headers=scoped["machine"],
                         json={"progress": 0.5})
    assert other.status_code == 403
    assert client.patch(f"/api/v1/runs/{tags['haswell']}", headers=mine,
                        json={"progress": 0.5}).status_code == 200
    assert client.post("/api/v1/machines", headers=mine, json={
        "name": "m", "tag": "epyc", "fingerprint": {"arch": "x86_64"}}).status_code == 403



def test_tag_limited_token_uploads_for_its_tags_only(client: TestClient, session: Any) -> None:
    """Results of another tag's machine are refused whole (nothing stored); its own pass."""
    from bb_factories import document

    _, plain = create_token(session, "haswell-uploader", "machine", ["haswell"])
    mine = {"Authorization": f"Bearer {plain}"}
    refused = client.post("/api/v1/results", headers=mine,
                          json=document(commit="c" * 40, machine="epyc-01", tag="epyc"))
    assert refused.status_code == 403 and "not 'epyc'" in refused.text
    names = [m["name"] for m in client.get("/api/v1/machines").json()["items"]]
    assert "epyc-01" not in names
    stored = client.post("/api/v1/results", headers=mine,
                         json=document(commit="c" * 40, machine="haswell-01", tag="haswell"))
    assert stored.status_code == 201, stored.text

def test_scopes_cannot_be_mixed_up(session: Any) -> None:
    from basketbench.core.errors import Invalid

    with pytest.raises(Invalid):
        create_token(session, "x", "root")
    with pytest.raises(Invalid):
        create_token(session, "x", "user", ["haswell"])


def test_an_app_without_scoped_writes_fails_the_check(settings: Any) -> None:
    """The guard itself: a write route declared with the scope-less TokenDep is caught."""
    from basketbench.web.deps import TokenDep

    app = create_app(settings)

    @app.post("/api/v1/unscoped")
    def unscoped(_token: TokenDep) -> None:
        return None

    assert ("POST", "/api/v1/unscoped") in write_routes(app) - WRITE_SCOPES.keys()
