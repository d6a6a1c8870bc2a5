"""The demo's runs, through the API it started: find one already measured, trigger one
(POST /api/v1/trigger), follow it to its end with progress lines, mark it failed when
the demo is interrupted."""

from __future__ import annotations

import contextlib
import time
from pathlib import Path
from typing import Any

import httpx

from basketbench_devtools.demo.checkout import DEMO_REPOSITORY
from basketbench_devtools.demo.console import DemoError, say

FINAL_STATUSES = {"succeeded", "failed", "cancelled"}


def json_or_error(response: httpx.Response, what: str) -> Any:
    if response.status_code >= 400:
        raise DemoError(f"{what}: HTTP {response.status_code}: {response.text[:2000]}")
    return response.json()


def find_finished_run(
    client: httpx.Client, sha: str, tag: str, suite: str
) -> dict[str, Any] | None:
    response = client.get(
        "/api/v1/runs",
        params={"commit": sha, "tag": tag, "status": "succeeded", "limit": 1000},
    )
    if response.status_code == 404:  # the commit is not known yet: never measured
        return None
    page = json_or_error(response, "listing runs")
    runs = [r for r in page["items"] if r.get("suite") == suite and r.get("result_count")]
    return max(runs, key=lambda r: r["id"]) if runs else None


def trigger(client: httpx.Client, token: str, sha: str, tag: str, suite: str,
            repository: str = DEMO_REPOSITORY) -> int:
    body = {"repository": repository, "commits": [sha], "tags": [tag], "suite": suite}
    response = client.post(
        "/api/v1/trigger", json=body, headers={"Authorization": f"Bearer {token}"}
    )
    data = json_or_error(response, "POST /api/v1/trigger")
    if not data.get("run_ids"):
        raise DemoError(f"the trigger created no run: {data}")
    return int(data["run_ids"][0])


def follow(client: httpx.Client, run_id: int, timeout: float, worker_log: Path) -> dict[str, Any]:
    """Poll the run, printing each change of stage or progress (and a line every 30 s
    while nothing changes), until it ends."""
    started = time.monotonic()
    last: tuple[str, str, int] | None = None
    last_print = started
    while True:
        run = json_or_error(client.get(f"/api/v1/runs/{run_id}"), f"GET /api/v1/runs/{run_id}")
        progress = int(round(100 * float(run.get("progress") or 0.0)))
        now = (run["status"], run.get("stage") or "", progress)
        elapsed = time.monotonic() - started
        moved = last is None or now[:2] != last[:2] or abs(now[2] - last[2]) >= 5
        if moved or time.monotonic() - last_print > 30:
            line = f"run {run_id}: {now[0]:<9} stage={now[1] or '-':<10} {progress:3d} %"
            line += f"  ({elapsed:4.0f} s)"
            if now[0] == "queued" and elapsed > 5:
                line += f"  the worker builds rzbench (once per harness version): {worker_log}"
            say(line)
            last, last_print = now, time.monotonic()
        if run["status"] in FINAL_STATUSES:
            return dict(run)
        if elapsed > timeout:
            raise DemoError(f"run {run_id} did not finish within {timeout:.0f} s (last: {now})")
        time.sleep(1.0)


def abandon(client: httpx.Client, token: str, run_id: int) -> None:
    """Ctrl-C mid-run: the in-process run dies with the API, so say so in the database
    instead of leaving it 'running' forever."""
    with contextlib.suppress(httpx.HTTPError):
        client.patch(
            f"/api/v1/runs/{run_id}",
            json={"status": "failed", "log_tail": "interrupted: basketbench demo was stopped"},
            headers={"Authorization": f"Bearer {token}"},
            timeout=5,
        )
    say(f"interrupted; run {run_id} marked failed (run the demo again to measure)")
