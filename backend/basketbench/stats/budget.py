"""The confirmation rerun budget as a rule, independent of the database: the service
(changes/detection/budget.py) feeds it what a tag spent, bench/detection_quality.py what
the simulated tag spent.

Reruns are machine hours, so a tag spends at most ``per_commit`` reruns per measured commit
over a window of ``window`` commits. Two things the old rule got wrong (issue 32):
- it counted a young history's window by the commits measured so far, so the first
  candidates of a new tag (many of them: the reference is short) spent it and real steps in
  the first 26 commits stayed unconfirmed. The budget is a rate: a window not yet full
  counts as full.
- it served candidates in the order they came. Now a share of the allowance
  (``reserve``) is kept for strong evidence (screen q at most the final FDR level and an
  effect of at least the minimum): weak candidates, the ones noise makes, can never spend
  it, and a burst of real steps a few commits apart still gets its rounds.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class BudgetRule:
    per_commit: float = 1.0  # reruns per measured commit
    window: int = 50  # commits
    round_cost: int = 4  # reruns of one round (parent and suspect, confirm_runs each)
    reserve: float = 0.25  # share of the allowance only strong evidence may spend

    def allowance(self) -> int:
        """Reruns the window allows; at least two rounds, so that a budget of 0 per commit
        can still confirm a first change."""
        return max(int(self.per_commit * max(self.window, 1)), 2 * self.round_cost)

    def grants(self, spent: int, strong: bool) -> bool:
        """Whether one more round may be queued, ``spent`` reruns already in the window."""
        limit = self.allowance()
        if not strong:
            limit = int(limit * (1 - self.reserve))
        return spent + self.round_cost <= limit


def strong(q_value: float | None, delta: float, min_effect_pct: float, fdr_q: float,
           revert: bool = False) -> bool:
    """Evidence that would pass the final decision as it stands: q at most the final FDR
    level and an effect (fraction) of at least the minimum. A step back over a recent
    confirmed change (``revert``) tests one stated hypothesis, not one of a commit's
    hundreds of series: its effect alone makes it strong (in the benchmark half of the
    reverts 3 and 5 commits later were left unconfirmed by the budget otherwise)."""
    if abs(delta) * 100 < min_effect_pct:
        return False
    return revert or (q_value is not None and q_value <= fdr_q)
