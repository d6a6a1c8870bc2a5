"""The recommendation engine (measure/advise/ranking.py): costs, ranking, Pareto set,
sensitivity."""

from __future__ import annotations

import math

import pytest
from basketbench.measure.advise.ranking import Candidate, CostModel, cost_of, pareto_set, recommend

RAW = 100 * 1_000_000  # 100 MB of uncompressed baskets

# Shapes typical of the three families: LZ4 big and fast to read, ZSTD small and fast,
# ZLIB in between but slow to read; LZMA smallest and slowest.
LZ4 = Candidate(404, "none", RAW, 50_000_000, 40.0, 2000.0)
ZLIB = Candidate(101, "none", RAW, 40_000_000, 60.0, 300.0)
ZSTD = Candidate(505, "none", RAW, 36_000_000, 50.0, 900.0)
LZMA = Candidate(207, "none", RAW, 30_000_000, 2.0, 60.0)
ALL = [LZ4, ZLIB, ZSTD, LZMA]


def test_cost_follows_the_formula_term_by_term() -> None:
    m = CostModel(
        storage_per_tb_month=24.0, months=10.0, cpu_per_core_hour=3.6, reads_per_file=5.0,
        writes_per_file=2.0, network_mb_per_s=50.0,
    )
    c = cost_of(ZSTD, m)
    # storage: 36e6 B = 36e-6 TB, * 24 * 10
    assert c.storage == pytest.approx(36e-6 * 240)
    # one second costs 3.6 / 3600 = 0.001; transfer = 36 MB / 50 MB/s = 0.72 s
    assert c.write == pytest.approx(2 * (100 / 50 + 0.72) * 0.001)
    assert c.read == pytest.approx(5 * (100 / 900 + 0.72) * 0.001)
    assert c.total == pytest.approx(c.storage + c.write + c.read)


def test_storage_only_picks_the_smallest_and_cpu_only_the_fastest() -> None:
    storage_only = CostModel(cpu_per_core_hour=0.0)
    assert recommend(ALL, storage_only).best.candidate is LZMA
    # Free storage and an infinitely wide pipe is approximated by a very wide one:
    # then only compute time counts, and LZ4's reads win with many reads.
    cpu_only = CostModel(storage_per_tb_month=0.0, network_mb_per_s=1e9, reads_per_file=100)
    assert recommend(ALL, cpu_only).best.candidate is LZ4


def test_ranking_is_sorted_and_margin_is_relative_to_the_best() -> None:
    rec = recommend(ALL, CostModel())
    totals = [r.cost.total for r in rec.ranking]
    assert totals == sorted(totals)
    assert [r.rank for r in rec.ranking] == [1, 2, 3, 4]
    assert rec.margin == pytest.approx((totals[1] - totals[0]) / totals[0])
    assert rec.as_dict()["recommended"] == rec.best.candidate.label


def test_pareto_set_drops_only_dominated_settings() -> None:
    slow_and_big = Candidate(109, "none", RAW, 45_000_000, 10.0, 280.0)  # worse than 101 everywhere
    front = pareto_set([*ALL, slow_and_big])
    assert front == {0, 1, 2, 3}
    rec = recommend([*ALL, slow_and_big])
    assert {r.candidate.setting for r in rec.ranking if not r.pareto} == {109}


def test_sensitivity_crossing_is_where_the_winner_changes() -> None:
    model = CostModel(reads_per_file=10.0)
    rec = recommend(ALL, model)
    reads = [c for c in rec.sensitivity if c.parameter == "reads_per_file"]
    assert reads, rec.summary()
    for crossing in reads:
        # Just past the crossing the named setting wins; just before it the old winner holds.
        step = 1e-6 * max(1.0, crossing.value)
        past = crossing.value - step if crossing.direction == "below" else crossing.value + step
        before = crossing.value + step if crossing.direction == "below" else crossing.value - step
        winner = recommend(ALL, CostModel(reads_per_file=past)).best.candidate.label
        assert winner == crossing.winner
        assert (
            recommend(ALL, CostModel(reads_per_file=before)).best.candidate.label
            == rec.best.candidate.label
        )
    # the headline in words, not parameter names: "... instead if a file is read more than"
    assert "instead if a file is read" in rec.summary()
    assert "reads_per_file" not in rec.summary() and "% less total cost than" in rec.summary()


def test_bandwidth_crossing_direction_is_in_bandwidth_units() -> None:
    rec = recommend(ALL, CostModel())
    for crossing in (c for c in rec.sensitivity if c.parameter == "network_mb_per_s"):
        step = 1e-6 * crossing.value
        past = crossing.value - step if crossing.direction == "below" else crossing.value + step
        assert recommend(ALL, CostModel(network_mb_per_s=past)).best.candidate.label == (
            crossing.winner
        )


def test_single_candidate_has_no_margin_and_no_crossings() -> None:
    rec = recommend([ZSTD])
    assert math.isinf(rec.margin) and rec.sensitivity == []
    assert rec.as_dict()["margin"] is None
    assert rec.summary() == "ZSTD-5 (505) is the only measured setting"


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"reads_per_file": -1}, "reads_per_file"),
        ({"storage_per_tb_month": math.nan}, "storage_per_tb_month"),
        ({"network_mb_per_s": 0}, "network_mb_per_s"),
    ],
)
def test_bad_cost_model_names_the_field(kwargs: dict[str, float], field: str) -> None:
    with pytest.raises(ValueError, match=field):
        CostModel(**kwargs)


def test_bad_candidates_are_refused_by_name() -> None:
    with pytest.raises(ValueError, match="no measured settings"):
        recommend([])
    with pytest.raises(ValueError, match="decompress_mb_s"):
        recommend([Candidate(505, "none", RAW, 1, 1.0, 0.0)])
    with pytest.raises(ValueError, match="compressed_bytes"):
        recommend([Candidate(505, "shuffle", RAW, 0, 1.0, 1.0)])


def test_the_cli_fixture_ranks_the_same_today() -> None:
    """tests/fixtures/advise-hzz-zlib.json is `basketbench advise` output (HZZ, this machine):
    the browser test checks that the page ranks it as the CLI did, so the engine must too."""
    import json
    from dataclasses import asdict
    from pathlib import Path

    doc = json.loads((Path(__file__).parents[2] / "fixtures" / "advise-hzz-zlib.json").read_text())
    fields = ("setting", "preconditioner", "raw_bytes", "compressed_bytes", "compress_mb_s",
              "decompress_mb_s")
    cands = [Candidate(**{k: m[k] for k in fields}) for m in doc["measured"]]
    again = recommend(cands, CostModel(**doc["model"])).as_dict()
    assert [r["label"] for r in again["ranking"]] == [r["label"] for r in doc["ranking"]]
    assert again["summary"] == doc["summary"]
    assert doc["model"] == asdict(CostModel())
