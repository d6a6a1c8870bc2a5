"""Detection follows codec series: a host codec upgrade between two commits starts a new
series (its size step is never a change), a step inside one series is a change recorded
with its codec set, and history markers show only the shown series' changes."""

from __future__ import annotations

import copy
from typing import Any

from bb_factories import MACHINE, sha
from changes_support import changes, ingest, make_doc
from fastapi.testclient import TestClient

OLD_ZSTD = MACHINE["libraries"]["zstd"]
NEW_ZSTD = "9.9.9"


def host_doc(i: int, zstd: str, size_scale: float) -> dict[str, Any]:
    """Commit i measured with the host's libraries (no `codecs` block: the host set)."""
    doc = make_doc(i, size_scale=size_scale)
    doc["machine"] = copy.deepcopy(doc["machine"])
    doc["machine"]["libraries"]["zstd"] = zstd
    return doc


def history(client: TestClient, **params: Any) -> dict[str, Any]:
    answer = client.get("/api/v1/history", params={
        "machine": "bench-01", "dataset": "nanoaod", "setting": 505,
        "metric": "compressed_bytes", **params})
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def test_host_codec_upgrade_is_a_new_series_and_changes_keep_their_codec_set(
        client: TestClient, auth: dict[str, str]) -> None:
    # Old host zstd: a 2 % size step at commit 2 (a change of the old series).
    for i, size in ((0, 1.0), (1, 1.0), (2, 1.02)):
        ingest(client, auth, host_doc(i, OLD_ZSTD, size))
    old = changes(client)
    assert {(c["commit"]["sha"], c["metric"]) for c in old} == {
        (sha(2), "compressed_bytes"), (sha(2), "ratio")}
    assert len(old) == 4  # both datasets
    assert {c["codecs"]["libraries"]["zstd"] for c in old} == {OLD_ZSTD}
    assert {c["codecs"]["set"] for c in old} == {"host"}

    # apt upgrades libzstd before commit 3: sizes move by 5 %, but across series.
    ingest(client, auth, host_doc(3, NEW_ZSTD, 1.05))
    ingest(client, auth, host_doc(4, NEW_ZSTD, 1.05))
    assert {c["id"] for c in changes(client)} == {c["id"] for c in old}
    for state in ("confirming", "confirmed", "rejected"):
        assert changes(client, state=state, commit=sha(3)) == []

    # Inside the new series: a 10 % step at commit 5 is a change, with the new set.
    ingest(client, auth, host_doc(5, NEW_ZSTD, 1.10))
    new = [c for c in changes(client) if c["id"] not in {o["id"] for o in old}]
    assert len(new) == 4, new
    assert {c["commit"]["sha"] for c in new} == {sha(5)}
    assert {c["parent"]["sha"] for c in new} == {sha(4)}
    assert {c["codecs"]["libraries"]["zstd"] for c in new} == {NEW_ZSTD}
    size = next(c for c in new if c["metric"] == "compressed_bytes"
                and c["dataset"] == "nanoaod")
    assert abs(size["delta_pct"] - (1.10 / 1.05 - 1) * 100) < 0.05
    assert client.get(f"/api/v1/changes/{size['id']}").json()["codecs"] == size["codecs"]

    # History markers follow the series the history shows.
    newest = history(client)
    assert newest["codecs"]["libraries"]["zstd"] == NEW_ZSTD
    assert [(m["sha"], m["previous_sha"]) for m in newest["changes"]] == [(sha(5), sha(4))]
    older = history(client, codecs=newest["codec_series"][1]["series_key"])
    assert [p["sha"] for p in older["points"]] == [sha(0), sha(1), sha(2)]
    assert [(m["sha"], m["previous_sha"]) for m in older["changes"]] == [(sha(2), sha(1))]
