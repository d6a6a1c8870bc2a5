"""The codec-series answers the dashboard's pickers and defaults read: each series with its
version range and commits, trade-off's series, compare within one common series, and the
machine's series with their newest commits."""

from __future__ import annotations

from typing import Any

import pytest
from bb_factories import document, post_webhook, push_payload, sha, with_codecs
from bb_factories import post_result_document as post


def releases_then_checkout(client: Any, auth: dict[str, str]) -> list[str]:
    """Two releases measured with their own codecs (builtin, zstd 1.4.8 -> 1.5.7), then a
    checkout measured with the host's libraries, as `make demo` does."""
    shas = [sha(i, "series") for i in range(3)]
    assert post_webhook(client, "push", push_payload(shas), "series").status_code == 202
    for c, zstd, scale in ((shas[0], "1.4.8", 1.0), (shas[1], "1.5.7", 1.04)):
        post(client, auth, with_codecs(document(commit=c, size_scale=scale), "builtin",
                                       zstd=zstd))
    post(client, auth, document(commit=shas[2], size_scale=1.1))
    return shas


def get(client: Any, path: str, **params: Any) -> Any:
    r = client.get(path, params=params)
    assert r.status_code == 200, r.text
    return r.json()


def test_history_names_each_series_with_its_version_range_and_commits(client, auth):
    releases_then_checkout(client, auth)
    h = get(client, "/api/v1/history", machine="bench-01", dataset="nanoaod", setting=505,
            metric="compressed_bytes")
    assert h["codecs"]["set"] == "host"  # the newest commit's series
    by_set = {s["set"]: s for s in h["codec_series"]}
    assert [s["set"] for s in h["codec_series"]] == ["host", "builtin"]  # newest first
    assert (by_set["builtin"]["first_libraries"]["zstd"], by_set["builtin"]["libraries"]["zstd"],
            by_set["builtin"]["commits"]) == ("1.4.8", "1.5.7", 2)
    assert by_set["host"]["commits"] == 1
    assert by_set["host"]["first_libraries"] == by_set["host"]["libraries"]


def test_tradeoff_says_which_series_it_shows_and_which_exist(client, auth):
    shas = releases_then_checkout(client, auth)
    # the newest release measured again with the host's libraries: two series on one commit
    post(client, auth, document(commit=shas[1], size_scale=1.2))
    t = get(client, "/api/v1/tradeoff", commit=shas[1], machine="bench-01", dataset="nanoaod")
    assert sorted(s["set"] for s in t["codec_series"]) == ["builtin", "host"]
    chosen = get(client, "/api/v1/tradeoff", commit=shas[1], machine="bench-01",
                 dataset="nanoaod", codecs="builtin")
    assert chosen["codecs"]["set"] == "builtin"
    size = {p["setting"]: p["compressed_bytes"] for p in chosen["points"]}
    host = {p["setting"]: p["compressed_bytes"]
            for p in get(client, "/api/v1/tradeoff", commit=shas[1], machine="bench-01",
                         dataset="nanoaod", codecs="host")["points"]}
    assert host[505] > size[505]  # the two series' numbers are not mixed


def test_compare_stays_in_one_common_series(client, auth):
    old, new, checkout = releases_then_checkout(client, auth)
    c = get(client, "/api/v1/compare", base_commit=old, head_commit=new, machine="bench-01",
            metric="compressed_bytes")
    assert [(s["set"], s["commits"]) for s in c["codec_series"]] == [("builtin", 2)]
    assert (c["codec_series"][0]["first_libraries"]["zstd"],
            c["codec_series"][0]["libraries"]["zstd"]) == ("1.4.8", "1.5.7")
    assert c["base"]["codecs"]["series_key"] == c["head"]["codecs"]["series_key"] == "builtin"
    assert any(r["delta_pct"] for r in c["rows"])
    # the newest common series is chosen even when the head's newest series is another
    post(client, auth, document(commit=new, size_scale=1.2))  # head: builtin and (newer) host
    c = get(client, "/api/v1/compare", base_commit=old, head_commit=new, machine="bench-01")
    assert c["head"]["codecs"]["set"] == c["base"]["codecs"]["set"] == "builtin"


def test_compare_without_a_common_series_says_so(client, auth):
    old, _new, checkout = releases_then_checkout(client, auth)
    c = get(client, "/api/v1/compare", base_commit=old, head_commit=checkout,
            machine="bench-01")
    assert c["codec_series"] == []
    assert (c["base"]["codecs"]["set"], c["head"]["codecs"]["set"]) == ("builtin", "host")
    r = client.get("/api/v1/compare", params={"base_commit": old, "head_commit": checkout,
                                              "machine": "bench-01", "codecs": "host"})
    assert r.status_code == 404 and "host" in r.text


def test_machine_codec_series_lists_each_series_with_its_newest_commits(client, auth):
    old, new, checkout = releases_then_checkout(client, auth)
    series = get(client, "/api/v1/codec-series", machine="bench-01")
    assert [(s["set"], s["commits"], s["latest_commits"]) for s in series] == [
        ("host", 1, [checkout]), ("builtin", 2, [new, old])]
    r = client.get("/api/v1/codec-series", params={"machine": "no-such-machine"})
    assert r.status_code == 404


def test_tradeoff_means_a_commit_measured_with_several_sets_of_one_series(client, auth):
    """builtin at two zstd versions is one series: a commit measured with both shows the
    mean of their results and the envelope of their speeds, as two commits measured
    with one set each show them apart."""
    shas = [sha(i, "two-sets") for i in range(3)]
    assert post_webhook(client, "push", push_payload(shas), "two-sets").status_code == 202
    for alone, (scale, seed, zstd) in zip(shas[:2], ((1.0, 1, "1.5.6"), (1.04, 2, "1.5.7")),
                                          strict=True):
        for commit in (alone, shas[2]):
            post(client, auth, with_codecs(document(commit=commit, size_scale=scale, seed=seed),
                                           "builtin", zstd=zstd))

    def points(commit: str) -> dict[int, dict[str, Any]]:
        t = get(client, "/api/v1/tradeoff", commit=commit, machine="bench-01",
                dataset="nanoaod", reference=505)
        assert t["codecs"]["set"] == "builtin" and len(t["codec_series"]) == 1
        return {p["setting"]: p for p in t["points"]}

    one, two, both = points(shas[0]), points(shas[1]), points(shas[2])
    assert set(both) == set(one) == set(two)
    for setting, p in both.items():
        a, b = one[setting], two[setting]
        assert p["compressed_bytes"] == int((a["compressed_bytes"] + b["compressed_bytes"]) / 2)
        assert p["ratio"] == pytest.approx((a["ratio"] + b["ratio"]) / 2, rel=1e-12)
        for metric in ("compress_mbps", "decompress_mbps"):
            assert p[metric]["median"] == pytest.approx(
                (a[metric]["median"] + b[metric]["median"]) / 2, rel=1e-12)
            assert p[metric]["min"] == min(a[metric]["min"], b[metric]["min"])
            assert p[metric]["max"] == max(a[metric]["max"], b[metric]["max"])
        ref = both[505]
        assert p["relative"]["compress_mbps"] == pytest.approx(
            p["compress_mbps"]["median"] / ref["compress_mbps"]["median"], rel=1e-12)
