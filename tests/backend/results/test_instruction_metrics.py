"""Instruction counts stored beside the speeds (issue 23): ingest, history, compare; the
document's machine load recorded with its busy flag."""

from __future__ import annotations

from typing import Any

from basketbench.models import Result, ResultDocument
from bb_factories import document, post_webhook, push_payload, sha
from changes_support import with_load_record
from sqlalchemy import select

# instructions per MB of decompression before the change (1 MB results in the factory)
D_IPMB = {0: 1_000_000, 101: 30_000_000, 404: 2_400_000, 505: 9_000_000, 207: 60_000_000}


def counted(doc: dict[str, Any], lz4_extra: float = 0.0, busy: bool = False) -> dict[str, Any]:
    """The factory's document with count fields (as `basketbench run --instructions` adds
    them) and a load record."""
    for r in doc["results"]:
        d = D_IPMB[r["setting"]] * (1 + (lz4_extra if r["setting"] == 404 else 0.0))
        mb = r["uncompressed_bytes"] / 1e6
        r.update({
            "compress_instructions": int(5 * D_IPMB[r["setting"]] * mb),
            "compress_instructions_per_mb": 5.0 * D_IPMB[r["setting"]],
            "compress_estimated_cycles": int(7 * D_IPMB[r["setting"]] * mb),
            "compress_estimated_cycles_per_mb": 7.0 * D_IPMB[r["setting"]],
            "decompress_instructions": int(d * mb),
            "decompress_instructions_per_mb": d,
            "decompress_estimated_cycles": int(1.5 * d * mb),
            "decompress_estimated_cycles_per_mb": 1.5 * d,
        })
    return with_load_record(doc, busy)


def test_counts_stored_and_shown_in_history_and_compare(client, auth, session):
    shas = [sha(i, "ic") for i in range(2)]
    assert post_webhook(client, "push", push_payload(shas), "ic").status_code == 202
    for i, (s, extra) in enumerate(zip(shas, (0.0, 0.01), strict=True)):
        doc = counted(document(commit=s, seed=i), lz4_extra=extra, busy=i == 1)
        r = client.post("/api/v1/results", json=doc, headers=auth)
        assert r.status_code == 201, r.text

    docs = session.scalars(select(ResultDocument).order_by(ResultDocument.id)).all()
    assert [d.busy for d in docs] == [False, True]
    assert docs[1].load["busy_reasons"][0].startswith("load average 3.50 at start")
    row = session.scalars(select(Result).where(Result.document_id == docs[0].id)
                          .order_by(Result.id)).first()
    assert row is not None and row.d_instructions is not None
    assert row.d_instructions_per_mb == row.d_instructions / (row.uncompressed_bytes / 1e6)
    assert row.c_cycles_per_mb is not None

    hist = client.get("/api/v1/history?machine=bench-01&dataset=nanoaod&setting=404"
                      "&metric=decompress_instructions_per_mb")
    assert hist.status_code == 200, hist.text
    values = [p["value"] for p in hist.json()["points"]]
    assert values == [2_400_000, 2_400_000 * 1.01]

    cmp = client.get(f"/api/v1/compare?base_commit={shas[0]}&head_commit={shas[1]}"
                     "&machine=bench-01&metric=decompress_instructions_per_mb")
    assert cmp.status_code == 200, cmp.text
    assert (cmp.json()["base"]["busy"], cmp.json()["head"]["busy"]) == (False, True)
    rows = {r["configuration"]["setting"]: r for r in cmp.json()["rows"]}
    assert set(rows) == set(D_IPMB)
    # near-exact: the 1 % count change is a change from one run; the others did not move
    assert rows[404]["significant"] and rows[404]["regression"]
    assert abs(rows[404]["delta_pct"] - 1.0) < 1e-9
    assert not any(r["significant"] for s, r in rows.items() if s != 404)


def test_uncounted_documents_have_no_count_rows(client, auth):
    s = sha(0, "nc")
    assert post_webhook(client, "push", push_payload([s]), "nc").status_code == 202
    assert client.post("/api/v1/results", json=document(commit=s), headers=auth).status_code == 201
    cmp = client.get(f"/api/v1/compare?base_commit={s}&head_commit={s}&machine=bench-01")
    assert cmp.status_code == 200, cmp.text
    assert cmp.json()["base"]["busy"] is None  # no load recorded
    assert {r["metric"] for r in cmp.json()["rows"]} == {
        "ratio", "compressed_bytes", "compress_mbps", "decompress_mbps"}


def test_tradeoff_points_carry_the_median_counts(client, auth):
    shas = [sha(i, "tc") for i in range(2)]
    assert post_webhook(client, "push", push_payload(shas), "tc").status_code == 202
    # three counted runs of one commit (LZ4-4 at +0, +2, +4 %), one uncounted of the next
    for i, extra in enumerate((0.0, 0.04, 0.02)):
        doc = counted(document(commit=shas[0], seed=i), lz4_extra=extra)
        assert client.post("/api/v1/results", json=doc, headers=auth).status_code == 201
    plain = document(commit=shas[1])
    assert client.post("/api/v1/results", json=plain, headers=auth).status_code == 201

    def points(commit: str) -> dict[int, dict[str, Any]]:
        t = client.get(f"/api/v1/tradeoff?commit={commit}&machine=bench-01&dataset=nanoaod")
        assert t.status_code == 200, t.text
        return {p["setting"]: p for p in t.json()["points"]}

    counted_points = points(shas[0])
    assert set(counted_points) == set(D_IPMB)
    for setting, p in counted_points.items():
        d = D_IPMB[setting] * (1.02 if setting == 404 else 1.0)  # the median of the three
        assert p["decompress_instructions_per_mb"] == d
        assert p["compress_instructions_per_mb"] == 5.0 * D_IPMB[setting]
    assert all(p["compress_instructions_per_mb"] is None
               and p["decompress_instructions_per_mb"] is None for p in points(shas[1]).values())


def test_a_document_flagged_busy_by_the_old_rule_is_judged_again_at_ingest(client, auth, session):
    # issue 32: a back-to-back worker's run (load ~1 at start on 2 cores) was flagged busy
    # by the worker's old rule; the server judges it from the document's own snapshots
    s = sha(0, "rj")
    assert post_webhook(client, "push", push_payload([s]), "rj").status_code == 202
    doc = with_load_record(document(commit=s), busy=True)
    for snap in (doc["load"]["start"], doc["load"]["end"]):
        snap["load1"] = 1.02
    assert client.post("/api/v1/results", json=doc, headers=auth).status_code == 201
    stored = session.scalars(select(ResultDocument)).one()
    assert stored.busy is False and stored.load["busy_as_sent"] is True
    assert stored.load["busy_reasons"] == []
