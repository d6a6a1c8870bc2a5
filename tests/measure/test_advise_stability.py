"""`advise` twice on the same file at different loads: the same answer, or it says that the
answer is unstable (issue 32, item 5).

The two runs share the file's exact sizes and differ in the speeds measured, as the same
command ten minutes apart did on this project's machine (ZLIB compression 7.1 then 19.7 MB/s):
fed here as two rzbench speed documents, so the test does not depend on the machine's load.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from basketbench.measure.advise.advisor import AdviseOptions, compose
from basketbench.measure.advise.ranking import Candidate, CostModel
from basketbench.measure.advise.speed_evidence import choose_speeds
from basketbench.measure.advise.stability import resample_winners

RAW = 100_000_000
# exact compressed bytes per branch and setting: 508 a little smaller, 106 faster to write
BRANCHES = [
    {"tree": "Events", "branch": "Jet_pt", "type_class": "float", "raw_bytes": RAW // 2,
     "baskets": 10, "sizes": [{"setting": 106, "preconditioner": "none",
                               "compressed_bytes": 15_500_000},
                              {"setting": 508, "preconditioner": "none",
                               "compressed_bytes": 15_540_000}]},
    {"tree": "Events", "branch": "nJet", "type_class": "counts", "raw_bytes": RAW // 2,
     "baskets": 10, "sizes": [{"setting": 106, "preconditioner": "none",
                               "compressed_bytes": 15_500_000},
                              {"setting": 508, "preconditioner": "none",
                               "compressed_bytes": 15_560_000}]},
]


def speeds_document(zlib_compress: float, seed: int) -> dict[str, Any]:
    """An rzbench document whose ZLIB-6 compression ran at `zlib_compress` MB/s (+-2 %)."""
    rng = random.Random(seed)

    def stats(center: float) -> dict[str, Any]:
        samples = [center * (1 + rng.uniform(-0.02, 0.02)) for _ in range(5)]
        return {"median": sorted(samples)[2], "samples": samples}

    centers = {106: (zlib_compress, 200.0), 508: (10.0, 200.0)}
    return {
        "machine": {"cpu_model": "test CPU", "fingerprint_hash": "f" * 16},
        "codecs": {"set": "host", "libraries": {"zlib": "1.3.1", "zstd": "1.5.7"}},
        "created_at": "2026-11-27T08:00:00Z",
        "datasets": [{"name": "sample", "bytes": RAW}],
        "results": [{"setting": s, "preconditioner": "none", "error": None,
                     "compressed_bytes": 1, "compress_mbps": stats(c),
                     "decompress_mbps": stats(d)} for s, (c, d) in centers.items()],
    }


def advise_once(doc: dict[str, Any], history: Path | None) -> dict[str, Any]:
    options = AdviseOptions(settings=(106, 508), speed_history=history)
    return compose("skim.root", 505, BRANCHES, doc, stride=2, options=options)


SLOW, FAST = speeds_document(5.0, 1), speeds_document(19.7, 2)


def test_the_two_loads_rank_differently_on_their_own_speeds() -> None:
    """The premise: each run alone, on its own speeds, names another winner."""
    assert advise_once(SLOW, None)["recommended"] == "508"
    assert advise_once(FAST, None)["recommended"] == "106"


def test_advise_twice_at_different_loads_gives_the_same_answer_or_says_unstable(
        tmp_path: Path) -> None:
    history = tmp_path / "advise-speeds.jsonl"
    first = advise_once(SLOW, history)
    second = advise_once(FAST, history)
    assert first["speed_evidence"]["source"] == "this-run"
    assert second["speed_evidence"] == {**second["speed_evidence"], "source": "history",
                                        "runs": 2}
    for advice in (first, second):
        stability = advice["stability"]
        assert stability["resamples"] == 200
        assert sum(w["share"] for w in stability["winners"]) == 1.0
    if first["recommended"] != second["recommended"]:
        unstable = [a for a in (first, second) if not a["stability"]["stable"]]
        assert unstable, (first["summary"], second["summary"])
        for advice in unstable:
            # the contenders, not one winner: both settings named in the headline
            assert advice["summary"].startswith("No stable winner")
            assert set(advice["stability"]["contenders"]) == {"106", "508"}
            assert "unstable: " in advice["stability"]["statement"]
    # a third run at the slow load again: history of 3, still not one confident winner
    # unless it agrees with the median
    third = advise_once(SLOW, history)
    assert third["speed_evidence"]["runs"] == 3
    assert third["recommended"] == second["recommended"] or not third["stability"]["stable"]


def test_runs_at_the_same_load_agree_and_are_stable(tmp_path: Path) -> None:
    history = tmp_path / "advise-speeds.jsonl"
    answers = [advise_once(speeds_document(5.0, seed), history) for seed in (3, 4)]
    assert [a["recommended"] for a in answers] == ["508", "508"]
    assert all(a["stability"]["stable"] for a in answers)
    assert answers[1]["stability"]["statement"].startswith("stable: 508 wins in")


def test_history_is_per_build(tmp_path: Path) -> None:
    """Another machine's or codec build's speeds never enter this build's median."""
    history = tmp_path / "advise-speeds.jsonl"
    choose_speeds(SLOW, history)
    other = {**FAST, "codecs": {"set": "root-6.40.00", "libraries": {"zlib": "1.3.1"}}}
    assert choose_speeds(other, history).source == "this-run"
    assert choose_speeds(SLOW, history).runs == 2


def test_resampling_is_seeded_and_counts_every_resample() -> None:
    cands = [Candidate(106, "none", RAW, 31_000_000, 12.0, 200.0),
             Candidate(508, "none", RAW, 31_100_000, 10.0, 200.0)]
    samples = {(106, "none"): ([5.0, 19.7], [200.0, 200.0]),
               (508, "none"): ([10.0, 10.0], [200.0, 200.0])}
    a = resample_winners(cands, samples, CostModel(), seed=7)
    b = resample_winners(cands, samples, CostModel(), seed=7)
    assert a == b and not a.stable
    assert {label for label, _ in a.winners} == {"106", "508"}
    assert a.statement().startswith("unstable: 106 wins in")
