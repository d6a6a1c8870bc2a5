"""SQL statements of one detection pass (changes/detection/service.after_ingest) per
ingested document, and that they do not grow with the history: the pass of the 13th
document runs as many statements as that of the 7th. Documents of two datasets x 5
settings (bb_factories), no change planted: the screen's common path."""

from __future__ import annotations

import pytest
from basketbench.app import create_app
from basketbench.changes.detection.service import after_ingest
from bb_factories import make_settings
from changes_support import ingest, make_doc
from fastapi.testclient import TestClient
from sql_guards import StatementLog, count_problem

# Statements of one pass (listed by the failure): the document, the machine's lock, commit and
# machine, the machine's commits, the series and codec sets of the commit, the series' rows,
# their documents, the records, names, the busy check, the rerun budget. Update only with
# the reason in the commit.
EXPECTED_PASS = 14  # + the commit's A/B effects (speed changes from A/B first, issue 32)


@pytest.fixture
def quiet_client(clean_db):
    """Ingest without detection (no pass after the answer, no sweeper): the test runs
    the passes itself, inside the statement log."""
    with TestClient(create_app(make_settings(clean_db, detection=False))) as client:
        yield client


def detection_pass(client, document_id: int, clean_db: str) -> StatementLog:
    settings = make_settings(clean_db)
    with client.app.state.sessionmaker() as session, StatementLog() as log:
        after_ingest(session, settings, document_id)
        session.commit()
    return log


def test_detection_statements_per_document_do_not_grow_with_the_history(
        quiet_client, auth_quiet, clean_db):
    logs = {}
    for n in range(13):  # a pass after every document, as the API runs them
        out = ingest(quiet_client, auth_quiet, make_doc(n))
        logs[n] = detection_pass(quiet_client, out["document_id"], clean_db)
    logs = {n: logs[n] for n in (6, 12)}
    for n, log in logs.items():
        problem = count_problem(f"detection pass of document {n + 1}", EXPECTED_PASS, log)
        assert problem is None, problem


def test_the_guard_names_a_planted_query_in_the_pass(quiet_client, auth_quiet, clean_db,
                                                     monkeypatch):
    from basketbench.changes.detection import service
    from sqlalchemy import text

    real = service.detect_commit

    def with_extra_query(session, *args, **kwargs):
        session.execute(text("SELECT 'planted' FROM results LIMIT 1"))
        return real(session, *args, **kwargs)

    monkeypatch.setattr(service, "detect_commit", with_extra_query)
    for n in range(3):
        out = ingest(quiet_client, auth_quiet, make_doc(n))
    problem = count_problem("detection pass", EXPECTED_PASS,
                            detection_pass(quiet_client, out["document_id"], clean_db))
    assert problem is not None and "SELECT 'planted' FROM results" in problem


@pytest.fixture
def auth_quiet(quiet_client):
    from basketbench.core.tokens import create_token

    with quiet_client.app.state.sessionmaker() as session:
        _, plain = create_token(session, "tests")
    return {"Authorization": f"Bearer {plain}"}
