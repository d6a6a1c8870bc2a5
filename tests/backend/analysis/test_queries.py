"""Read endpoints: lists with filters, pagination and CSV; history, tradeoff, compare."""

from __future__ import annotations

import csv
import io
from datetime import datetime

import pytest
from bb_factories import MACHINE, document, post_webhook, push_payload, sha

N = 10
SPEED_STEP = 5  # commits >= 5 are 10 % slower
SIZE_STEP = 7  # commits >= 7 compress 1 % worse


@pytest.fixture
def history_db(client, auth):
    shas = [sha(i, "q") for i in range(N)]
    assert post_webhook(client, "push", push_payload(shas), "seed").status_code == 202
    other = dict(MACHINE, hostname="epyc-01", fingerprint_hash="e0e0e0e0e0e0e0e0")
    for i, s in enumerate(shas):
        scale = 0.9 if i >= SPEED_STEP else 1.0
        size = 1.01 if i >= SIZE_STEP else 1.0
        doc = document(commit=s, scale=scale, size_scale=size, seed=i,
                       datasets=("nanoaod", "physlite"))
        assert client.post("/api/v1/results", json=doc, headers=auth).status_code == 201
        doc = document(commit=s, machine="epyc-01", tag="epyc", scale=1.3, seed=100 + i)
        doc["machine"] = other
        assert client.post("/api/v1/results", json=doc, headers=auth).status_code == 201
    return shas


def rows(resp) -> list[dict[str, str]]:
    assert resp.headers["content-type"].startswith("text/csv")
    return list(csv.DictReader(io.StringIO(resp.text)))


def test_commits_filters_pagination_and_csv(client, history_db):
    shas = history_db
    page = client.get("/api/v1/commits?limit=3&offset=2").json()
    assert page["total"] == N and page["limit"] == 3 and page["offset"] == 2
    assert [c["sha"] for c in page["items"]] == [shas[7], shas[6], shas[5]]
    ranged = client.get(f"/api/v1/commits?commit_from={shas[2][:7]}&commit_to={shas[4]}").json()
    assert [c["sha"] for c in ranged["items"]] == [shas[4], shas[3], shas[2]]
    assert client.get("/api/v1/commits?q=commit 3").json()["total"] == 1
    assert client.get("/api/v1/commits?branch=master").json()["total"] == N
    assert client.get("/api/v1/commits?branch=other").json()["total"] == 0
    table = rows(client.get("/api/v1/commits?format=csv&limit=5"))
    assert len(table) == 5 and table[0]["sha"] == shas[-1]
    assert "parents" in table[0] and "order" in table[0]
    via_accept = client.get("/api/v1/commits", headers={"Accept": "text/csv"})
    assert len(rows(via_accept)) == N
    assert client.get("/api/v1/commits?limit=0").status_code == 422
    assert client.get("/api/v1/commits?commit_from=zzz").status_code == 400
    assert client.get("/api/v1/commits?commit_from=" + "f" * 40).status_code == 404


def test_commit_by_prefix(client, history_db):
    c = client.get(f"/api/v1/commits/{history_db[3][:8]}").json()
    assert c["sha"] == history_db[3] and c["parents"] == [history_db[2]]
    assert client.get("/api/v1/commits/" + "f" * 12).status_code == 404


def test_lists_of_every_resource_answer_json_and_csv(client, history_db):
    for path, n in (("/repositories", 1), ("/machines", 2), ("/datasets", 2),
                    # /runs: the speed step's confirmation reruns (parent, suspect) x 2
                    ("/configurations", 5), ("/runs", 4), ("/results", N * 15)):
        page = client.get(f"/api/v1{path}?limit=1000").json()
        assert page["total"] == n, path
        table = client.get(f"/api/v1{path}?format=csv&limit=1000")
        assert len(rows(table)) == n, path


def test_machines_filter(client, history_db):
    epyc = client.get("/api/v1/machines?tag=epyc").json()["items"]
    assert [m["name"] for m in epyc] == ["epyc-01"]
    assert epyc[0]["result_count"] == N * 5 and epyc[0]["latest_commit"] == history_db[-1]


def test_configurations_filters_and_dimensions(client, history_db):
    assert client.get("/api/v1/configurations?setting=505&setting=101").json()["total"] == 2
    assert client.get("/api/v1/configurations?algorithm=5").json()["items"][0]["label"] == \
        "ZSTD-5"
    assert client.get("/api/v1/configurations?dataset=physlite&machine=epyc-01").json()[
        "total"] == 0
    assert client.get("/api/v1/configurations?dataset=physlite&tag=haswell").json()[
        "total"] == 5
    ranged = client.get(f"/api/v1/configurations?commit_from={history_db[1]}&commit_to="
                        f"{history_db[2]}&preconditioner=none").json()
    assert ranged["total"] == 5
    assert client.get("/api/v1/configurations?preconditioner=shuffle").json()["total"] == 0
    assert client.get("/api/v1/configurations?dataset=nope").status_code == 404
    dims = client.get("/api/v1/configurations/dimensions").json()
    assert dims["settings"] == [0, 101, 207, 404, 505]
    assert dims["datasets"] == ["nanoaod", "physlite"] and dims["tags"] == ["epyc", "haswell"]
    assert dims["preconditioners"] == ["none"] and dims["threads"] == [1]
    assert {m["name"] for m in dims["machines"]} == {"bench-01", "epyc-01"}


def test_latest(client, history_db):
    latest = client.get("/api/v1/configurations/latest?setting=505&machine=bench-01").json()
    assert latest["total"] == 2
    assert {x["commit"] for x in latest["items"]} == {history_db[-1]}
    older = client.get(f"/api/v1/configurations/latest?setting=505&commit_to={history_db[2]}"
                       "&dataset=nanoaod").json()["items"]
    assert {(x["machine"]["name"], x["commit"]) for x in older} == {
        ("bench-01", history_db[2]), ("epyc-01", history_db[2])}
    assert len(rows(client.get("/api/v1/configurations/latest?format=csv"))) == 15


def test_results_filters(client, history_db):
    r = client.get(f"/api/v1/results?commit={history_db[0]}&machine=bench-01&dataset=nanoaod"
                   "&setting=505").json()
    assert r["total"] == 1
    item = r["items"][0]
    assert item["label"] == "ZSTD-5" and len(item["compress_mbps"]["samples"]) == 9
    assert client.get("/api/v1/results?tag=epyc").json()["total"] == N * 5
    assert client.get("/api/v1/results?codec=lz4&tag=epyc").json()["total"] == N
    assert client.get("/api/v1/results?machine=nope").status_code == 404
    # totals of partial pages come from the cheaper count queries; they must agree
    for query, total in (("", N * 15), ("&setting=505", N * 3), ("&tag=epyc", N * 5),
                         ("&dataset=physlite", N * 5), (f"&commit={history_db[0]}", 15),
                         ("&machine=epyc-01&codec=zstd", N), ("&configuration=1", N * 3)):
        page = client.get("/api/v1/results?limit=2" + query).json()
        assert page["total"] == total and len(page["items"]) == 2, query


def upload_confirmation_reruns(client, auth, shas):
    """What a worker does with the confirmation runs detection queued for the step."""
    queued = client.get("/api/v1/runs?limit=100").json()["items"]
    assert {r["trigger"] for r in queued} == {"confirm"}
    for k, run in enumerate(queued):
        i = shas.index(run["commit"])
        doc = document(commit=run["commit"], scale=0.9 if i >= SPEED_STEP else 1.0,
                       size_scale=1.01 if i >= SIZE_STEP else 1.0, seed=50 + k,
                       run_id=run["id"], datasets=("nanoaod", "physlite"))
        assert client.post("/api/v1/results", json=doc, headers=auth).status_code == 201


def test_history_with_changes_on_speed_and_size(client, auth, history_db):
    # Speed markers are confirmed changes: the confirmation reruns must be in first.
    upload_confirmation_reruns(client, auth, history_db)
    q = "/api/v1/history?machine=bench-01&dataset=nanoaod&setting=505"
    speed = client.get(q + "&metric=compress_mbps").json()
    assert speed["total_points"] == N and not speed["downsampled"]
    assert [p["sha"] for p in speed["points"]] == history_db
    assert speed["series"]["configuration"]["label"] == "ZSTD-5"
    p0 = speed["points"][0]
    assert p0["min"] <= p0["value"] <= p0["max"] and p0["n"] == 9
    assert [c["sha"] for c in speed["changes"]] == [history_db[SPEED_STEP]]
    change = speed["changes"][0]
    assert -11 < change["delta_pct"] < -9 and change["p_value"] < 0.01
    size = client.get(q + "&metric=compressed_bytes").json()
    assert [c["sha"] for c in size["changes"]] == [history_db[SIZE_STEP]]
    assert size["changes"][0]["p_value"] is None
    ranged = client.get(q + f"&commit_from={history_db[3]}&commit_to={history_db[6]}").json()
    assert [p["sha"] for p in ranged["points"]] == history_db[3:7]
    table = rows(client.get(q + "&format=csv"))
    assert len(table) == N and float(table[0]["value"]) > 0


def test_history_downsampling_keeps_changes_and_envelope(client, history_db):
    q = "/api/v1/history?machine=bench-01&dataset=nanoaod&setting=505&max_points=10"
    full = client.get(q).json()
    assert not full["downsampled"]
    # max_points has a floor of 10; downsampling is exercised with a 3-point bucket size
    from basketbench.analysis.history import _downsample

    pts = full["points"]
    out = _downsample(pts, 3, {history_db[SPEED_STEP]})
    assert len(out) <= 5 + 1 and history_db[SPEED_STEP] in [p["sha"] for p in out]
    assert [p["order"] for p in out] == sorted(p["order"] for p in out)
    assert min(p["min"] for p in out) == min(p["min"] for p in pts)
    assert max(p["max"] for p in out) == max(p["max"] for p in pts)
    assert all(list(p) == list(pts[0]) for p in out)  # the answer's shape, keys in order


def test_history_errors(client, history_db):
    base = "/api/v1/history?dataset=nanoaod&setting=505"
    assert client.get(base + "&machine=nope").status_code == 404
    assert client.get(base + "&machine=bench-01&metric=bogus").status_code == 422
    assert client.get("/api/v1/history?machine=bench-01&dataset=nanoaod").status_code == 400
    assert client.get(base + "&machine=bench-01&threads=8").status_code == 404
    r = client.get(base + "&machine=bench-01&max_points=1")
    assert r.status_code == 422 and r.json()["error"]["code"] == "invalid"


def test_history_names_a_configuration_its_fields_leave_ambiguous(client, auth, history_db):
    """Setting 0 (no compression) stored as two codecs, "memcpy" and "none": the fields
    alone match two configurations, a 400 listing both; the codec picks one."""
    doc = document(commit=history_db[0], seed=99, datasets=("nanoaod",))
    doc["results"] = [dict(r, codec="none") for r in doc["results"] if r["setting"] == 0]
    r = client.post("/api/v1/results", json=doc, headers=auth)
    assert r.status_code == 201, r.text
    base = "/api/v1/history?machine=bench-01&dataset=nanoaod&setting=0"
    r = client.get(base)
    assert r.status_code == 400 and "several configurations match" in r.text, r.text
    assert len(r.json()["error"]["details"]) == 2
    assert len(client.get(base + "&codec=memcpy").json()["points"]) == len(history_db)
    assert len(client.get(base + "&codec=none").json()["points"]) == 1


def test_history_and_tradeoff_find_machine_and_dataset_in_one_lookup(client, history_db):
    """The machine's row brings the dataset's id (one round trip): an unknown machine is
    named first, an unknown dataset next, and a dataset given by id answers as by name."""
    datasets = client.get("/api/v1/datasets", params={"format": "csv"})
    dataset_id = next(row["id"] for row in rows(datasets) if row["name"] == "nanoaod")
    for path, extra in (("history", "&setting=505"), ("tradeoff", f"&commit={history_db[0]}")):
        def get(machine, dataset, path=path, extra=extra):
            return client.get(f"/api/v1/{path}?machine={machine}&dataset={dataset}{extra}")

        for machine, dataset, unknown in (("nope", "nope", "machine"),
                                          ("nope", "nanoaod", "machine"),
                                          ("bench-01", "nope", "dataset"),
                                          ("bench-01", "999999", "dataset")):
            r = get(machine, dataset)
            assert r.status_code == 404 and f"unknown {unknown}" in r.text, (path, r.text)
        by_name = get("bench-01", "nanoaod")
        assert by_name.status_code == 200 and by_name.json()["points"], (path, by_name.text)
        assert get("bench-01", dataset_id).json() == by_name.json()


def test_tradeoff_pareto_and_reference(client, history_db):
    r = client.get(f"/api/v1/tradeoff?commit={history_db[0]}&machine=bench-01&dataset=nanoaod"
                   "&reference=505").json()
    pts = {p["setting"]: p for p in r["points"]}
    assert set(pts) == {0, 101, 207, 404, 505}
    # 101 is larger and slower than 505: dominated. 404 compresses slower than 505 (which is
    # also smaller) but decompresses fastest, so it is on the decompression front only.
    assert [s for s, p in sorted(pts.items()) if p["pareto_compress"]] == [207, 505]
    assert [s for s, p in sorted(pts.items()) if p["pareto_decompress"]] == [207, 404, 505]
    assert pts[0]["pareto_compress"] is False  # memcpy baseline is not a codec choice
    assert pts[505]["relative"]["ratio"] == pytest.approx(1.0)
    assert pts[207]["relative"]["compressed_bytes"] == pytest.approx(300_000 / 350_000)
    assert pts[404]["relative"]["compress_mbps"] == pytest.approx(90 / 150, rel=0.02)
    assert pts[505]["compress_mbps"]["min"] <= pts[505]["compress_mbps"]["median"]
    no_ref = client.get(f"/api/v1/tradeoff?commit={history_db[0]}&machine=bench-01"
                        "&dataset=nanoaod").json()
    assert all(p["relative"] is None for p in no_ref["points"])
    bad_ref = client.get(f"/api/v1/tradeoff?commit={history_db[0]}&machine=bench-01"
                         "&dataset=nanoaod&reference=999")
    assert bad_ref.status_code == 404
    table = rows(client.get(f"/api/v1/tradeoff?commit={history_db[0]}&machine=bench-01"
                            "&dataset=nanoaod&format=csv"))
    assert len(table) == 5 and "compress_mbps.median" in table[0]


def test_compare_commits(client, history_db):
    r = client.get(f"/api/v1/compare?base_commit={history_db[0]}&head_commit="
                   f"{history_db[-1]}&machine=bench-01&dataset=nanoaod").json()
    assert r["mode"] == "commits"
    by = {(x["configuration"]["setting"], x["metric"]): x for x in r["rows"]}
    assert len(r["rows"]) == 5 * 4
    # two runs measured at different times: the numbers, but no speed verdict (issue 32)
    slow = by[(505, "compress_mbps")]
    assert not slow["significant"] and not slow["regression"]
    assert slow["evidence"] == {"kind": "none"} and -11 < slow["delta_pct"] < -9
    size = by[(505, "compressed_bytes")]
    assert size["significant"] and size["regression"] and size["evidence"] is None
    ratio = by[(505, "ratio")]
    assert ratio["significant"] and ratio["regression"]
    assert r["rule"]["evidence"] == {"ab": 0, "counts": 0, "none": 10} and r["ab"] is None
    same = client.get(f"/api/v1/compare?base_commit={history_db[0]}&head_commit="
                      f"{history_db[1]}&machine=bench-01&metric=compress_mbps").json()
    assert len(same["rows"]) == 10 and not any(x["significant"] for x in same["rows"])
    only = client.get(f"/api/v1/compare?base_commit={history_db[0]}&head_commit="
                      f"{history_db[-1]}&machine=bench-01&only_significant=true").json()
    assert only["rows"] and all(x["significant"] for x in only["rows"])
    assert {x["metric"] for x in only["rows"]} == {"ratio", "compressed_bytes"}


def test_compare_machines(client, history_db):
    r = client.get(f"/api/v1/compare?base_machine=bench-01&head_machine=epyc-01&commit="
                   f"{history_db[0]}&metric=decompress_mbps").json()
    assert r["mode"] == "machines" and len(r["rows"]) == 5  # epyc ran nanoaod only
    for row in r["rows"]:  # two machines: the numbers, never a speed verdict
        assert row["delta_pct"] == pytest.approx(30, abs=2)
        assert not row["significant"] and row["evidence"] == {"kind": "none"}
    assert "two machines" in r["rule"]["speed_without_evidence"]
    assert r["rule"]["note"].startswith("two machines: none of the 5 speed rows")
    table = rows(client.get(f"/api/v1/compare?base_machine=bench-01&head_machine=epyc-01"
                            f"&commit={history_db[0]}&format=csv"))
    assert len(table) == 20 and "configuration.label" in table[0]


def test_compare_needs_a_complete_pair(client, history_db):
    r = client.get(f"/api/v1/compare?base_commit={history_db[0]}&machine=bench-01")
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_request"


def test_reruns_at_one_commit_are_merged(client, auth):
    a, b = sha(1, "rerun"), sha(2, "rerun")
    for commit, seed in ((a, 0), (a, 50), (b, 0)):
        doc = document(commit=commit, seed=seed)
        assert client.post("/api/v1/results", json=doc, headers=auth).status_code == 201
    hist = client.get("/api/v1/history?machine=bench-01&dataset=nanoaod&setting=505").json()
    assert hist["total_points"] == 2 and hist["points"][0]["n"] == 18
    rows = client.get(f"/api/v1/compare?base_commit={a}&head_commit={b}&machine=bench-01"
                      "&metric=compressed_bytes").json()["rows"]
    assert len(rows) == 5 and all(r["delta_pct"] == 0 and not r["significant"] for r in rows)


def test_large_answers_are_gzipped_for_clients_that_accept_it(client, history_db):
    q = "/api/v1/history?machine=bench-01&dataset=nanoaod&setting=505"
    plain = client.get(q, headers={"Accept-Encoding": "identity"})
    zipped = client.get(q, headers={"Accept-Encoding": "gzip"})
    assert "content-encoding" not in plain.headers and len(plain.content) > 1024
    assert zipped.headers["content-encoding"] == "gzip"
    assert zipped.headers["content-type"] == "application/json"
    assert zipped.num_bytes_downloaded < len(plain.content) / 2
    assert zipped.content == plain.content  # httpx decoded it: byte for byte the same answer
    table = client.get(q + "&format=csv", headers={"Accept-Encoding": "gzip"})
    assert table.headers["content-encoding"] == "gzip" and len(rows(table)) == N
    compare = client.get(f"/api/v1/compare?base_commit={history_db[0]}"
                         f"&head_commit={history_db[-1]}&machine=bench-01",
                         headers={"Accept-Encoding": "gzip"})
    assert compare.headers["content-encoding"] == "gzip" and compare.json()["rows"]
    # Small answers are not worth compressing.
    small = client.get("/api/v1/health", headers={"Accept-Encoding": "gzip"})
    assert small.status_code == 200 and "content-encoding" not in small.headers


def _same_json(ours, documented, path="") -> None:
    """Equal values and key order; timestamps compared as instants (orjson writes +00:00,
    pydantic Z)."""
    if isinstance(ours, dict):
        assert list(ours) == list(documented), path
        for k in ours:
            _same_json(ours[k], documented[k], f"{path}.{k}")
    elif isinstance(ours, list):
        assert len(ours) == len(documented), path
        for i, (a, b) in enumerate(zip(ours, documented, strict=True)):
            _same_json(a, b, f"{path}[{i}]")
    elif isinstance(ours, str) and path.endswith(".date"):
        assert datetime.fromisoformat(ours) == datetime.fromisoformat(documented), path
    else:
        assert ours == documented, path


def test_hot_answers_have_exactly_the_documented_shapes(client, history_db):
    """history and compare are built as plain dicts for speed: they must still be exactly
    what their OpenAPI models (and the generated TypeScript types) say."""
    from basketbench.analysis.schemas import CompareOut, HistoryOut, TradeoffOut

    hist = "/api/v1/history?machine=bench-01&dataset=nanoaod&setting=505"
    for model, url in (
            (HistoryOut, hist + "&metric=compress_mbps"), (HistoryOut, hist + "&metric=ratio"),
            (HistoryOut, hist + "&metric=compressed_bytes"),
            (TradeoffOut, f"/api/v1/tradeoff?commit={history_db[0]}&machine=bench-01"
                          "&dataset=nanoaod&reference=505"),
            (CompareOut, f"/api/v1/compare?base_commit={history_db[0]}"
                         f"&head_commit={history_db[-1]}&machine=bench-01"),
            (CompareOut, f"/api/v1/compare?base_machine=bench-01&head_machine=epyc-01"
                         f"&commit={history_db[3]}")):
        body = client.get(url).json()
        # exclude_unset: a field with a default may be left out of the answer (a history
        # point without codecs, a compare row that is no merged size row: issue 34)
        _same_json(body, model.model_validate(body).model_dump(mode="json",
                                                                 exclude_unset=True))
    assert client.get(hist + "&metric=compressed_bytes").json()["changes"]


def test_compare_merged_decided_and_paged(client, history_db):
    """One size row per series (exact bytes, byte delta, ratio), decided changes first,
    pages with totals over every row, and the rule actually applied."""
    base = (f"/api/v1/compare?base_commit={history_db[0]}&head_commit={history_db[-1]}"
            "&machine=bench-01&dataset=nanoaod")
    plain = client.get(base).json()
    merged = client.get(base + "&merged=true&order=decided").json()
    assert merged["total"] == len(plain["rows"]) - 5 == 15  # 5 ratio rows folded in
    assert all(r["metric"] != "ratio" for r in merged["rows"])
    size = next(r for r in merged["rows"] if r["configuration"]["setting"] == 505
                and r["metric"] == "compressed_bytes")
    assert (size["base_bytes"], size["head_bytes"], size["delta_bytes"]) == (
        350_000, 353_500, 3_500)
    assert size["base_ratio"] == pytest.approx(1_000_000 / 350_000)
    assert size["head_ratio"] == pytest.approx(1_000_000 / 353_500)
    ranks = [0 if r["significant"] and r["metric"] == "compressed_bytes"
             else 1 if r["significant"] else 2 for r in merged["rows"]]
    # sizes +1 %; every speed 10 % slower between two runs, without evidence: no verdict
    assert ranks == [0] * 5 + [2] * 10
    assert merged["counts"] == {"regressions": 5, "improvements": 0, "rows": 15}
    # before the size step: nothing decided, every row in series order
    mid_base = base.replace(history_db[-1], history_db[6]) + "&merged=true"
    mid = client.get(mid_base + "&order=decided").json()["rows"]
    assert not any(r["significant"] for r in mid)
    assert mid == client.get(mid_base + "&order=series").json()["rows"]
    assert {r["delta_bytes"] for r in mid if r["metric"] == "compressed_bytes"} == {0}
    page = client.get(base + "&merged=true&order=decided&limit=4&offset=4").json()
    assert page["total"] == 15 and page["offset"] == 4
    assert page["rows"] == merged["rows"][4:8] and page["counts"] == merged["counts"]
    one = client.get(base + "&merged=true&setting=505").json()
    assert one["total"] == 3 and {r["configuration"]["setting"] for r in one["rows"]} == {505}
    rule = merged["rule"]
    assert rule["min_effect_pct"] == 2.0 and rule["evidence"]["none"] == 10
    assert "different times" in rule["speed_without_evidence"]
    assert "queue an interleaved A/B" in rule["note"]
    assert client.get(base + "&limit=0").status_code == 422
    assert client.get(base + "&order=delta").status_code == 422


def test_confirmation_runs_name_their_changes(client, history_db):
    """The runs page links a "confirm" rerun to the changes it was queued for."""
    runs = client.get("/api/v1/runs?limit=1000").json()["items"]
    confirm = [r for r in runs if r["trigger"] == "confirm"]
    assert len(confirm) == 4  # (parent, suspect) x 2 for the speed step
    suspects = {c["id"] for c in client.get(
        "/api/v1/changes", params={"include_unconfirmed": True, "limit": 1000}).json()["items"]
        if c["kind"] == "speed"}
    for run in confirm:
        assert run["change_commit"] == history_db[SPEED_STEP]
        assert run["change_ids"] and set(run["change_ids"]) <= suspects
    assert all(r["change_ids"] == [] for r in runs if r["trigger"] != "confirm")
