"""SQL statements per request, for every read endpoint: a change that adds a query (a
round trip and a plan on every request) fails here, naming the endpoint and listing what
it ran. Counted on the second of two identical requests: the steady state, with the
process's caches (commit heads, dimensions) warm, as a serving API runs."""

from __future__ import annotations

import pytest
from endpoints import READS, request_urls
from sql_guards import StatementLog, count_problem

# name -> (status, statements). Update a count only with the reason in the commit.
EXPECTED: dict[str, tuple[int, int]] = {
    "health": (200, 6),  # + the newest documents' busy flags (speeds left out, issue 32)
    "repositories": (200, 1),
    "commits": (200, 2),
    "commit": (200, 2),
    "machines": (200, 2),  # page, then counts and latest commits in one statement
    "machine": (200, 2),
    "machine codec sets": (200, 2),
    "datasets": (200, 1),
    "configurations": (200, 1),
    "configuration dimensions": (200, 13),  # one DISTINCT per dimension (small tables)
    "configurations latest": (200, 5),
    "runs": (200, 4),  # + the listed runs' documents whose speeds were left out (issue 32)
    "run queues": (200, 2),
    "run": (200, 2),
    "results": (200, 5),
    # machine, dataset and configuration (one row); series rows; changes; the documents'
    # build ids (the builds' columns come from the process's cache)
    "history": (200, 4),
    # commit; machine and dataset (one row); the results grouped per configuration and
    # codec set (which also give the codec series); + the counted runs' values if any
    "tradeoff": (200, 3),
    # machine, 2 commits, 2 series indexes, 2 sides, both sides' builds and busy flags, and
    # the A/B effects of the pair (the speed rows' evidence, issue 32)
    "compare commits": (200, 9),
    "compare machines": (200, 8),
    "codec series": (200, 2),
    "changes": (200, 2),
    "changes summary": (200, 1),
    "change": (200, 4),
    "branch sizes": (200, 3),
    "recommend history": (200, 3),
    "advise runs": (200, 1),
    "advice": (404, 1),  # the seeded runs are no advise runs
    "advice path": (404, 1),
    "worker tags": (200, 3),
    "io breakdown": (404, 3),  # no end-to-end I/O measured in the seeded world
    "ab requests": (200, 2),  # the machine, then its requests
    "ab request": (404, 1),  # the seeded runs are no A/B requests
    "ab runs": (200, 4),  # machine, commit, the page of runs, its total
    "recommend speeds": (200, 5),  # machine, dataset, commit, its results, their A/B effects
    "lossy sweeps": (200, 1),
    "lossy sweep": (404, 1),  # no lossy sweep in the seeded world
    "lossy history": (404, 1),
    "arena": (200, 2),  # the newest run per file and machine, then its rows
    "arena history": (200, 1),
}


@pytest.fixture(scope="module")
def urls(seeded_psycopg) -> dict[str, str]:
    return request_urls(seeded_psycopg)


def counted(client, url: str) -> tuple[int, StatementLog]:
    client.get(url)  # warm the process's caches
    with StatementLog() as log:
        status = client.get(url).status_code
    return status, log


@pytest.mark.parametrize("name", sorted(READS))
def test_statements_per_request(reads, urls, name):
    status, log = counted(reads, urls[name])
    want_status, want = EXPECTED[name]
    assert status == want_status, f"{name}: HTTP {status}, expected {want_status}"
    problem = count_problem(name, want, log)
    assert problem is None, problem


def test_every_read_endpoint_is_guarded(reads):
    paths = {p for p, ops in reads.app.openapi()["paths"].items() if "get" in ops}
    guarded = {path for path, _url in READS.values()}
    assert paths - guarded == set(), "read endpoints without a statement count"
    assert set(READS) == set(EXPECTED)


def test_the_guard_names_a_planted_extra_query(reads, urls, monkeypatch):
    """The guard's own test: one more statement in history's path fails with the endpoint
    named and the planted statement listed."""
    from basketbench.analysis import history
    from sqlalchemy import text

    real = history.order_bounds

    def with_extra_query(session, *args):
        session.execute(text("SELECT 'planted' FROM commits LIMIT 1"))
        return real(session, *args)

    monkeypatch.setattr(history, "order_bounds", with_extra_query)
    status, log = counted(reads, urls["history"])
    assert status == 200
    problem = count_problem("history", EXPECTED["history"][1], log)
    assert problem is not None
    assert problem.startswith("history: ") and "SELECT 'planted' FROM commits" in problem
