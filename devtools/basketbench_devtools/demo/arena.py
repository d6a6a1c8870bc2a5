"""The demo's codec arena: `basketbench arena` on HZZ with a small candidate set (ZSTD's
level mapping around 505, zlib-ng against 101), ROOT's side being the host layer of this
checkout's rzbench, stored through POST /api/v1/arena-runs so the Codec arena page has a
board. The candidates are built from their source packages on first use (cached under
~/.cache/basketbench/arena); a failure is said and skipped, never the demo's end."""

from __future__ import annotations

from typing import Any

import httpx
from basketbench.measure.arena import ArenaError, ArenaInputError, run_arena
from basketbench.measure.rootio.root_files import default_root_files
from basketbench.measure.rzbench.runner import locate_rzbench

from basketbench_devtools.demo.console import say
from basketbench_devtools.demo.runs import json_or_error

FILE = "uproot-HZZ.root"
CANDIDATES = ["zstd:3/6/10/14/19", "zlib-ng:1/6"]


def _has_board(client: httpx.Client) -> bool:
    listed = json_or_error(client.get("/api/v1/arena", params={"file": FILE, "results": "false"}),
                           "listing arena boards")
    return bool(listed["boards"])


def _machine_id(client: httpx.Client, tag: str) -> int | None:
    """The machine the demo's worker registered (the newest of its tag)."""
    listed = json_or_error(client.get("/api/v1/machines", params={"limit": 200}),
                           "listing machines")
    mine = [m for m in listed["items"] if m.get("tag") == tag]
    return max((int(m["id"]) for m in mine), default=None)


def measure_arena(client: httpx.Client, token: str, tag: str, *, rerun: bool) -> int:
    """One arena board of HZZ on this machine; returns how many were stored now."""
    source = next((p for p in default_root_files() if p.name == FILE), None)
    if source is None:
        say(f"codec arena skipped: {FILE} is neither in ../shared nor in the testdata wheel")
        return 0
    if not rerun and _has_board(client):
        return 0
    machine_id = _machine_id(client, tag)
    if machine_id is None:
        say(f"codec arena skipped: no machine of tag {tag} registered")
        return 0
    try:
        doc: dict[str, Any] = run_arena(source, candidates=CANDIDATES, rzbench=locate_rzbench(),
                                        say=lambda m: say(f"codec arena: {m}"))
    except (ArenaError, ArenaInputError) as exc:
        say(f"codec arena skipped: {exc}")
        return 0
    answer = json_or_error(client.post(
        "/api/v1/arena-runs", json={"machine_id": machine_id, "document": doc},
        headers={"Authorization": f"Bearer {token}"}), "storing an arena measurement")
    say(f"codec arena: {len(doc['results'])} candidate levels on {FILE} "
        f"({answer['results']} rows stored)")
    return 1
