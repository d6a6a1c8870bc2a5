"""GitHub: a commit status on the commit (``basketbench/<tag>``: failure when a
regression is confirmed) and a comment with the table on every pull request that
contains the commit. The pull requests are listed when that delivery is sent
(GET /repos/{repo}/commits/{sha}/pulls); each comment is then a delivery of its own."""

from __future__ import annotations

from typing import Any

from basketbench.changes.notify.summary import Summary
from basketbench.core.config import Settings

ACCEPT = "application/vnd.github+json"


def headers(settings: Settings) -> dict[str, str]:
    return {"Authorization": f"Bearer {settings.github_token}", "Accept": ACCEPT,
            "X-GitHub-Api-Version": "2022-11-28", "User-Agent": "basketbench"}


def comment_body(summary: Summary) -> str:
    head = f"### {summary.headline()}\n\n"
    if summary.bisected_from:
        head += (f"Detected at `{summary.bisected_from[:12]}`; bisection on {summary.tag} "
                 f"isolated this commit.\n\n")
    return (head + summary.markdown_table()
            + f"\n\n[All changes of this commit]({summary.changes_url}) · "
              f"speed verdicts only from an interleaved A/B of the commit against its "
              f"reference build or from instruction counts (column evidence); sizes are "
              f"exact.")


def deliveries(settings: Settings, summary: Summary) -> list[tuple[str, str, dict[str, Any]]]:
    """(channel, target, payload) of the commit status and of the pull-request listing;
    none when the repository is not an owner/name one."""
    repo = summary.repository
    if repo.count("/") != 1:
        return []
    api = f"{settings.github_api_url.rstrip('/')}/repos/{repo}"
    state = "failure" if summary.regressions else "success"
    status = {"state": state, "context": f"basketbench/{summary.tag}",
              "description": (f"{summary.regressions} regression(s), {summary.improvements} "
                              f"improvement(s) confirmed"
                              + (f", {summary.without_evidence} speed shift(s) without "
                                 "A/B: no verdict" if summary.without_evidence else ""))[:140],
              "target_url": summary.changes_url}
    return [("github-status", f"{api}/statuses/{summary.commit}", status),
            ("github-pulls", f"{api}/commits/{summary.commit}/pulls",
             {"comment": comment_body(summary), "issues_url": f"{api}/issues"})]


def comments(pulls: Any, payload: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(target, payload) of the comment on each listed pull request."""
    out = []
    for pr in pulls if isinstance(pulls, list) else []:
        number = pr.get("number") if isinstance(pr, dict) else None
        if isinstance(number, int):
            out.append((f"{payload['issues_url']}/{number}/comments",
                        {"body": payload["comment"]}))
    return out
