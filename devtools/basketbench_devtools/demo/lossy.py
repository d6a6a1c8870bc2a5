"""The demo's lossy float sweeps: HZZ's physics columns re-encoded at RNTuple's truncated,
quantized and half-precision floats, with each measured commit's own codecs (a ROOT release's
rzbench, the checkout's host build), stored through POST /api/v1/lossy-sweeps so the Lossy
floats page has a sweep to plot and a history across the releases."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from basketbench.measure.lossy.sweep import SweepOptions, sweep
from basketbench.measure.realroot.releases import lookup, release_commit_sha, release_rzbench
from basketbench.measure.rootio.root_files import default_root_files
from basketbench.measure.rzbench.runner import locate_rzbench

from basketbench_devtools.demo.console import say
from basketbench_devtools.demo.runs import json_or_error

FILE = "uproot-HZZ.root"
# the columns its physics quantities use (dimuon and four-lepton masses, jet HT) and MET
COLUMNS = ["Muon_*", "Electron_*", "Jet_*", "MET_*"]


def _commits(client: httpx.Client) -> set[tuple[str, str]]:
    listed = json_or_error(client.get("/api/v1/lossy-sweeps", params={"file": FILE}),
                           "listing lossy sweeps")
    return {(s["commit"], s["codecs"]) for s in listed["sweeps"]}


def measure_lossy(client: httpx.Client, token: str, releases: list[str], checkout: str,
                  *, rerun: bool) -> int:
    """One sweep per measured commit (the releases' with their own codecs, then the
    checkout's with the host's); returns how many were stored now."""
    source = next((p for p in default_root_files() if p.name == FILE), None)
    if source is None:
        say(f"lossy floats skipped: {FILE} is neither in ../shared nor in the testdata wheel")
        return 0
    done = set() if rerun else _commits(client)
    def release_binary(version: str) -> Callable[[], Path]:
        return lambda: release_rzbench(version)[1]  # built already by the release's run

    plan: list[tuple[str, str, Callable[[], Path]]] = [
        (release_commit_sha(lookup(v)), f"root-{v}", release_binary(v)) for v in releases]
    plan.append((checkout, "host", locate_rzbench))
    stored = 0
    for sha, codecs, rzbench in plan:
        if (sha, codecs) in done:
            continue
        doc: dict[str, Any] = sweep(source, SweepOptions(columns=COLUMNS, rzbench=rzbench()))
        answer = json_or_error(client.post(
            "/api/v1/lossy-sweeps", json={"commit": sha, "codecs": codecs, "document": doc},
            headers={"Authorization": f"Bearer {token}"}), "storing a lossy sweep")
        say(f"lossy floats: {doc['columns']} columns of {FILE} with {codecs} codecs "
            f"({answer['rows']} rows)")
        stored += 1
    return stored
