"""How stable a recommendation is: rank again with resampled speeds and count the winners.

Sizes are exact; speeds are samples of a noisy machine. Each resample draws, per setting,
as many compression (decompression) speeds as were measured, with replacement, from that
setting's samples and takes their median; the settings are then ranked under the same cost
model. The share of resamples each setting wins says how much the answer depends on the
speeds measured: "106 wins in 62 % of 200 resamples, 508 in 38 %". A winner below
STABLE_SHARE is no answer: the statement names the contenders instead.

Seeded (`random.Random(seed)`), so the same samples give the same statement.
"""

from __future__ import annotations

import random
import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from basketbench.measure.advise.ranking import (
    Candidate,
    CostModel,
    cost_of,
    recommend,
    setting_words,
)

RESAMPLES = 200
# The winner must win this share of the resamples to be called stable.
STABLE_SHARE = 0.9
# Settings winning at least this share are listed as contenders of an unstable answer.
CONTENDER_SHARE = 0.05

# (setting, preconditioner) -> (compression MB/s samples, decompression MB/s samples)
SpeedSamples = Mapping[tuple[int, str], tuple[Sequence[float], Sequence[float]]]


@dataclass(frozen=True)
class Stability:
    resamples: int
    seed: int
    winners: list[tuple[str, float]]  # (label, share of resamples), most wins first

    @property
    def stable(self) -> bool:
        return bool(self.winners) and self.winners[0][1] >= STABLE_SHARE

    @property
    def contenders(self) -> list[str]:
        if self.stable:
            return [self.winners[0][0]]
        return [label for label, share in self.winners if share >= CONTENDER_SHARE]

    def statement(self) -> str:
        """E.g. "stable: 505 wins in 97 % of 200 resamples of the speeds, 101 in 3 %", or
        "unstable: 106 wins in 62 % ..., 508 in 38 %: contenders 106, 508"."""
        shares = ", ".join(
            f"{label} wins in {100 * share:.0f} % of {self.resamples} resamples of the speeds"
            if i == 0 else f"{label} in {100 * share:.0f} %"
            for i, (label, share) in enumerate(self.winners[:4]))
        if self.stable:
            return f"stable: {shares}"
        return f"unstable: {shares}: contenders {', '.join(self.contenders)}"

    def as_dict(self) -> dict[str, object]:
        return {
            "resamples": self.resamples,
            "seed": self.seed,
            "winners": [{"label": label, "share": share} for label, share in self.winners],
            "stable": self.stable,
            "contenders": self.contenders,
            "statement": self.statement(),
        }


def _bootstrap_median(rng: random.Random, samples: Sequence[float]) -> float:
    return statistics.median(rng.choices(samples, k=len(samples)))


def resample_winners(
    candidates: Sequence[Candidate],
    samples: SpeedSamples,
    model: CostModel,
    resamples: int = RESAMPLES,
    seed: int = 0,
) -> Stability:
    """The share of `resamples` rankings each candidate wins; candidates without samples keep
    their measured speeds."""
    rng = random.Random(seed)
    wins: Counter[str] = Counter()
    for _ in range(resamples):
        best_label, best_key = "", (float("inf"), 0, 0)
        for c in candidates:
            found = samples.get((c.setting, c.preconditioner))
            comp, dec = c.compress_mb_s, c.decompress_mb_s
            if found is not None and found[0] and found[1]:
                comp = _bootstrap_median(rng, found[0])
                dec = _bootstrap_median(rng, found[1])
            drawn = Candidate(c.setting, c.preconditioner, c.raw_bytes, c.compressed_bytes,
                              comp, dec)
            # the ranking's own order: total cost, then smaller, then lower setting
            key = (cost_of(drawn, model).total, c.compressed_bytes, c.setting)
            if key < best_key:
                best_label, best_key = c.label, key
        wins[best_label] += 1
    winners = sorted(((label, n / resamples) for label, n in wins.items()),
                     key=lambda w: (-w[1], w[0]))
    return Stability(resamples, seed, winners)


def recommend_stably(candidates: Sequence[Candidate], samples: SpeedSamples, model: CostModel,
                     seed: int = 0) -> dict[str, Any]:
    """The ranking (`Recommendation.as_dict`) with its stability; an unstable answer's
    headline names the contenders first, then the ranking at the median speeds."""
    out = recommend(candidates, model).as_dict()
    stability = resample_winners(candidates, samples, model, seed=seed)
    out["stability"] = stability.as_dict()
    if not stability.stable:
        contenders = " or ".join(setting_words(c) for c in stability.contenders)
        out["summary"] = (f"No stable winner: {contenders} depending on the speeds measured "
                          f"({stability.statement()}); at the median speeds, {out['summary']}")
    return out
