"""Outgoing webhook in the Slack / Mattermost incoming-webhook format ({"text": ...},
markdown links)."""

from __future__ import annotations

from typing import Any

from basketbench.changes.notify.summary import Summary


def payload(summary: Summary) -> dict[str, Any]:
    lines = [f"*{summary.headline()}*",
             f"<{summary.commit_url}|{summary.repository}@{summary.commit[:12]}> · "
             f"<{summary.changes_url}|all changes of this commit>"]
    for r in summary.rows[:15]:
        kind = "regression" if r.direction == "regression" else "improvement"
        lines.append(f"• {kind} {r.delta_pct:+.2f} % {r.metric} — {r.series} "
                     f"[{r.evidence}] (<{r.plot_url}|history>)")
    if len(summary.rows) > 15:
        lines.append(f"… and {len(summary.rows) - 15} more")
    return {"username": "basketbench", "text": "\n".join(lines)}
