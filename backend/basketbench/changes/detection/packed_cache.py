"""The packed screen points this process has read, by document, so that a pass reads from
the database only the documents its window gained since the last pass (one, usually)
instead of all 121: a window's packed points are ~8 MB, which PostgreSQL decompressed and
sent on every pass (~10 ms of its CPU) for the API to copy again.

A document's row is written once (ingest, or a pass's rebuild) and never changed, except
by a rebuild of an older format, which deletes and inserts it. An entry is therefore used
only while the row's version (PostgreSQL's ``xmin``, returned with every window) is the one
it was read at; any other version is read again. Keyed weakly by engine: a new database
gets a fresh cache. SQLite (the laptop mode) has no row versions and reads every row.
Bounded by bytes, the least recently used entries dropped first."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine

from basketbench.core.engine_cache import PerEngine, VersionedLru

MAX_BYTES = 64 * 2**20  # ~900 documents of 864 results: the windows of seven machines

# document id -> (row version, packed points array)
_caches: PerEngine[VersionedLru[int, Any]] = PerEngine(
    lambda: VersionedLru(MAX_BYTES, size=lambda points: int(points.nbytes)))


def known(engine: Engine) -> list[int]:
    """The documents whose packed points this process holds (the window's query leaves
    their bytes out)."""
    cache = _caches.peek(engine)
    return cache.keys() if cache is not None else []


def get(engine: Engine, document_id: int, version: object) -> Any | None:
    """The packed points of a document read at this row version, or None."""
    cache = _caches.peek(engine)
    return cache.get(document_id, version) if cache is not None else None


def put(engine: Engine, document_id: int, version: object, points: Any) -> None:
    _caches.of(engine).put(document_id, version, points)
