"""The FastAPI application: routers under /api/v1, one error format, the built SPA at /."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import APIRouter, FastAPI, routing
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import FileResponse, JSONResponse
from fastapi.routing import APIRoute

from basketbench.ab import routes as ab
from basketbench.analysis import routes as analysis
from basketbench.arena import routes as arena
from basketbench.catalog.routes import lookup as catalog
from basketbench.catalog.routes import machines, worker_tags
from basketbench.changes import routes as changes
from basketbench.core import gc_tuning, queue
from basketbench.core.config import Settings, get_settings
from basketbench.core.db import make_engine, make_sessionmaker
from basketbench.health import routes as health
from basketbench.lossy import routes as lossy
from basketbench.recommend.routes import advise, recommend
from basketbench.results.routes import io, latest, results
from basketbench.runs.routes import ab_requests, ci, runs
from basketbench.schemas.common import ErrorBody
from basketbench.web import errors, guards, openapi_docs, security_headers, static_assets
from basketbench.web.compression import GZipMiddleware

API_PREFIX = "/api/v1"
# Answers (and static files) above this many bytes are gzipped when the client accepts it
# (web/compression.py: ISA-L; a full history is ~0.55 MB of JSON).
GZIP_MIN_BYTES = 1024
REPO_ROOT = Path(__file__).resolve().parents[2]

log = logging.getLogger(__name__)

ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorBody, "description": text}
    for status, text in ((400, "bad request"), (401, "missing or invalid token / signature"),
                         (404, "not found"), (422, "invalid input, with every reason"),
                         (503, "database unavailable; retry after Retry-After seconds"))
}


def operation_id(route: APIRoute) -> str:
    """"{tag}-{route name}", so the generated TypeScript client reads
    ``MachinesService.listMachines``."""
    return f"{route.tags[0]}-{route.name}" if route.tags else route.name


def api_router() -> APIRouter:
    api = APIRouter(prefix=API_PREFIX, responses=ERROR_RESPONSES)
    for router in (health.router, catalog.repositories, catalog.commits, machines.router,
                   catalog.datasets, catalog.configurations, latest.router, runs.router,
                   ab_requests.router, results.router, analysis.router, ci.router, changes.router,
                   recommend.router, recommend.upload_router, advise.router,
                   worker_tags.router, io.router, lossy.router, lossy.upload_router,
                   ab.router, arena.router, arena.upload_router):
        api.include_router(router)
    return api


def frontend_dist(settings: Settings) -> Path | None:
    path = settings.frontend_dist or REPO_ROOT / "frontend" / "dist"
    return path if (path / "index.html").is_file() else None


SPA_PATH = "/{path:path}"


def allowed_methods(app: FastAPI, path: str) -> set[str]:
    """The methods of the API routes whose path matches ``path`` (the SPA's catch-all GET
    excluded): what a 405's Allow header names."""
    contexts = getattr(routing, "iter_route_contexts", None)  # FastAPI >= 0.165
    routes = contexts(app.routes) if contexts is not None else app.routes
    allowed: set[str] = set()
    for route in routes:
        regex, methods = getattr(route, "path_regex", None), getattr(route, "methods", None)
        if (regex is not None and methods and getattr(route, "path", None) != SPA_PATH
                and regex.match(path)):
            allowed |= set(methods)
    return allowed


def mount_frontend(app: FastAPI, dist: Path) -> None:
    """Static files, and index.html for every other non-API path (history-API routing).
    Caching and precompression: static_assets."""
    if (dist / "assets").is_dir():
        app.mount("/assets", static_assets.HashedAssets(directory=dist / "assets"), name="assets")
    index = dist / "index.html"
    root = dist.resolve()

    @app.get(SPA_PATH, include_in_schema=False, response_model=None)
    def spa(path: str) -> FileResponse | JSONResponse:
        if path.startswith(API_PREFIX.strip("/") + "/") or path == API_PREFIX.strip("/"):
            allowed = allowed_methods(app, "/" + path)
            if allowed:  # an API route with other methods (this catch-all took the GET)
                return errors.error_response(405, "method_not_allowed", "Method Not Allowed",
                                             headers={"Allow": ", ".join(sorted(allowed))})
            return errors.error_response(404, "not_found", f"no API route /{path}")
        candidate = (dist / path).resolve()
        if path and candidate.is_file() and candidate.is_relative_to(root):
            return static_assets.page_file(candidate)
        return static_assets.page_file(index)


def create_app(settings: Settings | None = None,
               inline_runner: queue.InlineRunner | None = None) -> FastAPI:
    """The API. ``inline_runner`` executes runs in this process when there is no broker
    (embedded mode); the CLI's ``serve`` passes the workers' one, so nothing here imports
    the workers' package."""
    settings = settings or get_settings()
    if inline_runner is not None:
        queue.set_inline_runner(inline_runner)
    engine = make_engine(settings)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        # scipy takes a second or two to import: pay it at start, not in the first compare.
        import scipy.stats  # noqa: F401

        dispatcher = None
        if settings.dispatch == "auto":
            from basketbench.runs.dispatch import Dispatcher

            dispatcher = Dispatcher(app.state.sessionmaker, settings)
            dispatcher.start()
        notifier = None
        if settings.notify_webhook_url or settings.github_token:
            from basketbench.changes.notify.dispatcher import NotifyDispatcher

            notifier = NotifyDispatcher(app.state.sessionmaker, settings)
            notifier.start()
        sweeper = None
        if settings.detection:
            from basketbench.changes.detection.queue import DetectionSweeper

            sweeper = DetectionSweeper(app.state.sessionmaker, settings)
            sweeper.start()
        # Everything alive now lives as long as the process: out of the collector's way.
        gc_tuning.apply(settings.gc)
        yield
        if dispatcher is not None:
            dispatcher.stop()
        if notifier is not None:
            notifier.stop()
        if sweeper is not None:
            sweeper.stop()
        engine.dispose()

    app = FastAPI(
        title="basketbench",
        version="1",
        description="Continuous performance tracking of ROOT's I/O compression. "
                    "Reads are public unless BASKETBENCH_PRIVATE_READS=true; writes need "
                    "`Authorization: Bearer <token>` (`basketbench token create`).",
        openapi_url=f"{API_PREFIX}/openapi.json",
        docs_url=None,  # served from local files: security_headers.mount_docs
        redoc_url=None,
        generate_unique_id_function=operation_id,
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.engine = engine
    app.state.sessionmaker = make_sessionmaker(engine)
    errors.install(app)
    if settings.cors_origins:
        app.add_middleware(
            CORSMiddleware, allow_origins=settings.cors_origins, allow_credentials=True,
            allow_methods=["*"], allow_headers=["*"])
    app.add_middleware(GZipMiddleware, minimum_size=GZIP_MIN_BYTES)
    app.add_middleware(guards.GuardMiddleware,
                       limits=guards.Limits(settings.max_in_flight, settings.max_exports))
    app.include_router(api_router())
    openapi_docs.document(app)
    docs_hashes = security_headers.mount_docs(app, f"{API_PREFIX}/openapi.json")
    page_hashes: list[str] = []
    dist = frontend_dist(settings)
    if dist is not None:
        page_hashes = security_headers.inline_script_hashes((dist / "index.html").read_text())
        mount_frontend(app, dist)
    # Outermost: every answer, errors and 413 / 429 / 503 included, carries the headers.
    app.add_middleware(security_headers.SecurityHeadersMiddleware,
                       page_csp=security_headers.page_policy(page_hashes, allow_eval=True),
                       docs_csp=security_headers.page_policy(docs_hashes))
    return app
