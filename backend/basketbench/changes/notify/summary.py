"""The content of a notification: one table row per confirmed change, with links and the
evidence behind it.

No speed verdict without evidence (issue 32): a speed change is told as one only when an
interleaved A/B of the commit against its reference backs it, or instruction counts moved
with it; a speed shift seen only between runs measured at different times is left out of
the rows, the counts and the commit status, and the headline says how many were."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from sqlalchemy import select
from sqlalchemy.orm import Session

from basketbench.core.config import Settings
from basketbench.models import Change, Commit, Configuration, Dataset, Machine, Repository
from basketbench.models.result import COUNT_METRICS


def commit_url(repo: Repository, sha: str) -> str:
    """The commit on its repository's web page (GitHub unless the repository says)."""
    base = (repo.url or f"https://github.com/{repo.name}").removesuffix(".git").rstrip("/")
    return f"{base}/commit/{sha}"


@dataclass
class Row:
    change_id: int
    series: str
    metric: str
    delta_pct: float
    direction: str
    interval: str
    q_value: float | None
    plot_url: str
    evidence: str = "exact"


@dataclass
class Summary:
    repository: str
    commit: str
    commit_url: str
    machine: str
    tag: str
    changes_url: str
    rows: list[Row] = field(default_factory=list)
    bisected_from: str | None = None
    # confirmed speed changes without A/B or counts evidence: not told as verdicts
    without_evidence: int = 0

    def _counted(self) -> list[Row]:
        """One row per changed series: a size change is a compressed-size row and a ratio
        row of the same series, counted once (the size row)."""
        sized = {r.series for r in self.rows if r.metric == "compressed_bytes"}
        return [r for r in self.rows if not (r.metric == "ratio" and r.series in sized)]

    @property
    def regressions(self) -> int:
        return sum(r.direction == "regression" for r in self._counted())

    @property
    def improvements(self) -> int:
        return sum(r.direction == "improvement" for r in self._counted())

    def headline(self) -> str:
        found = " (culprit found by bisection)" if self.bisected_from else ""
        return (f"basketbench: {self.regressions} regression(s), {self.improvements} "
                f"improvement(s) confirmed on {self.tag} ({self.machine}) at "
                f"{self.commit[:12]}{found}{self.unbacked()}")

    def unbacked(self) -> str:
        """What was left out, said: speed shifts without A/B or counts evidence."""
        if not self.without_evidence:
            return ""
        return (f"; {self.without_evidence} speed shift(s) without A/B or instruction-count "
                "evidence: no verdict")

    def markdown_table(self, limit: int = 30) -> str:
        lines = ["| series | metric | change | 95 % interval | q | evidence | plot |",
                 "|---|---|---:|---|---:|---|---|"]
        for r in self.rows[:limit]:
            arrow = "🔻" if r.direction == "regression" else "🔺"
            q = f"{r.q_value:.2g}" if r.q_value is not None else "exact"
            lines.append(f"| {r.series} | {r.metric} | {arrow} {r.delta_pct:+.2f} % | "
                         f"{r.interval} | {q} | {r.evidence} | [history]({r.plot_url}) |")
        if len(self.rows) > limit:
            lines.append(f"| ... {len(self.rows) - limit} more | | | | | | "
                         f"[all]({self.changes_url}) |")
        return "\n".join(lines)


def evidence_of(change: Change) -> str | None:
    """What backs a confirmed change, in words; None for a speed change nothing but runs
    measured at different times backs (no verdict).

    Sizes are exact; instruction counts near-exact (a count change is code); a speed
    change is backed by an interleaved A/B of the commit against its reference (raised or
    confirmed by one: test "ab", evidence ab_*, or an A/B confirmation) or by instruction
    counts that moved with it (attribution "code")."""
    if change.kind == "exact":
        return "instruction counts" if (change.test == "count"
                                        or change.metric in COUNT_METRICS) else "exact"
    found = change.evidence or {}
    confirmation = change.confirmation or {}
    if change.test == "ab" or "ab_ratio" in found or confirmation.get("kind") == "ab":
        confirming = confirmation.get("result")
        result: dict[str, Any] = confirming if isinstance(confirming, dict) else {}
        pairs = result.get("pairs", found.get("ab_pairs"))
        return f"A/B, {pairs} pairs" if isinstance(pairs, int) else "A/B"
    if found.get("attribution") == "code":
        return "instruction counts moved with it"
    return None


def summarise(session: Session, settings: Settings, repo: Repository, commit: Commit,
              machine: Machine, changes: list[Change]) -> Summary:
    base = settings.public_url.rstrip("/")
    ds = dict(session.execute(select(Dataset.id, Dataset.name).where(
        Dataset.id.in_({c.dataset_id for c in changes}))).all())
    confs = {c.id: c for c in session.scalars(select(Configuration).where(
        Configuration.id.in_({c.configuration_id for c in changes})))}
    summary = Summary(repository=repo.name, commit=commit.sha,
                      commit_url=commit_url(repo, commit.sha), machine=machine.name,
                      tag=machine.tag,
                      changes_url=f"{base}/changes?{urlencode({'commit': commit.sha})}")
    for ch in sorted(changes, key=lambda c: -abs(c.delta_pct)):
        backed_by = evidence_of(ch)
        if backed_by is None:
            summary.without_evidence += 1
            continue
        conf = confs[ch.configuration_id]
        series = f"{ds[ch.dataset_id]} · {conf.label}"
        query = {"s": f"{conf.setting}~{ds[ch.dataset_id]}~{machine.name}@{machine.version}"
                      f"~{ch.metric}", "pre": conf.preconditioner}
        interval = ("exact" if ch.kind == "exact" or ch.ci_low_pct is None
                    or ch.ci_high_pct is None
                    else f"{ch.ci_low_pct:+.2f} … {ch.ci_high_pct:+.2f} %")
        summary.rows.append(Row(ch.id, series, ch.metric, ch.delta_pct, ch.direction, interval,
                                ch.q_value, f"{base}/history?{urlencode(query)}", backed_by))
        if (ch.bisection or {}).get("status") == "done":
            summary.bisected_from = ch.bisection.get("detected_commit")
    return summary
