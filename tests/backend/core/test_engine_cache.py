"""core/engine_cache.py: one cache per engine, entries used only at the row version they
were read at, bounded by size with the least recently used dropped first, and small tables
of rows written once read whole on a miss."""

from __future__ import annotations

from basketbench.core.engine_cache import PerEngine, VersionedLru, WrittenOnce
from sqlalchemy import create_engine, text
from sqlalchemy.orm import Session


def test_each_engine_has_its_own_cache_until_cleared():
    caches: PerEngine[dict[int, str]] = PerEngine(dict)
    one, two = create_engine("sqlite://"), create_engine("sqlite://")
    assert caches.peek(one) is None  # peek makes nothing
    caches.of(one)[1] = "a"
    assert caches.of(one) == {1: "a"} and caches.of(two) == {}
    caches.clear()
    assert caches.peek(one) is None and caches.of(one) == {}


def test_an_entry_is_used_only_at_its_version():
    lru: VersionedLru[int, str] = VersionedLru(10)
    lru.put(1, "v1", "one")
    assert lru.get(1, "v1") == "one"
    assert lru.get(1, "v2") is None  # the row was rewritten: read it again
    lru.put(1, "v2", "one'")
    assert lru.get(1, "v2") == "one'" and lru.get(1, "v1") is None and len(lru) == 1
    found, stale = lru.get_many([(1, "v2"), (2, "v1"), (1, "v9")])
    assert found == {1: "one'"} and stale == [2, 1]


def test_the_bound_drops_the_least_recently_used_by_size():
    lru: VersionedLru[str, bytes] = VersionedLru(10, size=len)
    lru.put_many([("a", 0, b"xxxx"), ("b", 0, b"xxxx")])
    assert lru.get("a", 0) == b"xxxx"  # "a" is now the more recently used
    lru.put("c", 0, b"xxxx")  # 12 bytes > 10: "b" goes
    assert lru.keys() == ["a", "c"] and lru.total == 8
    lru.put("a", 0, b"x")  # replacing an entry counts its new size only
    assert lru.total == 5
    lru.bound = 1
    lru.put("d", 0, b"x")
    assert lru.keys() == ["d"] and lru.total == 1


def test_a_written_once_table_is_read_whole_on_a_miss_and_only_then():
    engine = create_engine("sqlite://")
    with engine.begin() as conn:
        conn.execute(text("CREATE TABLE names (id INTEGER PRIMARY KEY, name TEXT)"))
        conn.execute(text("INSERT INTO names VALUES (1, 'a'), (2, 'b')"))
    loads: list[int] = []

    def load(session: Session) -> list[tuple[int, str]]:
        loads.append(1)
        return [(i, n) for i, n in session.execute(text("SELECT id, name FROM names"))]

    names: WrittenOnce[int, str] = WrittenOnce(load)
    with Session(engine) as session:
        assert names.lookup(session, [1]) == {1: "a"} and len(loads) == 1
        # Held keys: no statement. Every row came with the first miss.
        assert names.lookup(session, [2, 1]) == {1: "a", 2: "b"} and len(loads) == 1
        session.execute(text("INSERT INTO names VALUES (3, 'c')"))
        # A new key reads the table again; an unknown one is left out of the answer.
        assert names.lookup(session, [3, 9]) == {3: "c"} and len(loads) == 2
        assert names.lookup(session, [9]) == {} and len(loads) == 3
    other = create_engine("sqlite://")  # another database: its own cache, read on first use
    with other.begin() as conn:
        conn.execute(text("CREATE TABLE names (id INTEGER PRIMARY KEY, name TEXT)"))
        conn.execute(text("INSERT INTO names VALUES (1, 'z')"))
    with Session(other) as session:
        assert names.lookup(session, [1]) == {1: "z"} and len(loads) == 4
