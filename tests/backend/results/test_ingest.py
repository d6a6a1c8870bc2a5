"""POST /results (harness JSON) and /results/gbench."""

from __future__ import annotations

import copy

from basketbench.catalog.machines import fingerprint_hash
from basketbench.models import Configuration, Dataset, Machine, Result, ResultDocument, Run
from bb_factories import MACHINE, document
from sqlalchemy import func, select


def count(session, model) -> int:
    session.expire_all()
    return session.scalar(select(func.count()).select_from(model))


def test_ingest_stores_every_result_and_links_dimensions(client, auth, session):
    r = client.post("/api/v1/results", json=document(datasets=("nanoaod", "physlite")),
                    headers=auth)
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["results"] == 10 and body["duplicate"] is False
    assert body["commit"] == "a" * 40
    assert count(session, Result) == 10
    assert count(session, Dataset) == 2
    assert count(session, Configuration) == 5
    m = session.scalar(select(Machine))
    # Identity is computed by the API without the codec libraries, not taken from the document.
    assert (m.name, m.tag, m.version, m.fingerprint_hash) == ("bench-01", "haswell", 1,
                                                             fingerprint_hash(MACHINE))
    row = session.scalar(select(Result).join(Configuration).where(Configuration.setting == 505)
                         .limit(1))
    assert row.c_n == 9 and len(row.c_samples) == 9 and row.c_min <= row.c_median <= row.c_max
    assert row.ratio == 1_000_000 / 350_000


def test_same_document_twice_stores_one_copy(client, auth, session):
    doc = document()
    first = client.post("/api/v1/results", json=doc, headers=auth)
    second = client.post("/api/v1/results", json=copy.deepcopy(doc), headers=auth)
    assert first.status_code == 201 and second.status_code == 200
    assert second.json()["duplicate"] is True
    assert second.json()["document_id"] == first.json()["document_id"]
    assert count(session, Result) == 5 and count(session, ResultDocument) == 1


def test_key_order_does_not_defeat_idempotency(client, auth, session):
    doc = document()
    reordered = dict(reversed(list(doc.items())))
    assert client.post("/api/v1/results", json=doc, headers=auth).status_code == 201
    assert client.post("/api/v1/results", json=reordered, headers=auth).status_code == 200
    assert count(session, Result) == 5


def test_bad_document_gets_every_reason_and_stores_nothing(client, auth, session):
    doc = document()
    doc["results"][0]["ratio"] = -1
    del doc["results"][1]["codec"]
    doc["results"][2]["preconditioner"] = "zigzag"
    del doc["machine"]["kernel"]
    r = client.post("/api/v1/results", json=doc, headers=auth)
    assert r.status_code == 422
    err = r.json()["error"]
    assert err["code"] == "invalid"
    text = "\n".join(err["details"])
    for needle in ("ratio", "codec", "zigzag", "kernel"):
        assert needle in text, text
    assert len(err["details"]) >= 4
    for model in (Result, ResultDocument, Dataset, Configuration, Machine):
        assert count(session, model) == 0


def test_semantic_errors_are_reported(client, auth, session):
    doc = document()
    doc["results"][0]["dataset"] = "unknown-dataset"
    r = client.post("/api/v1/results", json=doc, headers=auth)
    assert r.status_code == 422
    assert any("unknown-dataset" in d for d in r.json()["error"]["details"])
    assert count(session, Result) == 0


def test_not_json_and_not_object(client, auth, session):
    r = client.post("/api/v1/results", content=b"{nope", headers={
        **auth, "Content-Type": "application/json"})
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_request"
    r = client.post("/api/v1/results", json=[1, 2], headers=auth)
    assert r.status_code == 422
    assert count(session, ResultDocument) == 0


def test_ingest_needs_a_valid_token(client, session):
    assert client.post("/api/v1/results", json=document()).status_code == 401
    r = client.post("/api/v1/results", json=document(),
                    headers={"Authorization": "Bearer bb_wrong"})
    assert r.status_code == 401 and r.json()["error"]["code"] == "unauthorized"
    assert count(session, ResultDocument) == 0


def test_revoked_token_is_refused(client, session, token, auth):
    from basketbench.core.tokens import revoke_token

    revoke_token(session, "tests")
    assert client.post("/api/v1/results", json=document(), headers=auth).status_code == 401


def test_commit_and_machine_from_query_parameters(client, auth, session):
    doc = document(commit=None, machine=None, tag=None)
    r = client.post("/api/v1/results?commit=" + "b" * 40 + "&machine=epyc-01&tag=epyc",
                    json=doc, headers=auth)
    assert r.status_code == 201, r.text
    m = session.get(Machine, r.json()["machine_id"])
    assert (m.name, m.tag) == ("epyc-01", "epyc")
    assert r.json()["commit"] == "b" * 40


def test_unknown_short_sha_is_422(client, auth, session):
    r = client.post("/api/v1/results", json=document(commit="abc1234"), headers=auth)
    assert r.status_code == 422 and "40-character" in r.json()["error"]["message"]
    assert count(session, ResultDocument) == 0


def test_missing_commit_is_422_and_stores_nothing(client, auth, session):
    r = client.post("/api/v1/results", json=document(commit=None), headers=auth)
    assert r.status_code == 422
    assert "commit" in r.json()["error"]["message"]
    assert count(session, ResultDocument) == 0 and count(session, Machine) == 0


def test_changed_fingerprint_is_a_new_machine_version(client, auth, session):
    assert client.post("/api/v1/results", json=document(), headers=auth).status_code == 201
    doc = document(commit="c" * 40)
    doc["machine"]["kernel"] = "6.5.0"
    doc["machine"]["fingerprint_hash"] = "ffff0000ffff0000"
    r = client.post("/api/v1/results", json=doc, headers=auth)
    assert r.status_code == 201
    versions = session.execute(select(Machine.version, Machine.active)
                               .order_by(Machine.version)).all()
    assert [tuple(v) for v in versions] == [(1, False), (2, True)]


def test_run_link_counts_results(client, auth, session):
    trig = client.post("/api/v1/trigger", json={"commits": ["d" * 40], "tags": ["haswell"]},
                       headers=auth)
    run_id = trig.json()["run_ids"][0]
    r = client.post("/api/v1/results", json=document(commit=None, run_id=run_id), headers=auth)
    assert r.status_code == 201, r.text
    assert r.json()["run_id"] == run_id and r.json()["commit"] == "d" * 40
    run = client.get(f"/api/v1/runs/{run_id}").json()
    assert run["result_count"] == 5 and run["machine"] == "bench-01"
    listed = client.get(f"/api/v1/results?run={run_id}").json()
    assert listed["total"] == 5


def test_unknown_run_is_422(client, auth, session):
    r = client.post("/api/v1/results", json=document(run_id=999), headers=auth)
    assert r.status_code == 422
    assert count(session, Result) == 0 and count(session, Run) == 0


GBENCH = {
    "context": {"date": "2026-11-20T10:00:00+00:00", "host_name": "ci-box",
                "executable": "./rootbench", "num_cpus": 2, "mhz_per_cpu": 2900,
                "cpu_scaling_enabled": False, "library_build_type": "release",
                "caches": [{"type": "Data", "level": 1, "size": 32768, "num_sharing": 1}]},
    "benchmarks": [
        *[{"name": "BM_Compress/505/32000", "run_name": "BM_Compress/505/32000",
           "run_type": "iteration", "repetitions": 3, "repetition_index": i,
           "iterations": 100, "real_time": 1.0, "cpu_time": 1.0, "time_unit": "ms",
           "bytes_per_second": 150e6 + i * 1e6, "compressed_bytes": 9000,
           "uncompressed_bytes": 32000} for i in range(3)],
        *[{"name": "BM_Decompress/505/32000", "run_name": "BM_Decompress/505/32000",
           "run_type": "iteration", "repetitions": 3, "repetition_index": i,
           "iterations": 100, "real_time": 1.0, "cpu_time": 1.0, "time_unit": "ms",
           "bytes_per_second": 900e6 + i * 1e6} for i in range(3)],
        {"name": "BM_Compress/505/32000_mean", "run_name": "BM_Compress/505/32000",
         "run_type": "aggregate", "aggregate_name": "mean", "bytes_per_second": 151e6},
        {"name": "BM_Compress/threads:2", "run_type": "iteration", "bytes_per_second": 1e6,
         "label": "setting=404 preconditioner=shuffle dataset=offsets"},
        {"name": "BM_Setup", "run_type": "iteration", "real_time": 1.0},
    ],
}


def test_gbench_maps_benchmarks_to_configurations(client, auth, session):
    r = client.post("/api/v1/results/gbench?commit=" + "e" * 40 + "&dataset=nanoaod",
                    json=GBENCH, headers=auth)
    assert r.status_code == 201, r.text
    assert r.json()["results"] == 2
    rows = client.get("/api/v1/results?commit=" + "e" * 40).json()["items"]
    by_setting = {row["setting"]: row for row in rows}
    main = by_setting[505]
    assert main["dataset"] == "nanoaod" and main["basket_size"] == 32000
    assert main["compress_mbps"]["samples"] == [150.0, 151.0, 152.0]
    assert main["decompress_mbps"]["median"] == 901.0
    assert main["ratio"] == 32000 / 9000 and main["codec"] == "zstd"
    shuffled = by_setting[404]
    assert (shuffled["preconditioner"], shuffled["threads"], shuffled["dataset"]) == (
        "shuffle", 2, "offsets")
    machine = client.get("/api/v1/machines?name=ci-box").json()["items"]
    assert len(machine) == 1
    again = client.post("/api/v1/results/gbench?commit=" + "e" * 40 + "&dataset=nanoaod",
                        json=GBENCH, headers=auth)
    assert again.status_code == 200 and again.json()["duplicate"] is True
    assert count(session, Result) == 2


def test_gbench_rejects_documents_it_cannot_map(client, auth, session):
    r = client.post("/api/v1/results/gbench?commit=" + "e" * 40, json={"benchmarks": 3},
                    headers=auth)
    assert r.status_code == 422
    assert len(r.json()["error"]["details"]) == 2
    r = client.post("/api/v1/results/gbench", json=GBENCH, headers=auth)
    assert r.status_code == 422 and "commit" in r.json()["error"]["details"][0]
    only_setup = {"context": {}, "benchmarks": [{"name": "BM_Setup", "real_time": 1}]}
    r = client.post("/api/v1/results/gbench?commit=" + "e" * 40, json=only_setup,
                    headers=auth)
    assert r.status_code == 422
    assert count(session, Result) == 0


def test_failed_results_and_awkward_text_survive_the_bulk_copy(client, auth):
    doc = document()
    failed = doc["results"][1]
    message = 'round trip mismatch at byte 17\tbasket "b\\7"\nsecond line \u00e9'
    failed.update({"compress_mbps": None, "decompress_mbps": None, "roundtrip_ok": False,
                   "error": message})
    r = client.post("/api/v1/results", json=doc, headers=auth)
    assert r.status_code == 201, r.text
    items = client.get("/api/v1/results?setting=404").json()["items"]
    assert items[0]["error"] == message and items[0]["roundtrip_ok"] is False
    assert items[0]["compress_mbps"] is None
    ok = client.get("/api/v1/results?setting=505").json()["items"][0]
    assert ok["compress_mbps"]["samples"] == doc["results"][2]["compress_mbps"]["samples"]


def test_integer_valued_numbers_are_stored_as_floats(client, auth):
    doc = document()
    r0 = doc["results"][0]
    r0.update({"compressed_bytes": 500_000, "ratio": 2})
    r0["compress_mbps"].update({"median": 60, "min": 59, "max": 61, "mean": 60,
                                "stddev": 1, "cv": 0, "samples": [59, 60, 61]})
    assert client.post("/api/v1/results", json=doc, headers=auth).status_code == 201
    item = client.get("/api/v1/results?setting=101").json()["items"][0]
    assert item["ratio"] == 2.0 and item["compress_mbps"]["median"] == 60.0
    assert item["compress_mbps"]["samples"] == [59, 60, 61] and item["compress_mbps"]["n"] == 3


def test_over_long_names_are_422_not_a_database_error(client, auth, session):
    doc = document(machine="m" * 201)
    doc["datasets"][0]["checksum"] = "x" * 101
    r = client.post("/api/v1/results", json=doc, headers=auth)
    assert r.status_code == 422
    details = "\n".join(r.json()["error"]["details"])
    assert "machine" in details and "checksum" in details
    r = client.post("/api/v1/results?repository=" + "r" * 201, json=document(), headers=auth)
    assert r.status_code == 422
    huge = document()
    huge["results"][0]["threads"] = 2**40
    r = client.post("/api/v1/results", json=huge, headers=auth)
    assert r.status_code == 422 and "threads" in r.json()["error"]["details"][0]
    assert count(session, ResultDocument) == 0


def test_gbench_out_of_range_values_are_skipped_not_stored(client, auth, session):
    doc = {"context": {"host_name": "h"}, "benchmarks": [
        {"name": "BM_Compress/505/32000", "bytes_per_second": 1e8,
         "label": "preconditioner=" + "z" * 40},
        {"name": "BM_Compress/70000/1", "bytes_per_second": 1e8},
        {"name": "BM_Compress/404/" + str(2**40), "bytes_per_second": 1e8},
        {"name": "BM_Compress/101/1024", "bytes_per_second": 1e8}]}
    r = client.post("/api/v1/results/gbench?commit=" + "f" * 40, json=doc, headers=auth)
    assert r.status_code == 201 and r.json()["results"] == 1
    assert count(session, Result) == 1


def test_json_dumper_is_set_per_connection_not_per_ingest(client, auth, monkeypatch):
    """psycopg makes new dumper classes at every set_json_dumps call; called per ingest they
    piled up until class creation took 71 % of the API's CPU (docs/perf/backend.md)."""
    import psycopg.types.json as pj

    calls = []
    real = pj.set_json_dumps

    def counting(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(pj, "set_json_dumps", counting)
    client.app.state.engine.dispose()  # every connection from here on is a new one
    documents = 12
    for i in range(documents):
        answer = client.post("/api/v1/results", json=document(commit=f"{i + 1:040x}"),
                             headers=auth)
        assert answer.status_code == 201, answer.text
    # once for each connection the pool opened (at most a few), never once per document
    assert 1 <= len(calls) < documents, len(calls)


def test_dataset_kind_and_page_size_reach_the_catalog(client, auth, session):
    """rzbench's datasets[].kind/page_size: stored, listed, and in /dimensions; bad values 422."""
    doc = document(datasets=("hzz", "hzz-rntuple", "hzz-rntuple-p65536"))
    doc["datasets"][0].update(kind="ttree", pages=0, page_size=None)
    doc["datasets"][1].update(kind="rntuple", pages=31, page_size=None)
    doc["datasets"][2].update(kind="rntuple", pages=31, page_size=65536)
    r = client.post("/api/v1/results", json=doc, headers=auth)
    assert r.status_code == 201, r.text
    rows = {d.name: (d.kind, d.page_size) for d in session.scalars(select(Dataset))}
    assert rows == {"hzz": ("ttree", None), "hzz-rntuple": ("rntuple", None),
                    "hzz-rntuple-p65536": ("rntuple", 65536)}
    listed = client.get("/api/v1/datasets").json()["items"]
    assert {d["name"]: d["page_size"] for d in listed}["hzz-rntuple-p65536"] == 65536
    kinds = client.get("/api/v1/configurations/dimensions").json()["dataset_kinds"]
    assert kinds == {"hzz": {"kind": "ttree", "page_size": None},
                     "hzz-rntuple": {"kind": "rntuple", "page_size": None},
                     "hzz-rntuple-p65536": {"kind": "rntuple", "page_size": 65536}}
    # a generator's data: reported as "ttree" by the harness, stored as `synthetic`
    gen = document(datasets=("event",), seed=5)
    gen["datasets"][0].update(kind="ttree", pages=0, page_size=None, source="synthetic:event")
    assert client.post("/api/v1/results", json=gen, headers=auth).status_code == 201
    kinds = client.get("/api/v1/configurations/dimensions").json()["dataset_kinds"]
    assert kinds["event"] == {"kind": "synthetic", "page_size": None}
    for bad, reason in (({"kind": "tree"}, "kind"), ({"page_size": 0}, "page_size"),
                        ({"page_size": 2**40}, "page_size")):
        other = document(datasets=("x",), seed=7)
        other["datasets"][0].update(bad)
        r = client.post("/api/v1/results", json=other, headers=auth)
        assert r.status_code == 422, bad
        assert reason in "\n".join(r.json()["error"]["details"]), r.text
