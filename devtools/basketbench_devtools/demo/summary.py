"""What the demo prints at the end: for each release run and for the checkout's run, its
result count, build cache and timings in words, and a table of every setting it measured
(ratio and median speeds per dataset)."""

from __future__ import annotations

from typing import Any

import httpx
import typer
from basketbench.measure.realroot.releases import release_for_sha

from basketbench_devtools.demo.console import DemoError, say
from basketbench_devtools.demo.runs import json_or_error


def print_summaries(
    client: httpx.Client, release_runs: list[dict[str, Any]], run: dict[str, Any], sha: str
) -> None:
    """The releases oldest first, then this checkout, which must have stored results."""
    for release_run in release_runs:
        release = release_for_sha(release_run["commit"])
        print_summary(client, release_run,
                      f"ROOT {release.version if release else release_run['commit'][:12]}")
    count = print_summary(client, run, f"this checkout ({sha[:12]})")
    if count == 0:
        raise DemoError(f"run {run['id']} finished but stored no results")


def print_summary(client: httpx.Client, run: dict[str, Any], title: str = "") -> int:
    """A table of every setting the run measured (ratio and median speeds per dataset),
    with its timings in words."""
    page = json_or_error(
        client.get("/api/v1/results", params={"run": run["id"], "limit": 1000}), "GET /results"
    )
    items = page["items"]
    say(f"{title or 'run ' + str(run['id'])}: {page['total']} results "
        f"(run {run['id']}; build cache {'hit' if run.get('build_cache_hit') else 'miss'}; "
        f"{_timings(run.get('timings'))})")
    rows = sorted(
        (r for r in items if r.get("ratio")),
        key=lambda r: (str(r.get("dataset")), int(r["setting"])),
    )
    if rows:
        header = ("dataset", "setting", "codec", "ratio", "comp MB/s", "dec MB/s")
        typer.echo("  {:<22} {:>7} {:<8} {:>7} {:>10} {:>10}".format(*header))
        for r in rows:
            typer.echo(
                f"  {str(r.get('dataset')):<22} {r['setting']:>7} {str(r.get('codec')):<8} "
                f"{r['ratio']:>7.3f} {_median(r.get('compress_mbps')):>10.1f} "
                f"{_median(r.get('decompress_mbps')):>10.1f}"
            )
    return int(page["total"])


def _timings(timings: Any) -> str:
    """{"build": 12.3, "measure": 40.1} as "build 12.3 s, measure 40.1 s"."""
    if not isinstance(timings, dict) or not timings:
        return "no timings"
    return ", ".join(f"{k} {v:.1f} s" if isinstance(v, int | float) else f"{k} {v}"
                     for k, v in timings.items())


def _median(stats: Any) -> float:
    if isinstance(stats, dict) and stats.get("median") is not None:
        return float(stats["median"])
    return float("nan")
