"""Issue 38: a run's advice is stored only by the worker (machine token) that claimed the
run, and only as a complete advice document (what `basketbench advise --json` writes)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from basketbench.core.tokens import create_token
from fastapi.testclient import TestClient

ADVICE = json.loads((Path(__file__).parents[2] / "fixtures" / "advise-hzz-zlib.json").read_text())


def bearer(session: Any, name: str, scope: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {create_token(session, name, scope)[1]}"}


def test_only_the_claiming_worker_stores_a_complete_advice(client: TestClient,
                                                           session: Any) -> None:
    user, worker, other = (bearer(session, n, s) for n, s in
                           (("u", "user"), ("w1", "machine"), ("w2", "machine")))
    assert client.post("/api/v1/trigger", headers=user,
                       json={"commits": ["b" * 40], "tags": ["t"]}).status_code == 202
    run = client.post("/api/v1/advise", headers=user,
                      json={"tag": "t", "path": "f.root"}).json()["run_id"]
    url = f"/api/v1/advise/{run}"

    queued = client.put(url, headers=worker, json=ADVICE)
    assert queued.status_code == 409 and "not claimed" in queued.text
    assert client.put(url, headers=user, json=ADVICE).status_code == 403  # not a machine
    generation = client.get(f"/api/v1/runs/{run}").json().get("generation", 0)
    assert client.post(f"/api/v1/runs/{run}/claim", headers=worker,
                       json={"generation": generation}).status_code == 200
    assert client.put(url, headers=other, json=ADVICE).status_code == 403
    for partial in ({"measured": [{"setting": 1}]},
                    {**ADVICE, "measured": [{**ADVICE["measured"][0], "setting": 301}]},
                    {**ADVICE, "recommended": "999"},
                    {k: v for k, v in ADVICE.items() if k != "ranking"}):
        r = client.put(url, headers=worker, json=partial)
        assert r.status_code == 422, r.text
    assert client.get(url).status_code == 404  # nothing half stored
    assert client.put(url, headers=worker, json=ADVICE).status_code == 204
    stored = client.get(url).json()
    assert stored["recommended"] == ADVICE["recommended"]
    assert stored["branches"] == ADVICE["branches"]  # kept whole
