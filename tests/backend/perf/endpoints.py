"""Every read endpoint of the API as one request on the seeded world (conftest.py), named
for the guards' tables. ``{head}`` / ``{base}`` are the two newest commits in git order,
``{change}`` the recorded change."""

from __future__ import annotations

from typing import Any

import psycopg

# name -> (OpenAPI path, request). One request per GET path of the API (a new path
# without a row here fails test_every_read_endpoint_is_guarded).
READS: dict[str, tuple[str, str]] = {
    "health": ("/api/v1/health", "/api/v1/health"),
    "repositories": ("/api/v1/repositories", "/api/v1/repositories"),
    "commits": ("/api/v1/commits", "/api/v1/commits?limit=50"),
    "commit": ("/api/v1/commits/{sha}", "/api/v1/commits/{head}"),
    "machines": ("/api/v1/machines", "/api/v1/machines"),
    "machine": ("/api/v1/machines/{machine_id}", "/api/v1/machines/1"),
    "machine codec sets": ("/api/v1/machines/{machine_id}/codec-sets",
                           "/api/v1/machines/1/codec-sets"),
    "datasets": ("/api/v1/datasets", "/api/v1/datasets"),
    "configurations": ("/api/v1/configurations", "/api/v1/configurations"),
    "configuration dimensions": ("/api/v1/configurations/dimensions",
                                 "/api/v1/configurations/dimensions"),
    "configurations latest": ("/api/v1/configurations/latest",
                              "/api/v1/configurations/latest?machine=bench-haswell"
                              "&dataset=nanoaod-ttbar"),
    "runs": ("/api/v1/runs", "/api/v1/runs?limit=50"),
    "run queues": ("/api/v1/runs/queues", "/api/v1/runs/queues"),
    "run": ("/api/v1/runs/{run_id}", "/api/v1/runs/1"),
    "results": ("/api/v1/results", "/api/v1/results?commit={head}&machine=bench-haswell"
                "&limit=100"),
    "history": ("/api/v1/history", "/api/v1/history?machine=bench-haswell"
                "&dataset=nanoaod-ttbar&setting=105"),
    "tradeoff": ("/api/v1/tradeoff", "/api/v1/tradeoff?commit={head}&machine=bench-haswell"
                 "&dataset=nanoaod-ttbar&reference=101"),
    "compare commits": ("/api/v1/compare", "/api/v1/compare?base_commit={base}"
                        "&head_commit={head}&machine=bench-haswell"),
    "compare machines": ("/api/v1/compare", "/api/v1/compare?base_machine=bench-haswell"
                         "&head_machine=bench-epyc&commit={head}"),
    "codec series": ("/api/v1/codec-series", "/api/v1/codec-series?machine=bench-haswell"),
    "changes": ("/api/v1/changes", "/api/v1/changes"),
    "changes summary": ("/api/v1/changes/summary", "/api/v1/changes/summary"),
    "change": ("/api/v1/changes/{change_id}", "/api/v1/changes/{change}"),
    "branch sizes": ("/api/v1/branch-sizes", "/api/v1/branch-sizes?commit={head}"
                     "&dataset=nanoaod-ttbar&allow_empty=true"),
    "recommend history": ("/api/v1/recommend/history", "/api/v1/recommend/history"
                          "?machine=bench-haswell&dataset=nanoaod-ttbar&limit=100"),
    "advise runs": ("/api/v1/advise", "/api/v1/advise"),
    "advice": ("/api/v1/advise/{run_id}", "/api/v1/advise/1"),
    "advice path": ("/api/v1/advise/{run_id}/path", "/api/v1/advise/1/path"),
    "worker tags": ("/api/v1/worker-tags", "/api/v1/worker-tags"),
    "io breakdown": ("/api/v1/io/breakdown", "/api/v1/io/breakdown?commit={head}"
                     "&machine=bench-haswell"),
    "ab requests": ("/api/v1/ab-requests", "/api/v1/ab-requests?machine=bench-haswell"),
    "ab request": ("/api/v1/ab-requests/{run_id}", "/api/v1/ab-requests/1"),
    "ab runs": ("/api/v1/ab-runs", "/api/v1/ab-runs?machine=bench-haswell&commit={head}"),
    "recommend speeds": ("/api/v1/recommend/speeds", "/api/v1/recommend/speeds"
                         "?machine=bench-haswell&dataset=nanoaod-ttbar&commit={head}"),
    "lossy sweeps": ("/api/v1/lossy-sweeps", "/api/v1/lossy-sweeps?file=uproot-HZZ.root"),
    "lossy sweep": ("/api/v1/lossy-sweeps/{sweep_id}", "/api/v1/lossy-sweeps/1"),
    "lossy history": ("/api/v1/lossy/history", "/api/v1/lossy/history?file=uproot-HZZ.root"
                      "&column=Muon_Px&representation=trunc&bits=16&setting=505"),
    "arena": ("/api/v1/arena", "/api/v1/arena?file=uproot-HZZ.root&machine=bench-haswell"
              "&shapes=true"),
    "arena history": ("/api/v1/arena/history", "/api/v1/arena/history?file=uproot-HZZ.root"
                      "&machine=bench-haswell&candidate=zstd&level=3&reference_setting=505"
                      "&view=mapping"),
}


def request_urls(conn: psycopg.Connection[Any]) -> dict[str, str]:
    """name -> the request, with the seeded world's commits and change filled in."""
    head, base = [r[0] for r in conn.execute(
        'SELECT sha FROM commits ORDER BY "order" DESC, date DESC, id DESC LIMIT 2')]
    change = conn.execute("SELECT min(id) FROM changes").fetchone()
    values = {"head": head, "base": base, "change": change[0] if change else 0}
    return {name: url.format(**values) for name, (_path, url) in READS.items()}
