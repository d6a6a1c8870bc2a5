"""Issue 22: bounded validation of hostile result documents, created_at, repeated results,
run updates with explicit nulls."""

from __future__ import annotations

import copy

from basketbench.measure.document.contract import MAX_LISTED, MAX_RESULTS, validate_document
from basketbench.measure.document.validation import validate_result_document
from basketbench.models import Result, ResultDocument
from bb_factories import document
from sqlalchemy import func, select


def count(session, model) -> int:
    session.expire_all()
    return session.scalar(select(func.count()).select_from(model))


def test_many_invalid_results_list_the_first_problems_and_count_the_rest(client, auth,
                                                                         session):
    doc = document()
    doc["results"] = [{} for _ in range(2000)]
    r = client.post("/api/v1/results", json=doc, headers=auth)
    assert r.status_code == 422
    details = r.json()["error"]["details"]
    assert len(details) == MAX_LISTED + 1
    assert details[0].startswith("$.results[0]: 'dataset' is a required property"), details[0]
    assert details[-1] == (f"... listing stopped at {MAX_LISTED} problems; "
                           "2000 of 2000 results are invalid")
    assert len(r.content) < 5000  # was 1.85 MB for 2 000 entries
    assert count(session, ResultDocument) == 0


def test_result_count_is_checked_before_any_per_result_work():
    doc = document()
    doc["results"] = [{}] * (MAX_RESULTS + 1)
    assert validate_result_document(doc) == [
        f"$.results: {MAX_RESULTS + 1} results, more than the {MAX_RESULTS} one document "
        "may hold; split it"]


def test_semantic_problems_are_capped_too():
    doc = document()
    for r in doc["results"]:
        r["dataset"] = "elsewhere"
    doc["results"] = [copy.deepcopy(doc["results"][0]) for _ in range(50)]
    errors = validate_result_document(doc)
    assert len(errors) == MAX_LISTED + 1
    assert errors[-1] == f"... and {50 - MAX_LISTED} more problems not listed"
    assert validate_document(doc) == errors


def test_garbage_created_at_is_refused(client, auth, session):
    for bad in ("yesterday", "2026-13-40T99:99:99Z", "2026-11-20", "2026-11-20T12:00:00"):
        doc = document()
        doc["created_at"] = bad
        r = client.post("/api/v1/results", json=doc, headers=auth)
        assert r.status_code == 422, bad
        assert any(d.startswith("$.created_at:") for d in r.json()["error"]["details"]), bad
    assert count(session, ResultDocument) == 0
    doc = document()
    doc["created_at"] = "2026-11-20T13:00:00.25+01:00"
    r = client.post("/api/v1/results", json=doc, headers=auth)
    assert r.status_code == 201, r.text
    stored = session.scalar(select(ResultDocument))
    assert stored.created_at.isoformat() == "2026-11-20T12:00:00.250000+00:00"


def test_repeated_results_are_refused(client, auth, session):
    doc = document()
    doc["results"].append(copy.deepcopy(doc["results"][1]))
    r = client.post("/api/v1/results", json=doc, headers=auth)
    assert r.status_code == 422
    n = len(doc["results"]) - 1
    assert r.json()["error"]["details"] == [
        f"results/{n}: same dataset and configuration as results/1"]
    assert count(session, Result) == 0 and count(session, ResultDocument) == 0


def test_run_update_with_null_for_a_required_column_is_422(client, auth, session):
    r = client.post("/api/v1/trigger", json={"commits": ["a" * 40], "tags": ["haswell"]},
                    headers=auth)
    assert r.status_code in (201, 202), r.text
    run_id = client.get("/api/v1/runs", headers=auth).json()["items"][0]["id"]
    for field in ("status", "progress", "attempts", "timings"):
        r = client.patch(f"/api/v1/runs/{run_id}", json={field: None}, headers=auth)
        assert r.status_code == 422, (field, r.text)
        assert field in r.text
    r = client.patch(f"/api/v1/runs/{run_id}", json={"stage": None, "log_tail": None},
                     headers=auth)
    assert r.status_code == 200 and r.json()["status"] == "queued"
