"""SQL statements of one detection pass (changes/detection/service.after_ingest) per
ingested document, and that they do not grow with the history: the pass of the 13th
document runs as many statements as that of the 7th, and a pass on top of the 1 000-commit
seeded history of this folder (a full window: 121 commits) as many as on a 13-commit one.
Documents of two datasets x 5 settings (bb_factories), no change planted: the screen's
common path. On the long history the pass's Python work is counted too (numpy.median calls
and screen points per speed series), so per-point work that grows with the window fails a
test without a stopwatch."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from basketbench.app import create_app
from basketbench.changes.detection.service import after_ingest
from bb_factories import make_settings
from changes_support import ingest, make_doc
from fastapi.testclient import TestClient
from sql_guards import StatementLog, count_problem, plan_problems

# Statements of one pass (listed by the failure): the document, the machine's lock, commit and
# machine, the machine's commits, the series and codec sets of the commit, the window's
# packed points (screen_points, one row per document), the records, the commit's A/B
# effects, the busy check, the rerun budget. The newest points' samples are not read: each
# run's standard error is packed with its points (points.FORMAT 2); a candidate's samples
# are, for its evidence. The series' names come from the process's cache of datasets and
# configurations (catalog/dimensions.py: read once, by the first pass). Update only with
# the reason in the commit.
EXPECTED_PASS = 11


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


def test_a_candidates_samples_are_read_for_its_series_alone(quiet_client, auth_quiet, clean_db,
                                                              monkeypatch):
    """A step planted on ZSTD-5 (both datasets) makes candidates; their evidence reads the
    samples of their commits and parents for their own series, not for the window's every
    series at those commits (~1 700 JSON sample arrays parsed to use two: ~200 ms of such a
    pass on 5 M results)."""
    from basketbench.changes.detection import cells
    from basketbench.models import Change

    real = cells.load_series
    asked: list[set[tuple[int, int, str]]] = []

    def spy(session, machine_id, commits, keys=None, **kwargs):
        asked.append(set(keys) if keys is not None else {("every", "series", "")})
        return real(session, machine_id, commits, keys, **kwargs)

    for n in range(10):  # a history without a change, a pass after every document
        detection_pass(quiet_client, ingest(quiet_client, auth_quiet, make_doc(n))[
            "document_id"], clean_db)
    monkeypatch.setattr(cells, "load_series", spy)
    out = ingest(quiet_client, auth_quiet, make_doc(10, scale=0.8))
    detection_pass(quiet_client, out["document_id"], clean_db)
    with quiet_client.app.state.sessionmaker() as session:
        candidates = session.query(Change).filter(Change.kind == "speed").all()
        series = {(ch.dataset_id, ch.configuration_id) for ch in candidates}
    assert candidates, "the planted step made no candidate: the test reads nothing"
    assert asked, "the candidates' evidence read no samples"
    for keys in asked:
        assert {(ds, conf) for ds, conf, *_ in keys} <= series, (
            f"samples read for {len(keys)} series, the candidates are on {len(series)}")


@pytest.fixture
def auth_quiet(quiet_client):
    from basketbench.core.tokens import create_token

    with quiet_client.app.state.sessionmaker() as session:
        _, plain = create_token(session, "tests")
    return {"Authorization": f"Bearer {plain}"}


def test_a_pass_on_a_long_history_runs_the_statements_of_a_short_one(
        writable_seeded_url: str) -> None:
    """Two new documents on machine 1 of the seeded 1 000-commit history (bench.seed wrote
    it without packed points: the first pass writes its window's, the second is counted),
    ingested and screened in a transaction rolled back afterwards, in a seeded database of
    its own (the read guards' plans must not see its dead rows). The seeded results are
    given the documents' codec set first, so the new points continue the seeded series (a
    full window of 121 commits)."""
    import hashlib

    from basketbench.results import ingest as ingest_service
    from basketbench.web import guards
    from conftest import WORLD
    from sqlalchemy import create_engine, text
    from sqlalchemy.orm import Session

    from bench.documents import harness_document

    settings = make_settings(writable_seeded_url, detection=False)
    detect = make_settings(writable_seeded_url)
    engine = create_engine(writable_seeded_url)
    target = ingest_service.Target(None, None, None, None, None)
    try:
        with engine.connect() as conn:
            outer = conn.begin()
            with Session(bind=conn, join_transaction_mode="create_savepoint") as session:
                logs = []
                old: set[int] = set()
                for i in range(2):
                    sha = hashlib.sha1(f"long-history:{i}".encode()).hexdigest()
                    doc = harness_document(WORLD, WORLD.commits + i, 0, sha)
                    stored = ingest_service.ingest_harness(
                        session, settings, guards.loads(__import__("json").dumps(doc).encode()),
                        target)
                    if i == 0:  # the seeded series, under the documents' codec set
                        session.execute(text(
                            "UPDATE results SET codec_set_id = (SELECT codec_set_id FROM "
                            "result_documents WHERE id = :d) WHERE machine_id = 1"),
                            {"d": stored.document_id})
                    if i == 1:  # changes recorded long ago, before the pass's window
                        old = _old_changes(session, stored.document_id)
                    with StatementLog() as log, _per_point_work() as work, \
                            _changes_loaded() as loaded:
                        after_ingest(session, detect, stored.document_id)
                        session.commit()
                    logs.append(log)
            outer.rollback()
    finally:
        engine.dispose()
    counted = StatementLog([st for st in logs[1].statements  # the rolled-back transaction's
                            if not st.sql.startswith(("SAVEPOINT", "RELEASE SAVEPOINT"))])
    # the screen ran on the packed standard errors: no sample of ``results`` was read
    assert not any("c_samples" in st.sql for st in counted.statements), counted.listing()
    problem = count_problem("detection pass on a 1 000-commit history", EXPECTED_PASS, counted)
    assert problem is None, problem
    # ... and the two that find the window (its commits, its documents' packed points) read
    # no table of the history from end to end: the commits are found walking back along
    # git order, not by joining every document of the machine with every commit, and a
    # rerun is asked of its run by key, not found by scanning the runs (both grew with
    # the history). (The rerun budget's statement is left out: on this small world the
    # planner reads its 3 000 documents whole, on 5 M results it walks the newest back.)
    import psycopg

    window = StatementLog([st for st in counted.statements if "screen_points" in st.sql
                           or 'commits."order"' in st.sql and "result_documents" in st.sql])
    assert len(window.statements) == 2, counted.listing()
    with psycopg.connect(writable_seeded_url.replace("postgresql+psycopg://", "postgresql://",
                                                     1), autocommit=True) as conn:
        plans = plan_problems("detection pass on a 1 000-commit history", conn, window,
                              nearby=True)
    assert plans == [], "\n".join(plans)
    # The records read are the window's: the changes of older commits are not loaded
    # (they were every change ever recorded on the series: a cost growing with history).
    assert old and not old & loaded, (
        f"the pass loaded {len(old & loaded)} of {len(old)} changes recorded before its "
        f"window")
    # Python's share, counted rather than timed: per-point work must stay per series.
    series = work["series"]
    assert series > 0
    assert work["medians"] <= MEDIANS_PER_SERIES * series, (
        f"{work['medians']} numpy.median calls for {series} speed series in one pass: a "
        f"per-point median crept back in (the drift rule once took one per point of the "
        f"121-commit window: ~8x the pass's CPU)")
    assert work["cells"] <= CELLS_PER_SERIES * series, (
        f"{work['cells']} CommitValues made for {series} speed series: the window's cells "
        f"are read one by one again (changes/detection/cells.py makes them only when read; "
        f"all 121 per series were two thirds of a pass's CPU)")
    assert work["points"] <= POINTS_PER_SERIES * series, (
        f"{work['points']} screen points made for {series} series: the screen reads its "
        f"segments point by point again, not through their median arrays")


# Per speed series of a pass, at most: numpy.median calls (the count medians of the
# newest points; the window's run medians and e-divisive's effects are arrays), the
# window's cells made (the newest commits, read by the exact, count and sample steps) and
# the screen's points made (the newest ones, read by its tests). Counted on main: 0, 0
# and 0: the exact, count and busy rules read the cells' arrays, and the single test takes
# a newest point of one run from its median (before: 0, 1.5 and 3; before cells.py: 2, 60
# and 80). The bounds leave room for the few candidates of another history, not for a
# rule that reads a cell or a point of every series again (1 per speed series: fails).
MEDIANS_PER_SERIES = 2
CELLS_PER_SERIES = 0.5
POINTS_PER_SERIES = 0.5


def _old_changes(session: Any, document_id: int) -> set[int]:
    """Confirmed speed changes on the document's series at the history's 5th commit (far
    before a 121-commit window), as detection would have recorded them then."""
    from basketbench.models import Change, Commit, Result, ResultDocument
    from sqlalchemy import select

    doc = session.get(ResultDocument, document_id)
    old_commit = session.scalar(select(Commit.id).order_by(Commit.order).offset(4).limit(1))
    series = session.execute(select(Result.dataset_id, Result.configuration_id,
                                    Result.codec_set_id)
                             .where(Result.document_id == document_id).limit(20)).all()
    changes = [Change(commit_id=old_commit, machine_id=doc.machine_id, dataset_id=ds,
                      configuration_id=conf, codec_set_id=cs, metric="compress_mbps",
                      kind="speed", test="single", direction="regression", delta_pct=-5.0,
                      state="confirmed") for ds, conf, cs in series]
    session.add_all(changes)
    session.flush()
    for ch in changes:  # read again, not found in the session: a read fires "load"
        session.expunge(ch)
    return {ch.id for ch in changes}


@contextmanager
def _changes_loaded() -> Iterator[set[int]]:
    """The ids of the Change rows loaded from the database while active."""
    from basketbench.models import Change
    from sqlalchemy import event

    loaded: set[int] = set()

    def on_load(target: Any, _context: Any) -> None:
        loaded.add(target.id)

    event.listen(Change, "load", on_load)
    try:
        yield loaded
    finally:
        event.remove(Change, "load", on_load)


@contextmanager
def _per_point_work() -> Iterator[Counter[str]]:
    """Counts, while active, numpy.median calls ("medians"), the window's cells made
    ("cells": CommitValues), the screen's points ("points": SeriesPoint) and the speed
    series screened ("series": SeriesInput)."""
    import numpy as np
    from basketbench.changes.detection import history
    from basketbench.stats import engine

    work: Counter[str] = Counter()

    def counted(name: str, real: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            work[name] += 1
            return real(*args, **kwargs)
        return call

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(np, "median", counted("medians", np.median))
        patch.setattr(engine.SeriesPoint, "__init__",
                      counted("points", engine.SeriesPoint.__init__))
        patch.setattr(engine.SeriesInput, "__init__",
                      counted("series", engine.SeriesInput.__init__))
        patch.setattr(history.CommitValues, "__init__",
                      counted("cells", history.CommitValues.__init__))
        yield work
