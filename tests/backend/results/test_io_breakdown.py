"""End-to-end I/O results (modes io-write / io-read) ingest, have a history like any metric,
and stand beside the codec alone in GET /io/breakdown."""

from __future__ import annotations

from typing import Any

from bb_factories import document, result

DATA = "uproot-HZZ/events"
BYTES = 650_000


def _io(dataset: str, setting: int, mode: str, threads: int, mbps: float, seed: int = 0
        ) -> dict[str, Any]:
    row = result(dataset, setting, 230_000, mbps, mbps, uncompressed=BYTES, seed=seed,
                 mode=mode, threads=threads)
    row["compress_mbps" if mode == "io-read" else "decompress_mbps"] = None
    row["io"] = {"form": dataset.split("/")[2], "op": mode.removeprefix("io-"),
                 "threads": threads, "events": 2421}
    return row


def io_document(commit: str = "a" * 40, scale: float = 1.0) -> dict[str, Any]:
    doc = document(commit=commit, datasets=())
    ttree, rntuple = f"{DATA}/ttree", f"{DATA}/rntuple"
    rows = [
        # the codec alone on the TTree copy's baskets (rzbench): 200 MB/s decompression
        result(ttree, 505, 230_000, 20.0 * scale, 200.0 * scale, uncompressed=BYTES),
        _io(ttree, 505, "io-write", 1, 10.0 * scale),
        _io(f"{ttree}/cache-on/warm", 505, "io-read", 1, 50.0 * scale),
        _io(f"{ttree}/cache-on/warm", 505, "io-read", 2, 80.0 * scale, seed=1),
        _io(f"{ttree}/cache-off/cold", 505, "io-read", 1, 40.0 * scale),
        _io(f"{rntuple}/cache-on/warm", 505, "io-read", 1, 60.0 * scale),
    ]
    names = sorted({r["dataset"] for r in rows})
    doc["datasets"] = [{"name": n, "source": "uproot-HZZ.root", "bytes": 0, "baskets": 0,
                        "checksum": ""} for n in names]
    doc["results"] = rows
    return doc


def test_io_breakdown_puts_the_codec_beside_each_read(client, auth) -> None:
    r = client.post("/api/v1/results", json=io_document(), headers=auth)
    assert r.status_code == 201, r.text
    r = client.get("/api/v1/io/breakdown", params={"commit": "a" * 40, "machine": "bench-01"})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["data"] == DATA and body["data_available"] == [DATA]
    by_form = {s["form"]: s for s in body["settings"]}
    ttree = by_form["ttree"]
    assert ttree["setting"] == 505 and ttree["label"] == "ZSTD-5"
    reads = {(x["threads"], x["cache"], x["page_cache"]): x for x in ttree["reads"]}
    warm = reads[(1, "on", "warm")]
    # codec: 650 kB at 200 MB/s = 3.25 ms; read: 650 kB at ~50 MB/s = ~13 ms -> ~25 %
    expected = (BYTES / ttree["codec_decompress_mbps"]) / (BYTES / warm["read_mbps"])
    assert abs(warm["codec_share"] - expected) < 1e-12 and 0.2 < expected < 0.3
    assert reads[(2, "on", "warm")]["read_mbps"] > warm["read_mbps"]
    assert (1, "off", "cold") in reads
    (write,) = ttree["writes"]
    assert abs(write["codec_share"] - write["write_mbps"] / ttree["codec_compress_mbps"]) < 1e-12
    # the RNTuple form has no basket rows: no codec share, the read is still shown
    (rn_read,) = by_form["rntuple"]["reads"]
    assert rn_read["codec_share"] is None and rn_read["read_mbps"] > 0


def test_io_reads_have_a_history_like_any_metric(client, auth) -> None:
    for i, sha in enumerate(("a" * 40, "b" * 40)):
        doc = io_document(commit=sha, scale=1.0 + i)
        assert client.post("/api/v1/results", json=doc, headers=auth).status_code == 201
    r = client.get("/api/v1/history", params={
        "machine": "bench-01", "dataset": f"{DATA}/ttree/cache-on/warm", "setting": 505,
        "mode": "io-read", "threads": 2, "metric": "decompress_mbps"})
    assert r.status_code == 200, r.text
    points = r.json()["points"]
    assert len(points) == 2
    assert points[1]["value"] > points[0]["value"]


def test_io_breakdown_says_what_is_missing(client, auth) -> None:
    assert client.post("/api/v1/results", json=document(), headers=auth).status_code == 201
    r = client.get("/api/v1/io/breakdown", params={"commit": "a" * 40, "machine": "bench-01"})
    assert r.status_code == 404 and "no end-to-end I/O results" in r.text
    assert client.post("/api/v1/results", json=io_document(), headers=auth).status_code in (
        200, 201)
    r = client.get("/api/v1/io/breakdown", params={"commit": "a" * 40, "machine": "bench-01",
                                                   "data": "nope/events"})
    assert r.status_code == 404 and DATA in r.text


def test_a_write_without_its_speed_is_refused(client, auth) -> None:
    doc = io_document()
    doc["results"][1]["compress_mbps"] = None  # the io-write row
    r = client.post("/api/v1/results", json=doc, headers=auth)
    assert r.status_code == 422 and "compress_mbps" in r.text
