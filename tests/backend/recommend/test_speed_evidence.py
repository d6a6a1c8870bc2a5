"""GET /recommend/speeds: the speeds the Recommend page ranks with and their evidence, and
POST /recommend's stability when the speed samples come along (issue 32, item 5)."""

from __future__ import annotations

import statistics

from basketbench.models import AbEffect, AbRun, Commit, Configuration, Dataset, Machine
from bb_factories import document, post_result_document
from sqlalchemy import select

COMMIT, REFERENCE = "a" * 40, "b" * 40
Q = {"machine": "bench-01", "dataset": "nanoaod"}


def test_one_run_is_this_runs_speeds_without_stability(client, auth) -> None:
    post_result_document(client, auth, document(commit=COMMIT, seed=1))
    r = client.get("/api/v1/recommend/speeds", params={**Q, "commit": COMMIT})
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["source"] == "this-run" and "measured once" in out["description"]
    assert all(s["compress_samples"] is None for s in out["speeds"])
    ranked = client.post("/api/v1/recommend", headers=auth, json={"candidates": out["speeds"]})
    assert ranked.status_code == 200 and ranked.json()["stability"] is None


def test_two_runs_at_different_loads_are_the_median_and_resampled(client, auth) -> None:
    post_result_document(client, auth, document(commit=COMMIT, seed=1))
    post_result_document(client, auth, document(commit=COMMIT, seed=2, scale=0.4))  # loaded
    out = client.get("/api/v1/recommend/speeds", params={**Q, "commit": COMMIT}).json()
    assert out["source"] == "history" and "2 runs" in out["description"]
    zstd = next(s for s in out["speeds"] if s["setting"] == 505)
    assert len(zstd["compress_samples"]) == 2
    assert zstd["compress_mb_s"] == statistics.median(zstd["compress_samples"])
    ranked = client.post("/api/v1/recommend", headers=auth,
                         json={"candidates": out["speeds"]}).json()
    stability = ranked["stability"]
    assert stability["resamples"] == 200
    assert abs(sum(w["share"] for w in stability["winners"]) - 1.0) < 1e-9
    assert stability["statement"].startswith("stable: " if stability["stable"] else "unstable: ")
    if not stability["stable"]:
        assert ranked["summary"].startswith("No stable winner")


def test_an_ab_against_a_reference_calibrates_the_speeds(client, auth, session) -> None:
    post_result_document(client, auth, document(commit=REFERENCE, seed=3))
    post_result_document(client, auth, document(commit=COMMIT, seed=4, scale=0.3))  # loaded
    ids = {c.sha: c.id for c in session.scalars(select(Commit))}
    machine = session.scalar(select(Machine).where(Machine.name == "bench-01"))
    dataset = session.scalar(select(Dataset).where(Dataset.name == "nanoaod"))
    ab = AbRun(machine_id=machine.id, commit_id=ids[COMMIT], reference_kind="parent",
               reference_commit_id=ids[REFERENCE], reference_label="parent bbbbbbb",
               origin="pipeline", method={}, disturbed_fraction=0.0)
    session.add(ab)
    session.flush()
    configs = session.scalars(select(Configuration).where(
        Configuration.mode == "basket", Configuration.algorithm != 0)).all()
    for conf in configs:
        for metric in ("compress_mbps", "decompress_mbps"):
            session.add(AbEffect(ab_run_id=ab.id, dataset_id=dataset.id,
                                 configuration_id=conf.id, metric=metric, ratio=1.02,
                                 ci_low=1.0, ci_high=1.04, pairs=5, disturbed_pairs=0,
                                 samples=[1.0, 1.01, 1.02, 1.03, 1.04]))
    session.commit()
    out = client.get("/api/v1/recommend/speeds", params={**Q, "commit": COMMIT}).json()
    assert out["source"] == "ab" and "parent bbbbbbb" in out["description"]
    ref = client.get("/api/v1/recommend/speeds", params={**Q, "commit": REFERENCE}).json()
    ref_speed = {s["setting"]: s["compress_mb_s"] for s in ref["speeds"]}
    for s in out["speeds"]:
        # the reference's speed times the A/B ratio, not the loaded run's own MB/s
        assert abs(s["compress_mb_s"] - ref_speed[s["setting"]] * 1.02) < 1e-9
        assert len(s["compress_samples"]) == 5


def test_unknown_names_are_404(client) -> None:
    r = client.get("/api/v1/recommend/speeds", params={**Q, "commit": "f" * 40})
    assert r.status_code == 404
