"""Two documents of one commit and machine arrive together (two runs of a matrix, a rerun):
their detection passes run at the same time on PostgreSQL, and both must end well, with
each change recorded once (the CI run of 2026-11-24 lost a pass to a unique violation)."""

from __future__ import annotations

import threading
from typing import Any

from basketbench.app import create_app
from basketbench.changes.detection.service import after_ingest
from basketbench.core.config import Settings
from basketbench.models import Change
from bb_factories import make_settings
from changes_support import ingest, make_doc
from fastapi.testclient import TestClient
from sqlalchemy import func, select


def test_concurrent_passes_of_one_commit_record_each_change_once(
        settings: Settings, auth: dict[str, str]) -> None:
    # Ingest without detection, then run the passes by hand, side by side.
    quiet = make_settings(settings.database_url, detection=False)
    with TestClient(create_app(quiet)) as client:
        for i in range(3):
            ingest(client, auth, make_doc(i))
        docs = [ingest(client, auth, make_doc(3, size_scale=1.02, seed=seed))["document_id"]
                for seed in (500, 501)]
        sessionmaker = client.app.state.sessionmaker  # type: ignore[attr-defined]
        errors: list[BaseException] = []
        confirmed: list[list[int]] = []
        start = threading.Barrier(len(docs))

        def detect(document_id: int) -> None:
            try:
                with sessionmaker() as session:
                    start.wait()
                    confirmed.append(after_ingest(session, settings, document_id).confirmed)
            except BaseException as e:  # noqa: BLE001 - reported by the assertion below
                errors.append(e)

        threads = [threading.Thread(target=detect, args=(d,)) for d in docs]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
        assert not any(t.is_alive() for t in threads), "a detection pass never ended"
        assert errors == []
        with sessionmaker() as session:
            rows: list[Any] = list(session.execute(
                select(Change.dataset_id, Change.configuration_id, Change.metric,
                       func.count()).group_by(Change.dataset_id, Change.configuration_id,
                                              Change.metric)))
    # ZSTD-5 on two datasets, size and ratio: four changes, each once, raised by one pass.
    assert len(rows) == 4, rows
    assert all(n == 1 for *_, n in rows), rows
    assert sorted(len(c) for c in confirmed) == [0, 4]
