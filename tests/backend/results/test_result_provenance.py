"""Every result says what measured it: codec set and measured versions, ROOT release or
commit, build profile, harness version and hash, machine version (issue 28)."""

from __future__ import annotations

import csv
import io
from typing import Any

from bb_factories import MACHINE, document, post_webhook, push_payload, sha
from changes_support import changes, ingest, make_doc
from sqlalchemy import text

RELEASE_LIBS = {"zlib": "1.3.1", "zstd": "1.5.7", "lz4": "1.10.0", "lzma": "5.8.2",
                "xxhash": "0.8.0"}
HARNESS_HASH = "0f" * 32


def release_document(commit: str) -> dict[str, Any]:
    """As a worker uploads a ROOT 6.40.00 measurement: the release's own codecs, the host's
    libraries in the fingerprint (what rzbench links), and how rzbench was built."""
    doc = document(commit=commit)
    doc["backend"] = "root"
    doc["codecs"] = {"set": "root-6.40.00", "root_version": "6.40.00",
                     "libraries": RELEASE_LIBS}
    doc["build"] = {"profile": "root-release", "profile_version": 1,
                    "harness_hash": HARNESS_HASH}
    return doc


def seed(client: Any, auth: dict[str, str]) -> tuple[str, str]:
    shas = [sha(i, "prov") for i in range(2)]
    assert post_webhook(client, "push", push_payload(shas), "prov").status_code == 202
    for doc in (release_document(shas[0]), document(commit=shas[1])):
        r = client.post("/api/v1/results", json=doc, headers=auth)
        assert r.status_code == 201, r.text
    return shas[0], shas[1]


def results(client: Any, **params: Any) -> list[dict[str, Any]]:
    r = client.get("/api/v1/results", params={"limit": 500, **params})
    assert r.status_code == 200, r.text
    items: list[dict[str, Any]] = r.json()["items"]
    return items


def test_items_carry_their_provenance(client, auth):
    release_sha, host_sha = seed(client, auth)
    items = results(client)
    by_commit = {i["commit"]: i["provenance"] for i in items}
    release, host = by_commit[release_sha], by_commit[host_sha]
    assert release == {
        "codec_set": "root-6.40.00", "codec_set_id": release["codec_set_id"],
        "measured_codecs": RELEASE_LIBS, "root_version": "6.40.00", "root_commit": None,
        "build_profile": "root-release", "build_profile_version": "1",
        "harness": "rzbench 0.1.0", "harness_hash": HARNESS_HASH, "harness_backend": "root",
        "machine_version": 1, "fingerprint_hash": release["fingerprint_hash"],
    }
    # one machine version measured both (codec sets are not part of the fingerprint)
    machines = client.get("/api/v1/machines").json()["items"]
    assert [m["fingerprint_hash"] for m in machines] == [release["fingerprint_hash"]]
    # the measured zstd is the release's, not the host's one the harness links
    assert release["measured_codecs"]["zstd"] != MACHINE["libraries"]["zstd"]
    # a document without `codecs` was measured with the host's libraries; no `build`: unknown
    assert host["codec_set"] == "host" and host["root_version"] is None
    assert host["measured_codecs"] == {**MACHINE["libraries"], "xxhash": None}
    assert host["build_profile"] is None and host["harness_hash"] is None
    assert host["harness_backend"] == "rootcompat"


def test_filters_by_codec_set_and_root_version(client, auth):
    release_sha, host_sha = seed(client, auth)
    everything = results(client)
    for params in ({"codec_set": "root-6.40.00"}, {"root_version": "6.40.00"},
                   {"root_version": "6.40.00", "codec_set": "root-6.40.00"}):
        page = client.get("/api/v1/results", params={**params, "limit": 500}).json()
        assert {i["commit"] for i in page["items"]} == {release_sha}, params
        assert page["total"] == len(page["items"]) == len(everything) // 2
    host = results(client, codec_set="host", setting=505)
    assert [i["commit"] for i in host] == [host_sha]
    for params, message in (({"codec_set": "root-6.99.00"}, "codec set 'root-6.99.00'"),
                            ({"root_version": "6.38.00"}, "ROOT version '6.38.00'"),
                            ({"codec_set": "host", "root_version": "6.40.00"},
                             "codec set 'host' and ROOT version '6.40.00'")):
        r = client.get("/api/v1/results", params=params)
        assert r.status_code == 404 and message in r.text, (params, r.text)
    r = client.get("/api/v1/results", params={"codec_set": "x" * 101})
    assert r.status_code == 422 and "codec_set" in r.text


def test_csv_export_keeps_the_provenance(client, auth):
    release_sha, _ = seed(client, auth)
    r = client.get("/api/v1/results", params={"format": "csv", "root_version": "6.40.00"})
    assert r.status_code == 200, r.text
    rows = list(csv.DictReader(io.StringIO(r.text)))
    assert rows and {row["commit"] for row in rows} == {release_sha}
    for row in rows:
        assert row["provenance.codec_set"] == "root-6.40.00"
        assert row["provenance.measured_codecs.zstd"] == "1.5.7"
        assert row["provenance.root_version"] == "6.40.00"
        assert row["provenance.build_profile"] == "root-release"
        assert row["provenance.harness_hash"] == HARNESS_HASH
        assert row["provenance.machine_version"] == "1"


def test_bad_build_blocks_are_refused_naming_the_field(client, auth):
    (c,) = [sha(9, "prov")]
    assert post_webhook(client, "push", push_payload([c]), "prov-bad").status_code == 202
    for build, field in (({"harness_hash": "not-hex"}, "harness_hash"),
                         ({"profile": "p" * 101}, "profile"),
                         ({"profile_version": "v" * 51}, "profile_version"),
                         ({"profile": 7}, "profile")):
        doc = document(commit=c)
        doc["build"] = build
        r = client.post("/api/v1/results", json=doc, headers=auth)
        assert r.status_code == 422 and field in r.text, (build, r.text)
    assert results(client) == []


def test_history_points_compare_sides_and_changes_name_their_build(client, auth):
    """Three commits, each measured by a differently built harness (its sources changed),
    with a 2 % ZSTD-5 size step at the third: every view names the build of its numbers."""
    hashes = [f"{i:x}" * 64 for i in (10, 11, 12)]
    for i, size in ((0, 1.0), (1, 1.0), (2, 1.02)):
        doc = make_doc(i, size_scale=size)
        doc["build"] = {"profile": "cmake-zip", "profile_version": "3",
                        "harness_hash": hashes[i]}
        doc["root_commit"] = sha(i)
        doc["backend"] = "root"
        ingest(client, auth, doc)
    expected = [{"harness": "rzbench 0.1.0", "harness_backend": "root",
                 "harness_hash": hashes[i], "build_profile": "cmake-zip",
                 "build_profile_version": "3", "root_commit": sha(i)} for i in range(3)]

    history = client.get("/api/v1/history", params={
        "machine": "bench-01", "dataset": "nanoaod", "setting": 505,
        "metric": "compressed_bytes"}).json()
    # by reference: each build listed once, each point naming its own
    builds = {b.pop("id"): b for b in history["builds"]}
    assert len(builds) == 3
    assert [builds[p["build_id"]] for p in history["points"]] == expected

    cmp = client.get("/api/v1/compare", params={
        "base_commit": sha(1), "head_commit": sha(2), "machine": "bench-01"}).json()
    assert cmp["base"]["builds"] == [expected[1]] and cmp["head"]["builds"] == [expected[2]]
    assert cmp["head"]["machine"]["version"] == 1 and cmp["head"]["codecs"]["set"] == "host"

    found = changes(client, metric="compressed_bytes")
    assert found and {c["commit"]["sha"] for c in found} == {sha(2)}
    assert all(c["build"] == expected[2] for c in found)
    detail = client.get(f"/api/v1/changes/{found[0]['id']}").json()
    assert detail["build"] == expected[2]
    assert all(r["build"] == expected[2] for r in detail["related"])


def test_a_build_is_stored_once_and_a_commit_measured_again_shows_its_newest(client, auth,
                                                                             session):
    """Documents built alike share one builds row (migration 0043). Commit 0 measured by
    build A, then again by B, and commit 1 by B: both points name B, and A, which no point
    shows any more, is not listed."""
    a, b = ({"profile": "cmake-zip", "profile_version": "3", "harness_hash": f"{i:x}" * 64}
            for i in (10, 11))
    for i, build in ((0, a), (0, b), (1, b)):
        doc = make_doc(i, seed=len(build["harness_hash"]) + i)
        doc["build"] = build
        ingest(client, auth, doc)
    stored = session.execute(text(
        "SELECT builds.harness_hash, count(*) FROM builds JOIN result_documents d "
        "ON d.build_id = builds.id GROUP BY builds.harness_hash")).all()
    assert sorted(stored) == [(a["harness_hash"], 1), (b["harness_hash"], 2)]

    history = client.get("/api/v1/history", params={
        "machine": "bench-01", "dataset": "nanoaod", "setting": 505,
        "metric": "compressed_bytes"}).json()
    assert [x["harness_hash"] for x in history["builds"]] == [b["harness_hash"]]
    assert [p["build_id"] for p in history["points"]] == [0, 0]
