"""Caches an API process keeps per database engine, for rows requests read over and over.

Keyed weakly by engine: a new database (tests, another URL) gets fresh caches, and a
disposed engine's go with it. Two kinds of content:
- ``WrittenOnce``, for the rows of small tables that never change once written
  (configurations, datasets, builds, codec sets): a miss reads the whole table;
- ``VersionedLru``, for rows that may be rewritten: each entry is used only while the row's
  version (PostgreSQL's ``xmin``, selected with the row's key) is the one it was read at,
  and the least recently used entries are dropped once their sizes exceed a bound.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable
from typing import Generic, TypeVar
from weakref import WeakKeyDictionary

from sqlalchemy import Engine
from sqlalchemy.orm import Session

from basketbench.core.db import engine_of

T = TypeVar("T")
K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class PerEngine(Generic[T]):
    """One ``make()`` per engine, made on first use."""

    def __init__(self, make: Callable[[], T]) -> None:
        self._make = make
        self._lock = threading.Lock()
        self._by_engine: WeakKeyDictionary[Engine, T] = WeakKeyDictionary()

    def of(self, engine: Engine) -> T:
        with self._lock:
            found = self._by_engine.get(engine)
            if found is None:
                found = self._by_engine[engine] = self._make()
            return found

    def clear(self) -> None:
        """Forget every engine's cache (they are made again on first use)."""
        with self._lock:
            self._by_engine.clear()

    def peek(self, engine: Engine) -> T | None:
        """The engine's cache if one was made (nothing is made)."""
        with self._lock:
            return self._by_engine.get(engine)


class WrittenOnce(Generic[K, V]):
    """key -> value for a small table whose rows never change once written, per engine.
    A key not held reads every row (``load(session)``: (key, value) pairs): one statement
    whose text never changes, cheaper than an IN list that changes with every request,
    and the next new keys are most likely there too. Thread-safe: a read that finds
    nothing new waits for no lock."""

    def __init__(self, load: Callable[[Session], Iterable[tuple[K, V]]]) -> None:
        self._load = load
        self._lock = threading.Lock()
        self._caches: PerEngine[dict[K, V]] = PerEngine(dict)

    def lookup(self, session: Session, keys: Iterable[K]) -> dict[K, V]:
        """The held or loaded value of each key the table has (unknown keys left out)."""
        cache = self._caches.of(engine_of(session))
        wanted = set(keys)
        if not wanted <= cache.keys():
            loaded = dict(self._load(session))
            with self._lock:  # one writer at a time; readers see whole entries
                cache.update(loaded)
        return {k: cache[k] for k in wanted if k in cache}

    def clear(self) -> None:
        self._caches.clear()


class VersionedLru(Generic[K, V]):
    """key -> (row version, value), bounded by the sum of ``size(value)`` (1 each unless
    told otherwise): the least recently used entries are dropped first. Thread-safe."""

    def __init__(self, bound: int, size: Callable[[V], int] = lambda _value: 1) -> None:
        self.bound = bound
        self._size = size
        self._lock = threading.Lock()
        self._entries: OrderedDict[K, tuple[object, V]] = OrderedDict()
        self.total = 0

    def __len__(self) -> int:
        return len(self._entries)

    def keys(self) -> list[K]:
        with self._lock:
            return list(self._entries)

    def get(self, key: K, version: object) -> V | None:
        """The value read at this row version, or None (absent, or read at another)."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None or entry[0] != version:
                return None
            self._entries.move_to_end(key)
            return entry[1]

    def get_many(self, wanted: Iterable[tuple[K, object]]) -> tuple[dict[K, V], list[K]]:
        """(the values held at the given versions, the keys to read again), under one
        acquisition of the lock (history asks for 2 000 commits at once)."""
        found: dict[K, V] = {}
        stale: list[K] = []
        with self._lock:
            entries = self._entries
            for key, version in wanted:
                entry = entries.get(key)
                if entry is not None and entry[0] == version:
                    found[key] = entry[1]
                    entries.move_to_end(key)
                else:
                    stale.append(key)
        return found, stale

    def put(self, key: K, version: object, value: V) -> None:
        self.put_many(((key, version, value),))

    def put_many(self, items: Iterable[tuple[K, object, V]]) -> None:
        with self._lock:
            for key, version, value in items:
                old = self._entries.pop(key, None)
                if old is not None:
                    self.total -= self._size(old[1])
                self._entries[key] = (version, value)
                self.total += self._size(value)
            while self.total > self.bound and self._entries:
                _, (_, dropped) = self._entries.popitem(last=False)
                self.total -= self._size(dropped)
