"""compare_view: the rule compare states, and the order of its decided rows."""

from __future__ import annotations

from basketbench.analysis.compare import view as compare_view


def test_the_rule_names_why_no_speed_row_has_a_verdict():
    nothing = compare_view.rule(2.0, {}, 0.5, machines=False,
                                evidence={"ab": 0, "counts": 0, "none": 12})
    assert "none of the 12 speed rows" in nothing["note"]
    assert "queue an interleaved A/B" in nothing["note"]
    assert "different times" in nothing["speed_without_evidence"]
    machines = compare_view.rule(2.0, {}, 0.5, machines=True,
                                 evidence={"ab": 0, "counts": 0, "none": 3})
    assert machines["note"].startswith("two machines") and "queue" not in machines["note"]
    some = compare_view.rule(2.0, {}, 0.5, machines=False,
                             evidence={"ab": 4, "counts": 0, "none": 8})
    assert some["note"] is None and some["count_threshold_pct"] == 0.5
    assert compare_view.rule(2.0, {}, 0.5, machines=False,
                             evidence={"ab": 0, "counts": 0, "none": 0})["note"] is None


def test_decided_order_ranks_speed_rows_by_their_evidence():
    def speed(delta, evidence, significant=True):
        return {"metric": "compress_mbps", "delta_pct": delta, "significant": significant,
                "evidence": evidence}

    ab = speed(-80.0, {"kind": "ab", "ratio": 0.97})  # runs said -80 %, the A/B -3 %
    counted = speed(1.0, {"kind": "counts", "instructions_delta_pct": 5.0})
    none = speed(-90.0, {"kind": "none"}, significant=False)
    size = {"metric": "compressed_bytes", "delta_pct": 0.1, "significant": True,
            "evidence": None}
    assert compare_view.arrange([none, ab, counted, size], "decided") == [
        size, counted, ab, none]


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
