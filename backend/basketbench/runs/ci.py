"""GitHub webhook and manual/CI triggers: store commits, create runs, enqueue them."""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from basketbench.catalog.commits import CommitInfo, ensure_commit, store_commits
from basketbench.catalog.lookup import get_commit, get_repository, normalise_sha
from basketbench.catalog.worker_tags import serving_tags
from basketbench.core.config import Settings
from basketbench.core.errors import BadRequest, Invalid
from basketbench.models import Commit, Run, WebhookDelivery
from basketbench.runs import dispatch
from basketbench.runs.ci_schemas import TriggerIn, TriggerOut, WebhookOut
from basketbench.runs.service import create_runs

log = logging.getLogger(__name__)

NULL_SHA = "0" * 40
PR_ACTIONS = {"opened", "synchronize", "reopened"}
# GitHub lists at most 2048 commits in a push payload; more is no real delivery.
MAX_PUSH_COMMITS = 2048


def _date(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


def _require(obj: Any, path: str) -> Any:
    """Walk a dotted path; a missing or wrongly typed field is a 422 naming it."""
    cur = obj
    for part in path.split("."):
        if not isinstance(cur, dict) or part not in cur or cur[part] is None:
            raise Invalid(f"payload field {path!r} is missing", [f"{path}: missing"])
        cur = cur[part]
    return cur


def _sha(value: Any, path: str) -> str:
    if not isinstance(value, str):
        raise Invalid(f"payload field {path!r} is not a sha", [f"{path}: not a string"])
    try:
        return normalise_sha(value)
    except BadRequest as exc:
        raise Invalid(exc.message, [f"{path}: {exc.message}"]) from exc


def push_commits(payload: dict[str, Any]) -> tuple[str, list[CommitInfo]]:
    """GitHub's push payload lists commits oldest first without parents: each commit's
    parent is the one before it, the first one's is ``before``."""
    repo = _require(payload, "repository.full_name")
    ref = _require(payload, "ref")
    commits = _require(payload, "commits")
    if not isinstance(commits, list) or not isinstance(ref, str) or not isinstance(repo, str):
        raise Invalid("malformed push payload", ["commits: not a list"])
    if len(commits) > MAX_PUSH_COMMITS:
        raise Invalid(f"a push lists at most {MAX_PUSH_COMMITS} commits, this one "
                      f"{len(commits)}", [f"commits: more than {MAX_PUSH_COMMITS}"])
    branch = ref.removeprefix("refs/heads/")
    if not ref.startswith("refs/heads/"):
        return repo, []  # tags and other refs are not benchmarked
    before = payload.get("before")
    parent = _sha(before, "before") if isinstance(before, str) and before != NULL_SHA else None
    infos = []
    for i, c in enumerate(commits):
        sha = _sha(_require(c, "id"), f"commits.{i}.id")
        author = c.get("author") if isinstance(c.get("author"), dict) else {}
        infos.append(CommitInfo(
            sha=sha, parents=[parent] if parent else [], author=author.get("name"),
            author_email=author.get("email"), date=_date(c.get("timestamp")),
            message=c.get("message") if isinstance(c.get("message"), str) else None,
            branch=branch))
        parent = sha
    return repo, infos


def pull_request_commits(payload: dict[str, Any]) -> tuple[str, list[CommitInfo]]:
    repo = _require(payload, "repository.full_name")
    action = _require(payload, "action")
    pr = _require(payload, "pull_request")
    head_sha = _sha(_require(pr, "head.sha"), "pull_request.head.sha")
    base_sha = pr.get("base", {}).get("sha") if isinstance(pr.get("base"), dict) else None
    number = payload.get("number", pr.get("number"))
    if action not in PR_ACTIONS:
        return repo, []
    user = pr.get("user") if isinstance(pr.get("user"), dict) else {}
    info = CommitInfo(
        sha=head_sha, parents=[_sha(base_sha, "pull_request.base.sha")] if base_sha else [],
        author=user.get("login"), date=_date(pr.get("updated_at")),
        message=pr.get("title") if isinstance(pr.get("title"), str) else None,
        branch=f"pr/{number}" if number is not None else pr.get("head", {}).get("ref"))
    return repo, [info]


def handle_github(session: Session, settings: Settings, event: str, delivery: str,
                  payload: Any) -> tuple[int, WebhookOut]:
    """Returns (HTTP status, body). Signature is checked by the route before this."""
    previous = session.scalar(
        select(WebhookDelivery).where(WebhookDelivery.delivery_id == delivery))
    if previous is not None:
        # A redelivery: runs of the first delivery that the broker never took go now.
        if dispatch.rearm(session, previous.run_ids or []):
            session.commit()
            dispatch.wake()
        return 202, WebhookOut(delivery=delivery, event=previous.event,
                               run_ids=previous.run_ids or [], duplicate=True)
    if event == "ping":
        record = WebhookDelivery(delivery_id=delivery, event=event, status="ping", run_ids=[])
        session.add(record)
        _commit_delivery(session)
        return 200, WebhookOut(delivery=delivery, event=event, run_ids=[], ignored=True)
    if not isinstance(payload, dict):
        raise Invalid("payload is not a JSON object", ["(payload): not an object"])
    if event == "push":
        repo_name, infos = push_commits(payload)
    elif event == "pull_request":
        repo_name, infos = pull_request_commits(payload)
    else:
        repo_name, infos = "", []
    runs: list[Run] = []
    if infos:
        repo = get_repository(session, repo_name, create=True)
        _, created = store_commits(session, repo, infos)
        tags = serving_tags(session, settings)  # never tags only ingest named
        # One run per *new* commit and tag: a commit already known was already queued.
        runs = create_runs(session, created, tags, settings.default_suite, f"github:{event}")
    record = WebhookDelivery(delivery_id=delivery, event=event,
                             status="processed" if infos else "ignored",
                             run_ids=[r.id for r in runs])
    session.add(record)
    if not _commit_delivery(session):
        again = session.scalar(
            select(WebhookDelivery).where(WebhookDelivery.delivery_id == delivery))
        return 202, WebhookOut(delivery=delivery, event=event,
                               run_ids=again.run_ids if again else [], duplicate=True)
    dispatch.wake()  # the dispatcher publishes; the answer does not wait for the broker
    return 202, WebhookOut(delivery=delivery, event=event, run_ids=[r.id for r in runs],
                           ignored=not infos)


def _commit_delivery(session: Session) -> bool:
    """False when a concurrent redelivery committed first (nothing of ours is kept)."""
    try:
        session.commit()
        return True
    except IntegrityError:
        session.rollback()
        return False


def trigger(session: Session, settings: Settings, body: TriggerIn, who: str) -> TriggerOut:
    repo = get_repository(session, body.repository or settings.default_repository, create=True)
    commits: list[Commit] = []
    if body.commits:
        for ref in body.commits:
            try:
                commits.append(ensure_commit(session, repo, ref))
            except BadRequest as exc:
                raise Invalid(exc.message, [f"commits: {exc.message}"]) from exc
    elif body.commit_from and body.commit_to:
        lo = get_commit(session, body.commit_from, repo.id).order
        hi = get_commit(session, body.commit_to, repo.id).order
        lo, hi = min(lo, hi), max(lo, hi)
        stmt = select(Commit).where(Commit.repository_id == repo.id, Commit.order >= lo,
                                    Commit.order <= hi)
        if body.branch:
            stmt = stmt.where(Commit.branch == body.branch)
        commits = list(session.scalars(stmt.order_by(Commit.order, Commit.date, Commit.id)))
    else:
        raise Invalid("give commits or commit_from + commit_to",
                      ["commits: empty and no commit range"])
    # Tags given explicitly are the operator's choice; the default is the served ones.
    tags = body.tags if body.tags else serving_tags(session, settings)
    if not tags:
        raise Invalid("no worker tags: start a worker, declare a tag (PUT /worker-tags/{tag}) "
                      "or pass tags", ["tags: no tag is served by a worker"])
    unique = list({c.id: c for c in commits}.values())
    runs = create_runs(session, unique, tags, body.suite, f"trigger:{who}", body.codecs)
    session.commit()
    dispatch.wake()
    return TriggerOut(run_ids=[r.id for r in runs], commits=[c.sha for c in unique], tags=tags)
