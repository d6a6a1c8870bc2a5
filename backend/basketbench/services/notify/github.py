"""GitHub: a commit status on the commit (``basketbench/<tag>``: failure when a
regression is confirmed) and a comment with the table on every pull request that
contains the commit (GET /repos/{repo}/commits/{sha}/pulls)."""

from __future__ import annotations

import httpx
from sqlalchemy.orm import Session

from basketbench.core.config import Settings
from basketbench.services.notify.delivery import record, send
from basketbench.services.notify.summary import Summary
from basketbench.services.notify.webhook import _ids

ACCEPT = "application/vnd.github+json"


def comment_body(summary: Summary) -> str:
    head = f"### {summary.headline()}\n\n"
    if summary.bisected_from:
        head += (f"Detected at `{summary.bisected_from[:12]}`; bisection on {summary.tag} "
                 f"isolated this commit.\n\n")
    return (head + summary.markdown_table()
            + f"\n\n[All changes of this commit]({summary.changes_url}) · "
              f"speed changes confirmed by interleaved reruns; sizes are exact.")


def deliver(session: Session, settings: Settings, summary: Summary) -> bool:
    api = settings.github_api_url.rstrip("/")
    repo = summary.repository
    if repo.count("/") != 1:
        return False  # not an owner/name repository: nothing to tell on GitHub
    headers = {"Authorization": f"Bearer {settings.github_token}", "Accept": ACCEPT,
               "X-GitHub-Api-Version": "2022-11-28", "User-Agent": "basketbench"}
    commit_id, machine_id = _ids(session, summary)
    ids = [r.change_id for r in summary.rows]
    ok = True
    state = "failure" if summary.regressions else "success"
    status = {"state": state, "context": f"basketbench/{summary.tag}",
              "description": f"{summary.regressions} regression(s), {summary.improvements} "
                             f"improvement(s) confirmed"[:140],
              "target_url": summary.changes_url}
    with httpx.Client(timeout=10, headers=headers) as client:
        url = f"{api}/repos/{repo}/statuses/{summary.commit}"
        result = send(client, "POST", url, json=status, attempts=settings.notify_attempts,
                      max_wait=settings.notify_max_wait)
        record(session, channel="github-status", target=url, commit_id=commit_id,
               machine_id=machine_id, change_ids=ids, payload=status, result=result)
        ok &= result.ok
        url = f"{api}/repos/{repo}/commits/{summary.commit}/pulls"
        pulls = send(client, "GET", url, attempts=settings.notify_attempts,
                     max_wait=settings.notify_max_wait)
        if not pulls.ok:
            record(session, channel="github-pulls", target=url, commit_id=commit_id,
                   machine_id=machine_id, change_ids=ids, payload={}, result=pulls)
            return False
        body = {"body": comment_body(summary)}
        for pr in pulls.body if isinstance(pulls.body, list) else []:
            number = pr.get("number") if isinstance(pr, dict) else None
            if not isinstance(number, int):
                continue
            url = f"{api}/repos/{repo}/issues/{number}/comments"
            result = send(client, "POST", url, json=body, attempts=settings.notify_attempts,
                          max_wait=settings.notify_max_wait)
            record(session, channel="github-comment", target=url, commit_id=commit_id,
                   machine_id=machine_id, change_ids=ids, payload=body, result=result)
            ok &= result.ok
    return ok
