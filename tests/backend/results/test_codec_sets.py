"""Codec sets: stored with every document, part of the series, never a new machine."""

from __future__ import annotations

import copy
from typing import Any

from basketbench.models import CodecSet, Machine, ResultDocument
from bb_factories import (
    MACHINE,
    document,
    post_webhook,
    push_payload,
    sha,
    with_codecs,
)
from bb_factories import (
    post_result_document as post,
)
from sqlalchemy import func, select

HOST_LIBS = MACHINE["libraries"]


def seed(client: Any, auth: dict[str, str], n: int) -> list[str]:
    shas = [sha(i, "c") for i in range(n)]
    assert post_webhook(client, "push", push_payload(shas), "codecs").status_code == 202
    return shas


def history(client: Any, **params: Any) -> dict[str, Any]:
    q = {"machine": "bench-01", "dataset": "nanoaod", "setting": 505,
         "metric": "compressed_bytes", **params}
    r = client.get("/api/v1/history", params=q)
    assert r.status_code == 200, r.text
    return dict(r.json())


def test_document_without_codecs_is_host_with_fingerprint_libraries(client, auth, session):
    (c,) = seed(client, auth, 1)
    post(client, auth, document(commit=c))
    row = session.scalar(select(CodecSet))
    assert (row.name, row.libraries) == ("host", HOST_LIBS)
    doc = session.scalar(select(ResultDocument))
    assert doc.codec_set_id == row.id
    point = history(client)["points"][0]
    assert point["codecs"]["set"] == "host" and point["codecs"]["libraries"] == HOST_LIBS


def test_builtin_upgrade_is_one_series_with_versions_per_point(client, auth, session):
    shas = seed(client, auth, 3)
    for c, zstd in zip(shas, ("1.4.8", "1.5.7", "1.5.7"), strict=True):
        post(client, auth, with_codecs(document(commit=c), "builtin", zstd=zstd))
    # Several codec sets measured by one machine: still machine version 1.
    assert session.scalar(select(func.count()).select_from(Machine)) == 1
    h = history(client)
    assert [p["sha"] for p in h["points"]] == shas
    assert [p["codecs"]["libraries"]["zstd"] for p in h["points"]] == ["1.4.8", "1.5.7", "1.5.7"]
    assert h["codecs"]["set"] == "builtin" and h["codecs"]["series_key"] == "builtin"
    cmp = client.get("/api/v1/compare", params={
        "base_commit": shas[0], "head_commit": shas[1], "machine": "bench-01"}).json()
    assert cmp["base"]["codecs"]["libraries"]["zstd"] == "1.4.8"
    assert cmp["head"]["codecs"]["libraries"]["zstd"] == "1.5.7"


def test_host_upgrade_starts_a_new_series_not_a_change(client, auth, session):
    shas = seed(client, auth, 4)
    for i, c in enumerate(shas):
        doc = document(commit=c, size_scale=1.05 if i >= 2 else 1.0)
        if i >= 2:  # apt upgraded libzstd between the second and the third commit
            doc["machine"] = copy.deepcopy(MACHINE)
            doc["machine"]["libraries"]["zstd"] = "9.9.9"
        post(client, auth, doc)
    assert session.scalar(select(func.count()).select_from(Machine)) == 1
    newest = history(client)
    assert [p["sha"] for p in newest["points"]] == shas[2:]
    assert newest["changes"] == []  # the 5 % size step is between series, not inside one
    assert [s["libraries"]["zstd"] for s in newest["codec_series"]] == ["9.9.9",
                                                                       HOST_LIBS["zstd"]]
    old_key = newest["codec_series"][1]["series_key"]
    older = history(client, codecs=old_key)
    assert [p["sha"] for p in older["points"]] == shas[:2]


def test_named_sets_are_kept_apart_and_selectable_by_name(client, auth):
    (c,) = seed(client, auth, 1)
    post(client, auth, document(commit=c))
    post(client, auth, with_codecs(document(commit=c, size_scale=1.1), "debian-trixie",
                                   zstd="1.5.7", lz4="1.10.0", lzma="5.8.1"))
    host = history(client, codecs="host")["points"]
    trixie = history(client, codecs="debian-trixie")["points"]
    assert len(host) == len(trixie) == 1 and trixie[0]["value"] > host[0]["value"]
    r = client.get("/api/v1/history", params={"machine": "bench-01", "dataset": "nanoaod",
                                               "setting": 505, "codecs": "root-6.40.00"})
    assert r.status_code == 404 and "root-6.40.00" in r.text


def test_bad_codecs_block_is_a_422(client, auth):
    (c,) = seed(client, auth, 1)
    doc = document(commit=c)
    doc["codecs"] = {"set": "x" * 101, "libraries": {}}
    r = client.post("/api/v1/results", json=doc, headers=auth)
    assert r.status_code == 422 and "codecs.set" in r.text
    doc["codecs"] = {"set": "host", "libraries": {"zstd": 1}}
    r = client.post("/api/v1/results", json=doc, headers=auth)
    assert r.status_code == 422 and "codecs" in r.text
