"""POST /ab-runs (a worker's A/B stage uploads a basketbench-ab-v1 document) and GET /ab-runs:
strict validation with reasons, idempotent resubmission, nothing half-written."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from basketbench.models import AbEffect, AbRun, Configuration
from bb_factories import document, post_result_document, post_webhook, push_payload, sha
from sqlalchemy import func, select


def ab_document(ratio: float = 0.98) -> dict[str, Any]:
    def estimate(r: float) -> dict[str, Any]:
        samples = [r * f for f in (0.995, 0.998, 1.0, 1.001, 1.004, 0.999, 1.002)]
        return {"ratio": r, "ci_low": r * 0.997, "ci_high": r * 1.003, "pairs": 7,
                "disturbed_pairs": 1, "samples": samples}

    return {
        "schema": "basketbench-ab-v1",
        "a": {"build": "/cache/aaaa", "label": "parent", "codec_versions": {"zlib": "1.2.13"}},
        "b": {"build": "/cache/bbbb", "label": "commit", "codec_versions": {"zlib": "1.2.13"}},
        "method": {"order": "ABBA", "ratio": "median of per-pair ratios B/A",
                   "ci": "distribution-free order statistics", "confidence": 0.95,
                   "disturbed_rule": "cpu/wall < 0.9 or involuntary switches > 2",
                   "repetitions_per_pair": 3},
        "load": {"loadavg_start": [4.1, 3.0, 2.0], "loadavg_end": [4.3, 3.1, 2.1]},
        "disturbed_fraction": 0.125,
        "results": [
            {"dataset": "event", "setting": 101, "compressed_bytes": {"a": 1000, "b": 1000},
             "roundtrip_ok": True, "compress": estimate(ratio), "decompress": estimate(1.0)},
            {"dataset": "hzz", "setting": 505, "compressed_bytes": {"a": 900, "b": 900},
             "roundtrip_ok": True, "compress": estimate(1.0), "decompress": estimate(1.0)},
        ],
    }


@pytest.fixture
def machine_and_commits(client: Any, auth: dict[str, str]) -> tuple[int, str, str]:
    parent, child = sha(1, "ab"), sha(2, "ab")
    assert post_webhook(client, "push", push_payload([parent, child]), "ab").status_code == 202
    stored = post_result_document(client, auth, document(commit=child))
    return int(stored["machine_id"]), parent, child


def upload(machine_id: int, parent: str, child: str, **extra: Any) -> dict[str, Any]:
    return {"machine_id": machine_id, "commit": child,
            "reference": {"kind": "parent", "commit": parent}, "origin": "pipeline",
            "codecs": {"set": "host", "libraries": {"zlib": "1.2.13"}},
            "document": ab_document(), **extra}


def test_upload_stores_one_run_and_its_effects_and_is_idempotent(
        client: Any, auth: dict[str, str], session: Any,
        machine_and_commits: tuple[int, str, str]) -> None:
    machine_id, parent, child = machine_and_commits
    body = upload(machine_id, parent, child)
    first = client.post("/api/v1/ab-runs", json=body, headers=auth)
    assert first.status_code == 201, first.text
    assert first.json()["effects"] == 4 and first.json()["duplicate"] is False
    again = client.post("/api/v1/ab-runs", json=body, headers=auth)
    assert again.status_code == 200, again.text
    assert again.json() == {**first.json(), "duplicate": True}
    assert session.scalar(select(func.count()).select_from(AbRun)) == 1
    assert session.scalar(select(func.count()).select_from(AbEffect)) == 4
    # the effects sit on the plain configurations the pipeline's own results use
    confs = session.scalars(select(Configuration).join(
        AbEffect, AbEffect.configuration_id == Configuration.id)).all()
    assert {(c.setting, c.codec, c.preconditioner, c.threads) for c in confs} == {
        (101, "zlib", "none", 1), (505, "zstd", "none", 1)}

    page = client.get("/api/v1/ab-runs", params={"machine": machine_id, "commit": child})
    assert page.status_code == 200, page.text
    [item] = page.json()["items"]
    assert item["reference_kind"] == "parent" and item["reference_commit"] == parent
    assert item["commit"] == child and item["origin"] == "pipeline"
    assert item["codec_set"] == "host" and item["disturbed_fraction"] == 0.125
    assert item["load"]["loadavg_start"] == [4.1, 3.0, 2.0]
    effect = next(e for e in item["effects"] if e["dataset"] == "event"
                  and e["metric"] == "compress_mbps")
    assert effect["ratio"] == pytest.approx(0.98) and effect["pairs"] == 7
    assert effect["configuration"] == "ZLIB-1" and len(effect["samples"]) == 7
    assert client.get("/api/v1/ab-runs", params={"commit": parent}).json()["total"] == 0
    assert client.get("/api/v1/ab-runs", params={"reference": parent}).json()["total"] == 1
    assert client.get("/api/v1/ab-runs", params={"machine": "nobody"}).status_code == 404


@pytest.mark.parametrize("change, reason", [
    (lambda b: b["document"].update(schema="basketbench-ab-v2"), "document/schema"),
    (lambda b: b["document"]["results"][0]["compress"].update(ci_low=0.99, ci_high=0.995),
     "does not hold the ratio"),
    (lambda b: b["document"]["results"][0].update(setting=1234), "not a compression setting"),
    (lambda b: b["document"]["results"].append(copy.deepcopy(b["document"]["results"][0])),
     "same dataset and setting"),
    (lambda b: b["document"]["results"][0]["compress"].update(pairs=-1), "pairs"),
    (lambda b: b["document"]["results"][0]["compress"]["samples"].append(-2.0),
     "positive finite"),
    (lambda b: b.update(reference={"kind": "parent"}), "names its commit"),
    (lambda b: b.update(reference={"kind": "release"}), "names its release"),
    (lambda b: b.update(reference={"kind": "bare"}), "names its context"),
    (lambda b: b.update(reference={"kind": "bare", "label": "reused context",
                                   "commit": b["commit"]}), "no commit"),
    (lambda b: b.update(commit="xyz"), "commit"),
    (lambda b: b["document"].update(disturbed_fraction=1.5), "disturbed_fraction"),
    (lambda b: b.update(surprise=1), "surprise"),
    (lambda b: b.update(machine_id=999999), "no machine 999999"),
])
def test_bad_uploads_are_422_with_a_reason_and_store_nothing(
        client: Any, auth: dict[str, str], session: Any,
        machine_and_commits: tuple[int, str, str], change: Any, reason: str) -> None:
    body = upload(*machine_and_commits)
    change(body)
    answer = client.post("/api/v1/ab-runs", json=body, headers=auth)
    assert answer.status_code == 422, answer.text
    assert reason in answer.text
    assert session.scalar(select(func.count()).select_from(AbRun)) == 0


def test_upload_needs_a_token_and_a_known_run(
        client: Any, auth: dict[str, str], machine_and_commits: tuple[int, str, str]) -> None:
    body = upload(*machine_and_commits)
    assert client.post("/api/v1/ab-runs", json=body).status_code == 401
    answer = client.post("/api/v1/ab-runs", json={**body, "run_id": 424242}, headers=auth)
    assert answer.status_code == 422 and "no run 424242" in answer.text
    broken = client.post("/api/v1/ab-runs", content=b"{not json", headers=auth)
    assert broken.status_code in (400, 422) and "Traceback" not in broken.text


def test_a_commits_headroom_is_an_ab_run_against_the_bare_library(
        client: Any, auth: dict[str, str], session: Any,
        machine_and_commits: tuple[int, str, str]) -> None:
    """The worker's headroom stage uploads ROOT's framed path (A) against the bare codec
    library (B) as an A/B run of the commit with reference kind "bare": stored and listed like
    any A/B, never taken for evidence between commits (no reference commit)."""
    machine_id, _, child = machine_and_commits
    body = {"machine_id": machine_id, "commit": child,
            "reference": {"kind": "bare", "label": "bare library, reused context"},
            "origin": "pipeline", "document": ab_document(ratio=1.4)}
    answer = client.post("/api/v1/ab-runs", json=body, headers=auth)
    assert answer.status_code == 201, answer.text
    [item] = client.get("/api/v1/ab-runs", params={"commit": child}).json()["items"]
    assert item["reference_kind"] == "bare" and item["reference_commit"] is None
    assert item["reference_label"] == "bare library, reused context"
    stored = session.scalars(select(AbRun)).one()
    assert stored.reference_kind == "bare" and stored.reference_commit_id is None
