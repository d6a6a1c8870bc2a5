"""Speeds left out of detection are said (issue 32): a document measured on a busy
machine has its speeds left out of the screen, and /health (per tag) and the runs listing
(per run) say so and why; a quiet machine is not listed."""

from __future__ import annotations

from basketbench.models import Commit, Run
from bb_factories import document, post_webhook, push_payload, sha
from changes_support import ingest, runs, with_load_record
from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import Session


def test_health_and_runs_say_which_speeds_detection_left_out_and_why(
        client: TestClient, auth: dict[str, str], session: Session) -> None:
    shas = [sha(i, "ex") for i in range(2)]
    assert post_webhook(client, "push", push_payload(shas), "ex").status_code == 202
    assert client.get("/api/v1/health").json()["speed_exclusions"] == []
    made = [Run(commit_id=session.scalar(select(Commit.id).where(Commit.sha == s)),
                tag="haswell", trigger="manual", status="running") for s in shas]
    session.add_all(made)
    session.commit()
    quiet, busy = ({"id": r.id} for r in made)
    ingest(client, auth, with_load_record(document(commit=shas[0], run_id=quiet["id"]), False))
    ingest(client, auth, with_load_record(document(commit=shas[1], run_id=busy["id"]), True))

    [tag] = client.get("/api/v1/health").json()["speed_exclusions"]
    assert tag["tag"] == "haswell" and tag["excluded_documents"] == 1
    assert tag["recent_documents"] == 2
    assert tag["reasons"][0].startswith("load average 3.50 at start")
    assert "left out of change detection" in tag["note"]
    assert "detection_skip_busy_runs" in tag["note"]

    listed = {r["id"]: r for r in runs(client)}
    assert listed[quiet["id"]]["speed_excluded"] is None
    note = listed[busy["id"]]["speed_excluded"]
    assert note.startswith("speeds left out of change detection: measured on a busy machine")
    assert "load average 3.50" in note
