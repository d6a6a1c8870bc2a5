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
