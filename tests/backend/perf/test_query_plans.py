"""The plans PostgreSQL chooses for every statement of every read endpoint, on the seeded
world after VACUUM ANALYZE (bench.seed): no sequential scan over results or
result_documents, and no walk through a whole index of theirs (sql_guards.whole_reads).
A change that makes a query read a whole table (a dropped or unusable index, a filter no
index serves) fails here, naming the endpoint, the statement and the plan node --
whatever the machine's speed."""

from __future__ import annotations

import pytest
from endpoints import READS, request_urls
from sql_guards import StatementLog, plan_problems


@pytest.fixture(scope="module")
def captured(reads, seeded_psycopg) -> dict[str, StatementLog]:
    """name -> the statements of its request (second of two, caches warm)."""
    out = {}
    for name, url in request_urls(seeded_psycopg).items():
        reads.get(url)
        with StatementLog() as log:
            reads.get(url)
        out[name] = log
    return out


@pytest.mark.parametrize("name", sorted(READS))
def test_no_sequential_scan_over_the_big_tables(captured, seeded_psycopg, name):
    problems = plan_problems(name, seeded_psycopg, captured[name])
    assert problems == [], "\n".join(problems)


class _Rollback(Exception):
    pass


@pytest.mark.parametrize(("index", "name", "node"), [
    ("ix_result_documents_machine_commit", "history", "Seq Scan on result_documents"),
    # history's series, read through the other index of results from end to end
    ("ix_results_series", "history", "Index Scan using ix_results_commit_machine on results "
     "without a condition on its first column commit_id"),
])
def test_the_guard_names_a_dropped_index(captured, seeded_psycopg, index, name, node):
    """The guard's own test: with the index gone (in a transaction rolled back), the
    statements that used it plan a sequential scan, and the guard says which."""
    problems: list[str] = []
    with pytest.raises(_Rollback), seeded_psycopg.transaction():
        seeded_psycopg.execute(f'DROP INDEX "{index}"')
        problems = plan_problems(name, seeded_psycopg, captured[name])
        raise _Rollback
    assert problems, f"dropping {index} changed no plan of {name}"
    assert all(p.startswith(f"{name}: statement ") for p in problems)
    assert any(f"plans a {node}" in p for p in problems), problems
    # the index is back: the plans are clean again
    assert plan_problems(name, seeded_psycopg, captured[name]) == []
