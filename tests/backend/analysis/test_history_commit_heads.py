"""History takes each commit's sha, date, author and message from a per-process cache
(catalog/commit_heads) checked against the row's version: a commit changed after it was
cached is shown as it is now."""

from __future__ import annotations

from bb_factories import document, post_webhook, push_payload, sha
from sqlalchemy import text

HISTORY = "/api/v1/history?machine=bench-01&dataset=nanoaod&setting=505"


def test_history_shows_commit_details_filled_in_after_they_were_cached(client, auth, session):
    shas = [sha(i, "heads") for i in range(3)]
    for s in shas:  # ingest first: the commits are known by their sha only
        assert client.post("/api/v1/results", json=document(commit=s), headers=auth
                           ).status_code == 201
    before = client.get(HISTORY).json()["points"]
    assert [p["sha"] for p in before] == shas
    assert [(p["author"], p["message"], p["date"]) for p in before] == [(None, None, None)] * 3

    # The push names them later: author, date and message are filled in.
    assert post_webhook(client, "push", push_payload(shas), "heads-1").status_code == 202
    after = client.get(HISTORY).json()["points"]
    assert [p["sha"] for p in after] == shas
    assert [p["author"] for p in after] == ["Dev"] * 3
    assert [p["message"] for p in after] == ["commit 0", "commit 1", "commit 2"]  # first line
    assert all(p["date"] is not None for p in after)

    # Any other update of a row (here the order, as a late parent moves a commit) shows too.
    session.execute(text("UPDATE commits SET \"order\" = \"order\" + 100, author = 'Ada' "
                         "WHERE sha = :s"), {"s": shas[0]})
    session.commit()
    moved = client.get(HISTORY).json()["points"]
    assert [p["sha"] for p in moved] == shas[1:] + shas[:1]
    assert moved[-1]["author"] == "Ada" and moved[-1]["order"] == after[0]["order"] + 100
    assert [p["author"] for p in moved[:2]] == ["Dev", "Dev"]


def test_the_cache_is_bounded_and_a_dropped_commit_is_read_again(client, auth, session):
    from basketbench.catalog import commit_heads as commitheads

    engine = client.app.state.sessionmaker.kw["bind"]
    commitheads.caches.of(engine).bound = 2
    shas = [sha(i, "bounded") for i in range(3)]
    for s in shas:
        assert client.post(f"/api/v1/results?commit={s}", json=document(commit=None),
                           headers=auth).status_code == 201
    for _ in range(2):  # the second request misses the commit dropped by the first
        assert [p["sha"] for p in client.get(HISTORY).json()["points"]] == shas
    assert len(commitheads.caches.of(engine)) == 2
