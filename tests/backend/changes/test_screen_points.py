"""Detection from the packed screen points (changes/detection/points.py) gives the verdicts
of the reload from ``results``: every pass of one history runs twice on the same database
state, once per path, each in a transaction rolled back afterwards, and the changes each
recorded (new ones and the ones it updated) must be the same, field for field. The history
has what can make the two differ: commits arriving out of git order, a second regular run
of an older commit, reruns (never points), a busy run, instruction counts, an A/B-screened
commit, a speed step, a size change, and documents without a packed row (written before
migration 0042: rebuilt from results)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import pytest
from basketbench.app import create_app
from basketbench.catalog.commits import CommitInfo, store_commits
from basketbench.changes.detection import history, points
from basketbench.changes.detection.service import after_ingest
from basketbench.core.config import Settings
from basketbench.models import Repository, ResultDocument, Run, ScreenPoints
from basketbench.models.commit import Commit
from basketbench.stats.speed import within_se
from bb_factories import make_settings, sha
from changes_support import ingest, make_doc, with_counts, with_load_record
from fastapi.testclient import TestClient
from sqlalchemy import delete, func, select, text
from sqlalchemy.orm import Session
from test_changes_ab_first import add_ab

COMMITS = 34


@pytest.fixture
def quiet_client(clean_db: str) -> Iterator[TestClient]:
    """Ingest without detection: the test runs every pass itself."""
    with TestClient(create_app(make_settings(clean_db, detection=False))) as client:
        yield client


@pytest.fixture
def quiet_auth(quiet_client: TestClient) -> dict[str, str]:
    from basketbench.core.tokens import create_token

    with quiet_client.app.state.sessionmaker() as session:
        _, plain = create_token(session, "tests")
    return {"Authorization": f"Bearer {plain}"}


def _changes(session: Session, before: int) -> list[tuple[Any, ...]]:
    """Every change, new ones (id > before) without their ids, timestamps left out."""
    rows = session.execute(text("SELECT * FROM changes ORDER BY commit_id, dataset_id, "
                                "configuration_id, metric, test, id")).mappings().all()

    def ref(value: Any) -> Any:
        return "new" if value is not None and value > before else value

    def plain(value: Any) -> Any:  # JSON: request times and the new changes' ids out
        if isinstance(value, dict):
            return {k: len(v) if k == "change_ids" else plain(v) for k, v in value.items()
                    if not k.endswith("_at")}
        return [plain(v) for v in value] if isinstance(value, list) else value

    return [tuple((k, ref(v) if k in ("id", "reverts_id", "reverted_by_id") else plain(v))
                  for k, v in sorted(row.items()) if not k.endswith("_at"))
            for row in rows]


def _pass(client: TestClient, settings: Settings, document_id: int) -> list[tuple[Any, ...]]:
    """One pass in a transaction rolled back afterwards: the changes as it left them."""
    engine = client.app.state.engine
    with engine.connect() as conn:
        outer = conn.begin()
        with Session(bind=conn, join_transaction_mode="create_savepoint") as session:
            before = session.scalar(select(func.coalesce(func.max(text("id")), 0))
                                    .select_from(text("changes")))
            after_ingest(session, settings, document_id)
            found = _changes(session, before)
        outer.rollback()
    return found


def _cells_as_reloaded(session: Session, document_id: int) -> None:
    """The window's cells (points.load_window), each made and compared with what the reload
    from ``results`` gives, field for field, and their median arrays with the values'."""
    doc = session.get(ResultDocument, document_id)
    commit = session.get(Commit, doc.commit_id) if doc is not None else None
    assert doc is not None and commit is not None
    commits = history.recent_commits(session, doc.machine_id, commit, 121)
    keys = history.series_of_commit(session, doc.machine_id, commit.id)
    cells = points.load_window(session, doc.machine_id, commits, keys)
    reloaded = history.load_series(session, doc.machine_id, commits, keys, regular_only=True,
                                   samples_of=set())
    assert list(cells) == list(reloaded)  # the same series, in the same order
    for key, values in reloaded.items():
        mine = cells[key]
        fields = ("commit_id", "order", "codec_set_id", "ratio", "compressed_bytes",
                  "busy_runs", "samples_loaded")
        assert [[getattr(v, f) for f in fields] + [dict(v.runs), dict(v.counts)]
                for v in mine] == [[getattr(v, f) for f in fields]
                                   + [dict(v.runs), dict(v.counts)] for v in values]
        assert mine.commit_ids.tolist() == [v.commit_id for v in values]
        for metric in ("compress_mbps", "decompress_mbps"):
            assert mine.medians(metric).tolist() == pytest.approx(
                [v.median(metric) if v.runs.get(metric) else math.nan for v in values],
                rel=0, abs=0, nan_ok=True)
    # each run's packed standard error: within_se of the samples the reload gives its cell,
    # bit for bit, wherever the window knows it (cells of one run); cells of several runs
    # (commit 10 here) are left to their samples
    with_samples = history.load_series(session, doc.machine_id, commits, keys,
                                       regular_only=True)
    known = 0
    for key, values in with_samples.items():
        for metric in ("compress_mbps", "decompress_mbps"):
            for i, v in enumerate(values):
                se = cells[key].known_se(metric, i)
                runs = len(v.runs.get(metric, []))
                assert (se is None) == (runs != 1), (key, metric, v.commit_id, runs)
                if se is not None:
                    expected = float(within_se([v.samples[metric]])[0])
                    assert se == expected or math.isnan(se) and math.isnan(expected)
                    known += 1
    assert known > 0


def test_the_packed_points_give_the_verdicts_of_the_reload(
        quiet_client: TestClient, quiet_auth: dict[str, str], clean_db: str) -> None:
    common = {"detection_confirm_runs": 0}  # decided on the screen: no rerun ids to compare
    reload = make_settings(clean_db, detection_screen_points=False, **common)
    packed = make_settings(clean_db, detection_screen_points=True, **common)
    factory = quiet_client.app.state.sessionmaker
    first = ingest(quiet_client, quiet_auth, make_doc(0))
    with factory() as session:  # the git graph first: documents may then arrive out of order
        repo = session.scalar(select(Repository))
        assert repo is not None
        store_commits(session, repo, [CommitInfo(sha=sha(i), parents=[sha(i - 1)])
                                      for i in range(1, COMMITS)])
        session.commit()

    def doc(i: int, **kw: Any) -> dict[str, Any]:
        d = make_doc(i, **kw)
        if i in (5, 6, 7, 22, 23):  # counted commits; 23's ZSTD-5 decompression moved
            d = with_counts(d, count_scale=1.03 if i == 23 else 1.0)
        if i == 12:  # measured on a busy machine: speeds out of the screen
            d = with_load_record(d, busy=True)
        return d

    # (commit, document) in arrival order
    arrivals: list[tuple[int, dict[str, Any]]] = [(i, doc(i)) for i in range(1, 16)]
    arrivals += [(16, doc(16, scale=0.88))]  # a speed step on ZSTD-5
    arrivals += [(18, doc(18)), (17, doc(17, scale=0.88))]  # 17 after 18: out of git order
    arrivals += [(10, doc(10, seed=999))]  # a second regular run of an older commit
    arrivals += [(i, doc(i, scale=0.88)) for i in range(19, 26)]
    arrivals += [(26, doc(26, scale=0.88, size_scale=1.05))]  # a size change
    arrivals += [(i, doc(i, scale=0.88, size_scale=1.05)) for i in range(27, 30)]
    passes = 0
    documents = [first["document_id"]]
    for i, body in arrivals:
        if i == 21:  # a rerun of 20 before 21 lands: never a point of any window
            with factory() as session:
                run = Run(commit_id=session.scalar(select(Commit.id).where(
                    Commit.sha == sha(20))), tag="x86_64", suite="default", trigger="confirm",
                    status="running")
                session.add(run)
                session.commit()
                ingest(quiet_client, quiet_auth, make_doc(20, seed=77, run_id=run.id,
                                                          scale=0.5))
        if i == 24:  # 24 screened by its A/B against 23 (issue 32), before its results
            with factory() as session:
                add_ab(session, 24, 23, 0.97, seed=3)
        if i == 27:  # documents of the window without packed rows: rebuilt from results
            with factory() as session:
                session.execute(delete(ScreenPoints).where(
                    ScreenPoints.document_id.in_(documents[-8:])))
                session.commit()
        document_id = ingest(quiet_client, quiet_auth, body)["document_id"]
        documents.append(document_id)
        a, b = _pass(quiet_client, reload, document_id), _pass(quiet_client, packed,
                                                                   document_id)
        assert a == b, f"commit {i}: the two paths recorded different changes"
        with factory() as session:
            _cells_as_reloaded(session, document_id)
        passes += 1
        with factory() as session:  # the history goes on with the pass recorded
            after_ingest(session, packed, document_id)
    with factory() as session:
        recorded = {(t, k) for t, k in session.execute(text("SELECT test, kind FROM changes"))}
    # the history had something to decide: exact, count, speed and A/B changes
    assert {"exact", "count", "ab"} <= {t for t, _ in recorded}, recorded
    assert "speed" in {k for _, k in recorded}, recorded
    assert passes == len(arrivals)


def test_a_window_without_the_series_asked_for_is_empty(
        quiet_client: TestClient, quiet_auth: dict[str, str], clean_db: str) -> None:
    """No series asked for (a commit without a good round trip), or none of them in the
    window's points: no series, as the reload gives; the pass of such a commit records
    nothing and fails nothing."""
    ingest(quiet_client, quiet_auth, make_doc(0))
    broken = make_doc(1)
    for r in broken["results"]:
        r.update(roundtrip_ok=False, error="roundtrip mismatch", compress_mbps=None,
                 decompress_mbps=None)
    failed = ingest(quiet_client, quiet_auth, broken)
    for screen_points in (True, False):
        assert _pass(quiet_client, make_settings(clean_db, detection_screen_points=screen_points),
                     failed["document_id"]) == []
    out = ingest(quiet_client, quiet_auth, make_doc(2))
    with quiet_client.app.state.sessionmaker() as session:
        doc = session.get(ResultDocument, out["document_id"])
        commit = session.get(Commit, doc.commit_id) if doc is not None else None
        assert doc is not None and commit is not None
        commits = history.recent_commits(session, doc.machine_id, commit)
        assert points.load_window(session, doc.machine_id, commits, set()) == {}
        assert points.load_window(session, doc.machine_id, commits,
                                  {(-1, -1, "nowhere")}) == {}
        assert history.load_series(session, doc.machine_id, commits, {(-1, -1, "nowhere")},
                                   regular_only=True) == {}


def test_a_document_stores_its_packed_points_with_its_results(
        quiet_client: TestClient, quiet_auth: dict[str, str]) -> None:
    out = ingest(quiet_client, quiet_auth, make_doc(0))
    with quiet_client.app.state.sessionmaker() as session:
        row = session.get(ScreenPoints, out["document_id"])
        assert row is not None
        from basketbench.changes.detection.points import DTYPE

        assert len(row.packed) == out["results"] * DTYPE.itemsize


def test_a_pass_reads_the_packed_points_of_the_documents_it_has_not_read(
        quiet_client: TestClient, quiet_auth: dict[str, str], clean_db: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The process keeps the packed points it read (changes/detection/packed_cache.py): a
    pass takes from the database the bytes of the window's new document only, and reads
    again a row written anew since (its version changed)."""
    from basketbench.changes.detection import packed_cache

    settings = make_settings(clean_db, detection_confirm_runs=0)
    factory = quiet_client.app.state.sessionmaker
    engine = quiet_client.app.state.engine
    read: list[int] = []
    put = packed_cache.put
    monkeypatch.setattr(packed_cache, "put", lambda e, d, v, p: (read.append(d), put(e, d, v, p)))
    documents = []
    for i in range(6):
        documents.append(ingest(quiet_client, quiet_auth, make_doc(i))["document_id"])
        read.clear()
        with factory() as session:
            after_ingest(session, settings, documents[-1])
            session.commit()
        # the first pass reads its whole window; each later one, the new document alone
        assert read == (documents if i == 0 else [documents[-1]]), i
    assert set(documents) <= set(packed_cache.known(engine))

    # a row written anew (a rebuild deletes and inserts it): its new version is read
    with factory() as session:
        session.execute(text("UPDATE screen_points SET packed = packed WHERE document_id = :d"),
                        {"d": documents[2]})
        session.commit()
    documents.append(ingest(quiet_client, quiet_auth, make_doc(6))["document_id"])
    with factory() as session:
        version = session.scalar(text("SELECT xmin::text FROM screen_points "
                                      "WHERE document_id = :d"), {"d": documents[2]})
        assert packed_cache.get(engine, documents[2], version) is None  # held: the old one
        after_ingest(session, settings, documents[-1])
        session.commit()
    assert packed_cache.get(engine, documents[2], version) is not None
