"""The API reference's words for what a route does not describe itself.

A route's own docstring and Query(description=...) win; this fills the rest when the
OpenAPI document is built, so every operation and parameter in /docs says what it is.
Parameters that mean the same on every endpoint (offset, commit_from, the configuration
fields...) are described once here rather than at each of their routes."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

OPERATIONS: dict[str, str] = {
    "GET /api/v1/health": "Liveness and readiness: database, broker, migrations and the "
                          "background loops (dispatch, notify, detection sweep).",
    "GET /api/v1/repositories": "Repositories whose commits are tracked, with their "
                                "commit counts.",
    "GET /api/v1/commits": "Commits, newest first in git order (ROOT releases measured by "
                           "the demo carry their name, e.g. \"ROOT 6.40.00 (release)\").",
    "GET /api/v1/commits/{sha}": "One commit by full sha or unique prefix.",
    "GET /api/v1/machines": "Benchmark machines (every fingerprint version), with their "
                            "result counts and newest measured commit.",
    "POST /api/v1/machines": "Register a worker's machine: a changed hardware fingerprint "
                             "makes a new version; the old one keeps its results.",
    "GET /api/v1/machines/{machine_id}": "One machine version with its full fingerprint.",
    "POST /api/v1/machines/{machine_id}/heartbeat": "A worker says it is alive.",
    "GET /api/v1/datasets": "Datasets (corpora of baskets) that results were measured on.",
    "GET /api/v1/configurations": "Compression configurations (setting, codec, level, "
                                  "preconditioner, ...) with results in the selection.",
    "GET /api/v1/configurations/dimensions": "Every value of every dimension (settings, "
                                             "datasets, machines, tags, metrics): what the "
                                             "dashboard's pickers offer.",
    "GET /api/v1/configurations/latest": "Each configuration's newest result per dataset "
                                         "and machine, sortable and paged over every row.",
    "GET /api/v1/runs": "Benchmark runs, newest first; confirmation and bisection reruns "
                        "have trigger \"confirm\" / \"bisect\".",
    "GET /api/v1/runs/{run_id}": "One run with its stage, progress, timings and log tail.",
    "PATCH /api/v1/runs/{run_id}": "A worker reports a run's stage, progress, timings or "
                                   "end.",
    "GET /api/v1/results": "Stored results (one per commit, machine, dataset and "
                           "configuration measured), filtered and paged; CSV streams "
                           "every row.",
    "POST /api/v1/results": "Store an rzbench result document (harness-result-v1); change "
                            "detection runs after the answer. 200 when the document was "
                            "stored already.",
    "POST /api/v1/results/gbench": "Store Google Benchmark JSON output as results.",
    "GET /api/v1/history": "One series over commits (git order): a point per commit with "
                           "its spread, the confirmed changes as markers, downsampled "
                           "above max_points.",
    "GET /api/v1/tradeoff": "Ratio against speed of every configuration at one commit, "
                            "machine and dataset, with the Pareto fronts.",
    "POST /api/v1/webhooks/github": "GitHub push / pull_request webhook: stores the "
                                    "commits and queues runs (HMAC-signed with the "
                                    "webhook secret).",
    "POST /api/v1/trigger": "Queue runs of a commit on machines of a tag.",
    "GET /api/v1/changes/{change_id}": "One change with its evidence, confirmation runs, "
                                       "bisection, related changes and notifications.",
    "PATCH /api/v1/changes/{change_id}": "Set one change's status (fixed and ignored need a "
                                         "reason).",
}

_CONFIG = {
    "setting": "ROOT compression setting, 100 * algorithm + level, e.g. 505 (ZSTD-5)",
    "algorithm": "ROOT algorithm number (1 zlib, 2 lzma, 4 lz4, 5 zstd)",
    "level": "compression level (1-9)",
    "codec": "codec name: zlib, lzma, lz4, zstd, memcpy",
    "preconditioner": "byte preconditioner applied before the codec: none, shuffle, ...",
    "dictionary_size": "dictionary size in bytes (0: none)",
    "basket_size": "basket size in bytes (0: the corpus's own baskets)",
    "mode": "access pattern: basket (whole baskets), rac-sequential or rac-random",
    "threads": "compression threads",
}

PARAMETERS: dict[str, str] = {
    **_CONFIG,
    "offset": "rows to skip (paging; the answer's total counts every row)",
    "repository": "repository name, e.g. root-project/root",
    "branch": "only commits of this branch",
    "commit_from": "oldest commit of the range (sha or unique prefix), inclusive",
    "commit_to": "newest commit of the range (sha or unique prefix), inclusive",
    "commit": "a commit: full sha or unique prefix",
    "sha": "full sha or unique prefix",
    "machine": "machine name, name@version or id",
    "machine_id": "machine version id",
    "tag": "hardware tag of the machines, e.g. haswell",
    "name": "exact name",
    "active": "only current (true) or superseded (false) machine versions",
    "dataset": "dataset name",
    "run": "only results of this run id",
    "run_id": "run id",
    "configuration": "configuration id",
    "configuration_id": "configuration id (instead of the configuration fields)",
    "status": "only this status",
    "stage": "only runs at this stage (checkout, build, benchmark, upload)",
    "metric": "ratio, compressed_bytes, compress_mbps or decompress_mbps",
    "max_points": "at most this many points; above, one point per bucket (its median) with "
                  "the bucket's min/max, changes always kept",
    "format": "json (default) or csv",
    "codecs": "codec series key or set name (host, builtin, ...); default: the newest",
    "include_unconfirmed": "also changes detection has not confirmed (yet)",
    "direction": "regression or improvement",
    "change_id": "change id",
    "x-github-event": "GitHub's event name (push, pull_request, ping)",
    "x-github-delivery": "GitHub's delivery id (a repeated delivery is answered, not "
                         "stored twice)",
    "x-hub-signature-256": "sha256=HMAC of the body with the webhook secret",
}

# Where a name means something else on one endpoint.
PATH_PARAMETERS: dict[tuple[str, str], str] = {
    ("/api/v1/results", "commit"): "the commit the document measured, when its context does "
                                   "not say (sha)",
    ("/api/v1/results", "machine"): "machine name, when the document's context does not say",
    ("/api/v1/results", "tag"): "hardware tag, when the document's context does not say",
    ("/api/v1/results", "run_id"): "the run this document belongs to",
    ("/api/v1/results", "repository"): "repository of the commit, default root-project/root",
    ("/api/v1/results/gbench", "commit"): "the commit measured (sha)",
    ("/api/v1/results/gbench", "machine"): "machine name",
    ("/api/v1/results/gbench", "tag"): "hardware tag",
    ("/api/v1/results/gbench", "run_id"): "the run these results belong to",
    ("/api/v1/results/gbench", "repository"): "repository of the commit",
    ("/api/v1/tradeoff", "codec"): "only this codec",
    ("/api/v1/history", "codec"): "codec, when the setting alone names several "
                                  "configurations",
    ("/api/v1/branch-sizes", "group_by"): "sum per branch, per type class or per file",
    ("/api/v1/recommend/history", "limit"): "the newest this many commits",
    ("/api/v1/advise", "limit"): "the newest this many advise runs",
}


def _fill(spec: dict[str, Any]) -> dict[str, Any]:
    for path, item in spec.get("paths", {}).items():
        for method, op in item.items():
            if not isinstance(op, dict):
                continue
            key = f"{method.upper()} {path}"
            if not op.get("description") and key in OPERATIONS:
                op["description"] = OPERATIONS[key]
            for param in op.get("parameters", []):
                if param.get("description"):
                    continue
                if param.get("schema", {}).get("description"):
                    param["description"] = param["schema"]["description"]
                    continue
                found = PATH_PARAMETERS.get((path, param["name"])) or PARAMETERS.get(
                    param["name"])
                if found:
                    param["description"] = found
    return spec


def document(app: FastAPI) -> None:
    """Build the app's OpenAPI document once, with the descriptions above filled in."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = _fill(get_openapi(
                title=app.title, version=app.version, description=app.description,
                routes=app.routes, servers=app.servers))
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
