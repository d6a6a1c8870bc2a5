"""The replay's answer, read back through the API: the changes detection found, named by
release, and per release what changed in its sources and what was measured.

`changes` (the issue's interface): one entry per change (confirmed, or still awaiting its
confirmation; candidates detection rejected are in `rejected`; changes at a setting the
release's own suite does not measure are in `other_suites`) with `release`, `metric`,
`setting`, `dataset`, `effect_pct`, plus how it was judged (kind, test, state, direction,
the values before and after, the previous release, and for a speed change found by the
interleaved A/B its ratio, interval and pairs). `measured` holds every result the runs
stored (`kind` "result": sizes, ratio, median speeds with their sample counts) and every
A/B effect measured on the history (`kind` "ab": ratio of the release against its
reference, interval, pairs, disturbed pairs, load). `releases` is the history: tree ids of
the compression paths, which changed and `git diff --shortstat`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

from basketbench_devtools.demo.runs import json_or_error
from basketbench_devtools.replay.history import Commit, changed_paths, diff_summary
from basketbench_devtools.replay.suites import (
    RELEASES_AB,
    RELEASES_SETTINGS,
    SOURCES_AB,
    SOURCES_SETTINGS,
)

SCHEMA = "basketbench-replay-v1"


def _pages(client: httpx.Client, path: str, params: dict[str, Any], limit: int = 1000
           ) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    while True:
        page = json_or_error(client.get(path, params={**params, "limit": limit,
                                                      "offset": len(items)}), f"GET {path}")
        items += page["items"]
        if not page["items"] or len(items) >= int(page["total"]):
            return items


def collect_changes(client: httpx.Client, commits: list[Commit], repository: str
                    ) -> list[dict[str, Any]]:
    """Every change on the history's commits (confirmed or not: detection's own verdict is
    in `state`), oldest release first, largest effect first within a release."""
    names = {c.sha: c.release.name for c in commits}
    order = {c.sha: i for i, c in enumerate(commits)}
    own = {c.sha: RELEASES_SETTINGS if c.release.wheel is not None else SOURCES_SETTINGS
           for c in commits}
    out = []
    for change in _pages(client, "/api/v1/changes", {"include_unconfirmed": "true"}):
        sha = change["commit"]["sha"]
        if change["repository"] != repository or sha not in names:
            continue
        parent = change.get("parent") or {}
        configuration = change["configuration"]
        out.append({
            "release": names[sha],
            "previous_release": names.get(parent.get("sha", "")),
            "metric": change["metric"],
            "setting": configuration["setting"],
            "codec": configuration["codec"],
            "dataset": change["dataset"],
            "effect_pct": round(float(change["delta_pct"]), 3),
            "direction": change["direction"],
            "kind": change["kind"],
            "test": change["test"],
            "state": change["state"],
            "base_value": change["base_value"],
            "head_value": change["head_value"],
            "ci_low_pct": _rounded(change.get("ci_low_pct")),
            "ci_high_pct": _rounded(change.get("ci_high_pct")),
            "q_value": change.get("q_value"),
            "state_reason": change.get("state_reason"),
            "attribution": change.get("attribution"),
            "commit": sha,
            "own_suite": configuration["setting"] in own[sha],
        })
    out.sort(key=lambda c: (order[c["commit"]], -abs(c["effect_pct"])))
    return out


def _rounded(x: Any) -> float | None:
    return round(float(x), 3) if x is not None else None


def collect_ab(client: httpx.Client, commits: list[Commit], runs: dict[str, dict[str, Any]]
               ) -> list[dict[str, Any]]:
    """Every interleaved A/B effect measured on the history's commits, oldest release first:
    the pipeline's (against the previous release) and detection's confirming ones. Only the
    settings the release's own suite compares are kept: an sdist layer sends 201 and 505 to
    ZLIB, so the confirming A/B's rows for them measure ZLIB under another name."""
    names = {c.sha: c.release.name for c in commits}
    out = []
    for commit in commits:
        wanted = RELEASES_AB if commit.release.wheel is not None else SOURCES_AB
        own_run = (runs.get(commit.sha) or {}).get("id")
        for ab in reversed(_pages(client, "/api/v1/ab-runs", {"commit": commit.sha}, 200)):
            if ab["commit"] != commit.sha:
                continue
            load = ab.get("load") or {}
            for e in ab["effects"]:
                if e["setting"] not in wanted:
                    continue
                ratio = e.get("ratio")
                out.append({
                    "kind": "ab", "release": commit.release.name,
                    "reference_release": names.get(ab.get("reference_commit") or ""),
                    "reference_kind": ab["reference_kind"],
                    "reference_label": ab.get("reference_label"),
                    "origin": ab["origin"], "ab_run": ab["id"], "run": ab.get("run_id"),
                    # the release's own run, or the run detection queued to confirm it
                    "role": ("release run" if own_run is not None and ab.get("run_id") == own_run
                             else "confirmation"),
                    "dataset": e["dataset"], "setting": e["setting"], "metric": e["metric"],
                    "ratio": _rounded4(ratio), "ci_low": _rounded4(e.get("ci_low")),
                    "ci_high": _rounded4(e.get("ci_high")),
                    "effect_pct": round((ratio - 1) * 100, 2) if ratio is not None else None,
                    "pairs": e["pairs"], "disturbed_pairs": e["disturbed_pairs"],
                    "disturbed_fraction": ab.get("disturbed_fraction"),
                    "loadavg_start": load.get("loadavg_start"),
                    "loadavg_end": load.get("loadavg_end"),
                })
    return out


def _rounded4(x: Any) -> float | None:
    return round(float(x), 4) if x is not None else None


def collect_measured(client: httpx.Client, commits: list[Commit],
                     runs: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for commit in commits:
        run = runs.get(commit.sha)
        if run is None:
            continue
        for r in _pages(client, "/api/v1/results", {"run": run["id"]}):
            if r.get("error") or r["setting"] == 0:  # the memcpy reference row
                continue
            compress, decompress = r.get("compress_mbps") or {}, r.get("decompress_mbps") or {}
            out.append({
                "kind": "result",
                "release": commit.release.name, "run": run["id"], "dataset": r["dataset"],
                "setting": r["setting"], "codec": r["codec"],
                "uncompressed_bytes": r["uncompressed_bytes"],
                "compressed_bytes": r["compressed_bytes"], "ratio": r["ratio"],
                "compress_mbps_median": compress.get("median"),
                "compress_samples": compress.get("n"),
                "decompress_mbps_median": decompress.get("median"),
                "decompress_samples": decompress.get("n"),
                "roundtrip_ok": r["roundtrip_ok"],
            })
    return out


def describe_releases(repo: Path, commits: list[Commit]) -> list[dict[str, Any]]:
    out = []
    previous = None
    for commit in commits:
        out.append({
            "release": commit.release.name,
            "date": commit.release.date.date().isoformat(),
            "origin": commit.release.origin,
            "commit": commit.sha,
            "tag": commit.release.tag if commit.release.wheel is not None else None,
            "measured_with": ("its wheel's libCore (root-release)"
                              if commit.release.wheel is not None
                              else "a build of its compression sources"),
            "trees": commit.trees,
            "changed_paths": changed_paths(commit, previous),
            "diff": diff_summary(repo, commit),
        })
        previous = commit
    return out


def replay_document(client: httpx.Client, repo: Path, commits: list[Commit],
                    runs: dict[str, dict[str, Any]], quick: bool,
                    repository: str = "root-replay") -> dict[str, Any]:
    changes = collect_changes(client, commits, repository)
    return {
        "schema": SCHEMA,
        "form": "quick" if quick else "full",
        "repository": str(repo),
        "releases": describe_releases(repo, commits),
        # a candidate detection rejected (its confirming A/B or reruns did not repeat it) is
        # not a change: listed apart, with the reason
        "changes": [c for c in changes if c["own_suite"] and c["state"] != "rejected"],
        "rejected": [c for c in changes if c["own_suite"] and c["state"] == "rejected"],
        # changes at settings the release's suite does not measure: from a run of another
        # suite (the push's default-suite runs, when the worker's tag was live before the
        # push), where an sdist layer measures ZLIB under LZMA's, LZ4's or ZSTD's setting
        "other_suites": [c for c in changes if not c["own_suite"]],
        "measured": collect_measured(client, commits, runs) + collect_ab(client, commits, runs),
        "runs": {runs[c.sha]["id"]: c.release.name for c in commits if c.sha in runs},
    }
