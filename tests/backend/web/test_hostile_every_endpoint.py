"""Issue 38's outside probe, the cheap part kept in the suite: every write endpoint of the
app (read from its routes) gets hostile bodies with an admin token and without one. None
answers 5xx, and no answer holds a traceback or an absolute path of this machine."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from fastapi import routing
from fastapi.testclient import TestClient

WRITE_METHODS = {"POST", "PUT", "PATCH", "DELETE"}
REPO = str(Path(__file__).resolve().parents[3])
HOSTILE: list[tuple[str, bytes]] = [
    ("not JSON", b"{'a': 1,"),
    ("empty", b""),
    ("null", b"null"),
    ("a list", b"[1, 2, 3]"),
    ("a string", b'"x"'),
    ("huge number", b'{"change_ids": [1e400], "generation": 1e400, "candidates": 1e400}'),
    ("lone surrogate", b'{"name": "\\ud800", "tag": "\\udfff", "path": "\\ud800"}'),
    ("deep", b'{"a":' * 200 + b"1" + b"}" * 200),
    ("wrong types", b'{"commits": 5, "tags": {"a": 1}, "status": [], "fingerprint": "x",'
                    b' "groups": "x", "speeds": 1, "measured": {"setting": "x"}}'),
    ("long string", b'{"name": "' + b"x" * 200_000 + b'", "path": "' + b"y" * 200_000 + b'"}'),
    ("control bytes", b'{"name": "a\\u0000b", "path": "a\\u0000b", "tag": "t\\u0000"}'),
]


def write_routes(app: Any) -> list[tuple[str, str]]:
    contexts = getattr(routing, "iter_route_contexts", None)
    routes = contexts(app.routes) if contexts is not None else app.routes
    return sorted({(m, r.path) for r in routes if hasattr(r, "dependant") and r.methods
                   for m in r.methods & WRITE_METHODS})


def concrete(path: str) -> str:
    return re.sub(r"\{(\w+)(?::\w+)?\}",
                  lambda m: "hostile-tag" if m.group(1) == "tag" else "1", path)


def clean(text: str) -> bool:
    return "Traceback" not in text and REPO not in text and not re.search(
        r"(?<![\w.:/-])/(home|root|work|tmp|var|usr|opt|srv)/[\w.-]+/", text)


@pytest.mark.parametrize("with_token", [True, False])
def test_hostile_bodies_on_every_write_endpoint(client: TestClient, auth: dict[str, str],
                                                with_token: bool) -> None:
    headers = {"Content-Type": "application/json", **(auth if with_token else {})}
    routes = write_routes(client.app)
    assert len(routes) >= 18
    seen = 0
    for method, path in routes:
        for name, body in HOSTILE:
            r = client.request(method, concrete(path), content=body, headers=headers)
            assert r.status_code < 500, (method, path, name, r.status_code, r.text[:300])
            assert clean(r.text), (method, path, name, r.text[:500])
            seen += 1
    assert seen == len(routes) * len(HOSTILE)
