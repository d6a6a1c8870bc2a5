"""compare_view: what compare says when its samples cannot show any speed change."""

from __future__ import annotations

import pytest
from basketbench.analysis.compare import view as compare_view


def test_too_few_samples_are_named():
    # 3 vs 3 samples: the exact two-sided U test cannot go below 2 / C(6, 3) = 0.1
    assert compare_view.smallest_p([(3, 3)]) == pytest.approx(0.1)
    rule = compare_view.rule(0.05, 2.0, {}, 12, [(3, 3)])
    assert rule["smallest_possible_p"] == pytest.approx(0.1)
    assert "too few for any speed row to pass" in rule["note"]
    enough = compare_view.rule(0.05, 2.0, {}, 12, [(3, 3), (9, 9)])
    assert enough["note"] is None and enough["smallest_possible_p"] < 1e-3
    none = compare_view.rule(0.05, 2.0, {}, 0, [])
    assert none["smallest_possible_p"] is None and "no speed row has raw samples" in none["note"]


def test_merge_keeps_a_lone_ratio_row_and_inexact_means():
    conf = {"id": 1}
    rows = [{"dataset": "d", "configuration": conf, "metric": "ratio", "base": 2.0,
             "head": 2.5}]
    assert compare_view.merge_sizes([dict(r) for r in rows]) == rows
    size = {"dataset": "d", "configuration": conf, "metric": "compressed_bytes",
            "base": 10.5, "head": 11.0}
    out = compare_view.merge_sizes([dict(rows[0]), size])
    assert len(out) == 1 and out[0]["base_bytes"] is None and out[0]["head_bytes"] == 11
    assert out[0]["delta_bytes"] is None and out[0]["head_ratio"] == 2.5
