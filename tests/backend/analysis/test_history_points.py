"""History points from rows of one commit and codec set each (analysis/history.py)."""

from __future__ import annotations

from typing import Any

from basketbench.analysis.history import _history_points, _index_rows
from basketbench.analysis.schemas import HistoryPoint
from basketbench.catalog.commit_heads import CommitHead, head_of

SET_A = {"id": 7, "set": "host", "root_version": None, "libraries": {}, "series_key": "host"}


def row(commit: int, order: int, set_id: int | None, total: float, count: int, lo: float,
        hi: float, n: int, run: int) -> tuple:
    """A row of history's query: (commit id, order, row version, set id, sums...)."""
    return (commit, order, b"v1", set_id, total, count, lo, hi, 0.5, n, run)


def heads(asked: list[tuple[int, Any]]) -> dict[int, CommitHead]:
    """commitheads.heads without a database: every commit but 404 exists."""
    return {cid: head_of(f"{cid:040x}", None, "Ada", "msg\nbody") for cid, _ in asked
            if cid != 404}


def test_a_commit_measured_with_two_sets_of_one_series_is_one_point_of_all_its_results() -> None:
    rows = [row(1, 0, 7, 30.0, 3, 9.0, 11.0, 15, 1),
            row(2, 1, 7, 10.0, 1, 10.0, 10.0, 5, 2),
            row(2, 1, 8, 50.0, 4, 11.0, 14.0, 20, 3),   # same commit, another set of the series
            row(2, 1, 9, 999.0, 1, 999.0, 999.0, 1, 4)]  # a set of another series: left out
    points = _history_points(rows, {7, 8}, {7: SET_A}, heads)
    assert [p["order"] for p in points] == [0, 1]
    first, second = points
    assert first["value"] == 10.0 and first["codecs"] == SET_A and first["message"] == "msg"
    # (10 + 50) / (1 + 4): the mean of all five results, not the mean of two means
    assert second["value"] == 12.0
    assert (second["min"], second["max"], second["n"], second["run_id"]) == (10.0, 14.0, 25, 3)
    assert "codecs" not in second  # set 8 (the newest of the commit) is not described here


def test_a_commit_without_a_value_is_no_point_and_the_index_counts_commits_per_set() -> None:
    rows = [row(1, 0, None, 0.0, 0, 0.0, 0.0, 0, 1), row(2, 1, None, 4.0, 2, 1.0, 3.0, 2, 2),
            row(3, 5, 7, 1.0, 1, 1.0, 1.0, 1, 3)]
    assert [p["order"] for p in _history_points(rows, {None}, {}, heads)] == [1]
    assert sorted(_index_rows(rows), key=str) == sorted([(None, 1, 0, 2), (7, 5, 5, 1)], key=str)


def test_a_commit_deleted_after_the_query_is_no_point() -> None:
    rows = [row(1, 0, None, 1.0, 1, 1.0, 1.0, 1, 1), row(404, 1, None, 2.0, 1, 2.0, 2.0, 1, 2)]
    assert [p["sha"] for p in _history_points(rows, {None}, {}, heads)] == [f"{1:040x}"]


def test_a_point_has_the_fields_of_the_answer_in_its_order() -> None:
    """Points are plain dicts for speed; their keys are HistoryPoint's, in its order (the
    answer's bytes follow the dict's order)."""
    point, = _history_points([row(1, 0, 7, 2.0, 1, 2.0, 2.0, 1, 1)], {7}, {7: SET_A}, heads)
    # build_id is added by history for the points it keeps, last
    assert list(point) + ["build_id"] == list(HistoryPoint.model_fields)
    HistoryPoint.model_validate(point)
    bare, = _history_points([row(1, 0, None, 2.0, 1, 2.0, 2.0, 1, 1)], {None}, {}, heads)
    assert "codecs" not in bare  # not recorded: left out, not a null on every point
