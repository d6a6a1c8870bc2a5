"""The rerun budget of a tag, through the API: with a budget of 0 reruns per commit a tag
still gets its one round floor (two rounds of 4 reruns here), and the next candidate is
left unconfirmed with the reason instead of queueing more machine hours."""

from __future__ import annotations

import pytest
from basketbench.core.config import Settings
from bb_factories import make_settings, sha
from changes_support import changes, ingest, make_doc, runs
from fastapi.testclient import TestClient
from test_changes_detection import seed_history
from test_changes_lifecycle import answer_reruns

HISTORY = 12


@pytest.fixture
def settings(clean_db: str) -> Settings:
    return make_settings(clean_db, detection_rerun_budget=0.0, detection_budget_commits=50)


def test_candidates_beyond_the_tags_rerun_budget_are_left_unconfirmed(
        client: TestClient, auth: dict[str, str]) -> None:
    seed_history(client, auth, HISTORY)
    for i in (HISTORY, HISTORY + 1):  # two flukes: one round of reruns each
        ingest(client, auth, make_doc(i, scale=0.90))
        assert {c["commit"]["sha"] for c in changes(client, state="pending")} == {sha(i)}
        assert answer_reruns(client, auth, {i - 1: 1.0, i: 1.0, HISTORY - 1: 1.0}) == 4
    ingest(client, auth, make_doc(HISTORY + 2, scale=0.90))
    assert changes(client, state="pending") == []
    left = changes(client, state="unconfirmed")
    assert left and {c["commit"]["sha"] for c in left} == {sha(HISTORY + 2)}
    assert all("rerun budget" in c["state_reason"] for c in left)
    assert len([r for r in runs(client) if r["trigger"] == "confirm"]) == 8
