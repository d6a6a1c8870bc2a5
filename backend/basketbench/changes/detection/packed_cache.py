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

import threading
from collections import OrderedDict
from typing import Any
from weakref import WeakKeyDictionary

from sqlalchemy import Engine

MAX_BYTES = 64 * 2**20  # ~900 documents of 864 results: the windows of seven machines

_lock = threading.Lock()
_caches: WeakKeyDictionary[Engine, _Cache] = WeakKeyDictionary()


class _Cache:
    def __init__(self) -> None:
        self.entries: OrderedDict[int, tuple[object, Any]] = OrderedDict()  # id -> (xmin, array)
        self.size = 0


def known(engine: Engine) -> list[int]:
    """The documents whose packed points this process holds (the window's query leaves
    their bytes out)."""
    with _lock:
        cache = _caches.get(engine)
        return list(cache.entries) if cache is not None else []


def get(engine: Engine, document_id: int, version: object) -> Any | None:
    """The packed points of a document read at this row version, or None."""
    with _lock:
        cache = _caches.get(engine)
        entry = cache.entries.get(document_id) if cache is not None else None
        if cache is None or entry is None or entry[0] != version:
            return None
        cache.entries.move_to_end(document_id)
        return entry[1]


def put(engine: Engine, document_id: int, version: object, points: Any) -> None:
    with _lock:
        cache = _caches.setdefault(engine, _Cache())
        old = cache.entries.pop(document_id, None)
        if old is not None:
            cache.size -= old[1].nbytes
        cache.entries[document_id] = (version, points)
        cache.size += points.nbytes
        while cache.size > MAX_BYTES and cache.entries:
            _, (_, dropped) = cache.entries.popitem(last=False)
            cache.size -= dropped.nbytes
