"""Bisection: a change found between two measured commits with unmeasured commits in
between. A worker on the change's hardware tag lists the commits from its git mirror
(task ``basketbench.bisect_range``); then the middle commit is measured on the same tag
(runs with trigger "bisect", written to the run outbox), classified as old or new level
on the change's lead series, and the range halved until one commit is left: the
culprit. Every change of the group then moves to the culprit, and the notifications
about the culprit are written to the notification outbox; ``Change.bisection`` keeps
the steps."""

from __future__ import annotations

import logging
import math
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from basketbench.catalog.commits import CommitInfo, store_commits
from basketbench.catalog.lookup import normalise_sha
from basketbench.changes import notify
from basketbench.changes.detection import history
from basketbench.changes.detection.common import Outcome
from basketbench.core.config import Settings
from basketbench.core.errors import Conflict, Invalid, NotFound
from basketbench.core.sqlutil import chunked
from basketbench.measure.realroot.releases import release_for_sha
from basketbench.models import Change, Commit, Machine, Repository, Run
from basketbench.runs import dispatch

log = logging.getLogger(__name__)
TASK_RANGE = "basketbench.bisect_range"


def _group(session: Session, lead: Change) -> list[Change]:
    return list(session.scalars(select(Change).where(
        Change.commit_id == lead.commit_id, Change.machine_id == lead.machine_id,
        Change.state == "confirmed")))


def _set(group: list[Change], bisection: dict[str, Any]) -> None:
    for ch in group:
        ch.bisection = dict(bisection)


def _value(session: Session, ch: Change, commit_id: int, run_ids: set[int] | None = None
           ) -> float | None:
    key = history.change_series(session, [ch])[ch.id]
    values = history.load_series(session, ch.machine_id, [(commit_id, 0)], {key}, run_ids)
    for v in values.get(key, []):
        if ch.metric in ("ratio", "compressed_bytes"):
            exact: float | None = getattr(v, ch.metric)
            return exact
        runs = v.runs.get(ch.metric)
        if runs:
            return float(sorted(runs)[len(runs) // 2])
    return None


def start_for(session: Session, settings: Settings, change_ids: list[int]) -> list[Run]:
    """Ask a worker for the commits between parent and commit of each new group."""
    from basketbench.core.queue import enqueue_task

    leads: dict[tuple[int, int], Change] = {}
    for ch in session.scalars(select(Change).where(Change.id.in_(change_ids))):
        key = (ch.commit_id, ch.machine_id)
        if ch.bisection or ch.parent_commit_id is None:
            continue
        if key not in leads or abs(ch.delta_pct) > abs(leads[key].delta_pct):
            leads[key] = ch
    for lead in leads.values():
        group = _group(session, lead)
        if any(ch.bisection for ch in group):
            continue
        commit = session.get(Commit, lead.commit_id)
        parent = session.get(Commit, lead.parent_commit_id)
        machine = session.get(Machine, lead.machine_id)
        assert commit is not None and parent is not None and machine is not None
        if commit.parents and commit.parents[0] == parent.sha:
            _set(group, {"status": "not_needed", "reason": "the parent was measured"})
            continue
        releases = [release_for_sha(c.sha) for c in (parent, commit)]
        if all(releases):
            # Stable ids of releases measured without ROOT's repository (the demo): no
            # mirror lists commits between them, so a worker would never answer.
            names = " and ".join(r.version for r in releases if r is not None)
            _set(group, {"status": "impossible", "good": parent.sha, "bad": commit.sha,
                         "reason": f"ROOT releases {names} were measured without ROOT's "
                                   "repository: the mirror has no commits between them"})
            continue
        _set(group, {"status": "listing", "lead": lead.id, "good": parent.sha,
                     "bad": commit.sha, "tag": machine.tag, "steps": [],
                     "good_value": _value(session, lead, parent.id),
                     "bad_value": _value(session, lead, commit.id)})
        session.commit()
        if not enqueue_task(TASK_RANGE, [lead.id, parent.sha, commit.sha], machine.tag,
                            settings):
            _set(group, {**lead.bisection, "status": "waiting",
                         "reason": "no worker queue to list the commits (embedded mode or "
                                   "broker down)"})
    session.commit()
    return []


def receive_range(session: Session, settings: Settings, change_id: int,
                  infos: list[CommitInfo]) -> tuple[dict[str, Any], list[Run]]:
    """The worker's list: commits after good up to bad (inclusive), oldest first."""
    lead = session.get(Change, change_id)
    if lead is None:
        raise NotFound(f"unknown change {change_id}")
    bis = dict(lead.bisection or {})
    if bis.get("status") not in ("listing", "waiting"):
        raise Conflict(f"change {change_id} is not waiting for a commit list "
                       f"(bisection: {bis.get('status') or 'none'})")
    if not infos or normalise_sha(infos[-1].sha) != bis["bad"]:
        raise Invalid("the list must end with the changed commit",
                      [f"commits[-1]: expected {bis['bad']}"])
    group = _group(session, lead)
    if len(infos) == 1:
        bis.update(status="not_needed", reason="the changed commit's parent was measured")
        _set(group, bis)
        session.commit()
        return bis, []
    commit = session.get(Commit, lead.commit_id)
    good = session.get(Commit, lead.parent_commit_id)
    assert commit is not None and good is not None
    _insert_between(session, good, commit, infos[:-1])
    bis.update(status="running", candidates=[normalise_sha(i.sha) for i in infos], lo=0,
               hi=len(infos) - 1)
    run = _next_step(session, settings, lead, bis, group)
    session.commit()
    return bis, [run] if run else []


def _insert_between(session: Session, good: Commit, bad: Commit,
                    infos: list[CommitInfo]) -> None:
    """Store the unmeasured commits in git order between good and bad: later commits
    move up to make room (order is an ordinal, only its sort matters)."""
    shas = [normalise_sha(i.sha) for i in infos]
    known = {sha for piece in chunked(shas) for sha in session.scalars(  # parameter limits
        select(Commit.sha).where(Commit.repository_id == good.repository_id,
                                 Commit.sha.in_(piece)))}
    new = [i for i in infos if normalise_sha(i.sha) not in known]
    if new:
        session.execute(update(Commit).where(
            Commit.repository_id == good.repository_id, Commit.order >= bad.order,
            Commit.id != good.id).values(order=Commit.order + len(infos)))
        session.flush()
    repo = session.get(Repository, good.repository_id)
    assert repo is not None
    commits, _ = store_commits(session, repo, infos)
    for k, c in enumerate(commits, start=1):
        if c.sha not in known:
            c.order = good.order + k
    session.flush()


def _next_step(session: Session, settings: Settings, lead: Change, bis: dict[str, Any],
               group: list[Change]) -> Run | None:
    lo, hi = int(bis["lo"]), int(bis["hi"])
    if lo >= hi:
        _finish(session, bis, group)
        session.flush()
        # Tell people about the culprit (its pull request gets the comment).
        notify.enqueue(session, settings, [ch.id for ch in group])
        return None
    mid = (lo + hi) // 2
    sha = bis["candidates"][mid]
    changed = session.get(Commit, lead.commit_id)
    assert changed is not None
    commit = session.scalar(select(Commit).where(
        Commit.sha == sha, Commit.repository_id == changed.repository_id))
    assert commit is not None
    run = Run(commit_id=commit.id, tag=bis["tag"], suite=bis.get("suite") or _suite(session,
              lead, settings), trigger="bisect", status="queued")
    session.add(run)
    session.flush()
    dispatch.add_dispatches(session, [run])
    bis["steps"] = [*bis.get("steps", []), {"sha": sha, "index": mid, "run_id": run.id,
                                            "verdict": None, "value": None}]
    bis["current_run"] = run.id
    _set(group, bis)
    return run


def _suite(session: Session, lead: Change, settings: Settings) -> str:
    if lead.detected_run_id is not None:
        run = session.get(Run, lead.detected_run_id)
        if run is not None:
            return run.suite
    return settings.default_suite


def _finish(session: Session, bis: dict[str, Any], group: list[Change]) -> None:
    culprit_sha = bis["candidates"][int(bis["lo"])]
    parent_sha = bis["candidates"][int(bis["lo"]) - 1] if int(bis["lo"]) > 0 else bis["good"]
    lead = group[0]
    repo_id = session.get(Commit, lead.commit_id).repository_id  # type: ignore[union-attr]
    by_sha = {c.sha: c for c in session.scalars(select(Commit).where(
        Commit.repository_id == repo_id, Commit.sha.in_([culprit_sha, parent_sha])))}
    bis.update(status="done", culprit=culprit_sha, culprit_parent=parent_sha,
               detected_commit=bis["bad"])
    bis.pop("current_run", None)
    for ch in group:
        ch.bisection = dict(bis)
        ch.commit_id = by_sha[culprit_sha].id
        ch.parent_commit_id = by_sha[parent_sha].id


def on_run_progress(session: Session, settings: Settings, run: Run) -> Outcome:
    out = Outcome()
    leads = [ch for ch in session.scalars(select(Change).where(Change.state == "confirmed"))
             if (ch.bisection or {}).get("current_run") == run.id
             and (ch.bisection or {}).get("lead") == ch.id]
    for lead in leads:
        group = _group(session, lead)
        bis = dict(lead.bisection)
        if run.status in ("failed", "cancelled") and run.result_count == 0:
            bis.update(status="failed", reason=f"bisection run {run.id} {run.status}")
            _set(group, bis)
            continue
        value = _value(session, lead, run.commit_id, {run.id})
        if value is None:
            continue  # not this series' results yet
        verdict = _classify(value, bis.get("good_value"), bis.get("bad_value"), lead.metric)
        step = bis["steps"][-1]
        step.update(verdict=verdict, value=value)
        mid = int(step["index"])
        if verdict == "new":
            bis["hi"] = mid
        else:
            bis["lo"] = mid + 1
        nxt = _next_step(session, settings, lead, bis, group)
        if nxt is not None:
            out.runs.append(nxt)
    session.commit()
    return out


def _classify(value: float, good: float | None, bad: float | None, metric: str) -> str:
    """Old or new level: exact metrics by equality with the old value, speeds by the
    nearer level in log space."""
    if good is None or bad is None:
        return "new"
    if metric in ("ratio", "compressed_bytes"):
        return "old" if math.isclose(value, good, rel_tol=1e-12) else "new"
    if value <= 0 or good <= 0 or bad <= 0:
        return "new"
    return "old" if abs(math.log(value / good)) < abs(math.log(value / bad)) else "new"
