"""Reading changes for the API, and their status workflow."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from sqlalchemy import ColumnElement, Select, and_, bindparam, func, select, tuple_
from sqlalchemy.orm import Session, aliased

from basketbench.catalog.commit_heads import first_line
from basketbench.catalog.lookup import get_commit
from basketbench.catalog.service import configuration_out, machine_ref
from basketbench.changes.notify.summary import commit_url
from basketbench.changes.schemas import (
    ChangeDetail,
    ChangeLink,
    ChangeOut,
    CommitRef,
    DeliveryOut,
    StatusIn,
)
from basketbench.core.errors import BadRequest, Invalid, NotFound
from basketbench.models import (
    Change,
    CodecSet,
    Commit,
    Configuration,
    Dataset,
    Machine,
    NotificationDelivery,
    Repository,
    ResultDocument,
)
from basketbench.models.base import utcnow
from basketbench.models.result import METRICS
from basketbench.results import provenance
from basketbench.results.codec_sets import codec_set_out
from basketbench.schemas.refs import BuildOut

Parent = aliased(Commit)


@dataclass
class ChangeFilter:
    status: str | None = None
    state: str | None = "confirmed"
    machine: str | None = None
    tag: str | None = None
    dataset: str | None = None
    setting: int | None = None
    configuration_id: int | None = None
    metric: str | None = None
    direction: str | None = None
    commit: str | None = None
    commit_from: str | None = None
    commit_to: str | None = None
    codec: str | None = None


def _query() -> Any:
    return (select(Change, Commit, Parent, Repository, Machine, Dataset, Configuration,
                   CodecSet)
            .join(Commit, Commit.id == Change.commit_id)
            .outerjoin(Parent, Parent.id == Change.parent_commit_id)
            .join(Repository, Repository.id == Commit.repository_id)
            .join(Machine, Machine.id == Change.machine_id)
            .join(Dataset, Dataset.id == Change.dataset_id)
            .join(Configuration, Configuration.id == Change.configuration_id)
            .outerjoin(CodecSet, CodecSet.id == Change.codec_set_id))


def list_query(session: Session, f: ChangeFilter) -> Select[Any]:
    stmt = _query()
    if f.metric is not None and f.metric not in METRICS:
        raise BadRequest(f"unknown metric {f.metric!r}", list(METRICS))
    state = "confirming" if f.state == "pending" else f.state
    for value, column in ((f.status, Change.status), (state, Change.state),
                          (f.metric, Change.metric), (f.direction, Change.direction),
                          (f.tag, Machine.tag), (f.dataset, Dataset.name),
                          (f.setting, Configuration.setting),
                          (f.configuration_id, Configuration.id),
                          (f.codec, Configuration.codec)):
        if value is not None and value != "all":
            stmt = stmt.where(column == value)
    if f.machine:
        name, _, version = f.machine.partition("@")
        stmt = stmt.where(Machine.id == int(name)) if name.isdigit() else stmt.where(
            Machine.name == name)
        if version.lstrip("v").isdigit():
            stmt = stmt.where(Machine.version == int(version.lstrip("v")))
    if f.commit:
        stmt = stmt.where(Change.commit_id == get_commit(session, f.commit).id)
    lo = get_commit(session, f.commit_from) if f.commit_from else None
    hi = get_commit(session, f.commit_to) if f.commit_to else None
    if lo is not None and hi is not None and lo.order > hi.order:
        raise Invalid("commit_from comes after commit_to in git order: swap them",
                      [{"loc": ["query", "commit_from"],
                        "msg": f"{lo.sha[:12]} is after {hi.sha[:12]}"}])
    if lo is not None:
        stmt = stmt.where(Commit.order >= lo.order)
    if hi is not None:
        stmt = stmt.where(Commit.order <= hi.order)
    # Newest commit first; a commit's changes together, the largest first.
    return stmt.order_by(Commit.order.desc(), Commit.id.desc(), Machine.id,
                         func.abs(Change.delta_pct).desc(), Change.id)


def _commit_ref(repo: Repository, c: Commit | None) -> CommitRef | None:
    if c is None:
        return None
    return CommitRef(sha=c.sha, url=commit_url(repo, c.sha),
                     message=first_line(c.message),
                     author=c.author, date=c.date, order=c.order)


def revert_links(session: Session, rows: Sequence[Any]) -> dict[int, ChangeLink]:
    """The changes the rows' reverts_id / reverted_by_id point at, with their commits."""
    ids = {i for row in rows for i in (row[0].reverts_id, row[0].reverted_by_id) if i}
    if not ids:
        return {}
    return {cid: ChangeLink(change_id=cid, sha=sha) for cid, sha in session.execute(
        select(Change.id, Commit.sha).join(Commit, Commit.id == Change.commit_id)
        .where(Change.id.in_(ids)))}


def to_out(row: Any, links: dict[int, ChangeLink] | None = None) -> ChangeOut:
    ch, commit, parent, repo, machine, ds, conf, codec_set = row
    links = links or {}
    ref = _commit_ref(repo, commit)
    assert ref is not None
    return ChangeOut(
        id=ch.id, repository=repo.name, commit=ref, parent=_commit_ref(repo, parent),
        machine=machine_ref(machine), dataset=ds.name, configuration=configuration_out(conf),
        metric=ch.metric, kind=ch.kind, test=ch.test, direction=ch.direction,
        base_value=ch.base_value, head_value=ch.head_value, delta_pct=ch.delta_pct,
        ci_low_pct=ch.ci_low_pct, ci_high_pct=ch.ci_high_pct, p_value=ch.p_value,
        q_value=ch.q_value, min_effect_pct=ch.min_effect_pct, state=ch.state,
        state_reason=ch.state_reason, status=ch.status,
        status_by=ch.status_by, status_reason=ch.status_reason, status_at=ch.status_at,
        bisection=ch.bisection or {}, created_at=ch.created_at, confirmed_at=ch.confirmed_at,
        notified_at=ch.notified_at,
        codecs=codec_set_out(codec_set) if codec_set is not None else None,
        reverts=links.get(ch.reverts_id) if ch.reverts_id else None,
        reverted_by=links.get(ch.reverted_by_id) if ch.reverted_by_id else None,
        attribution=(ch.evidence or {}).get("attribution"))


def outs_with_builds(session: Session, rows: Sequence[Any]) -> list[ChangeOut]:
    """to_out of each row, with the build of the harness that measured its changed commit
    (its newest document on that machine in that codec set): one query for all rows."""
    changes = [row[0] for row in rows]
    pairs = {(ch.machine_id, ch.commit_id) for ch in changes}
    builds: dict[tuple[int, int, int | None], BuildOut] = {}
    if pairs:
        stmt = (select(ResultDocument.machine_id, ResultDocument.commit_id,
                       ResultDocument.codec_set_id, *provenance.BUILD_COLUMNS)
                .where(tuple_(ResultDocument.machine_id, ResultDocument.commit_id).in_(pairs))
                .order_by(ResultDocument.id))
        for machine_id, commit_id, set_id, *build in session.execute(stmt):
            builds[(machine_id, commit_id, set_id)] = BuildOut(**provenance.build_out(*build))
    links = revert_links(session, rows)
    outs = []
    for row, ch in zip(rows, changes, strict=True):
        out = to_out(row, links)
        out.build = builds.get((ch.machine_id, ch.commit_id, ch.codec_set_id))
        outs.append(out)
    return outs


def get_detail(session: Session, change_id: int) -> ChangeDetail:
    row = session.execute(_query().where(Change.id == change_id)).first()
    if row is None:
        raise NotFound(f"unknown change {change_id}")
    ch = row[0]
    related = session.execute(_query().where(
        Change.commit_id == ch.commit_id, Change.machine_id == ch.machine_id,
        Change.id != ch.id).order_by(func.abs(Change.delta_pct).desc())).all()
    deliveries = session.scalars(select(NotificationDelivery).where(and_(
        NotificationDelivery.commit_id == ch.commit_id)).order_by(NotificationDelivery.id))
    out, *related_outs = outs_with_builds(session, [row, *related])
    return ChangeDetail(
        **out.model_dump(), evidence=ch.evidence or {}, confirmation=ch.confirmation or {},
        related=related_outs,
        deliveries=[DeliveryOut(id=d.id, channel=d.channel, target=d.target, status=d.status,
                                attempts=d.attempts, response_code=d.response_code,
                                error=d.error, created_at=d.created_at,
                                next_attempt_at=d.due_at, sent_at=d.sent_at,
                                attempt_log=d.attempt_log or [])
                    for d in deliveries if ch.id in (d.change_ids or [])])


def set_status(session: Session, change_id: int, body: StatusIn, token_name: str
               ) -> ChangeDetail:
    ch = session.get(Change, change_id)
    if ch is None:
        raise NotFound(f"unknown change {change_id}")
    if body.status in ("fixed", "ignored") and not (body.reason or "").strip():
        raise BadRequest(f"say why the change is {body.status}: give a reason")
    ch.status = body.status
    ch.status_reason = (body.reason or "").strip() or None
    ch.status_by = (body.by or "").strip() or token_name
    ch.status_at = utcnow()
    session.commit()
    return get_detail(session, change_id)


@lru_cache(maxsize=16)
def _markers_statement(legacy: bool, from_lo: bool, to_hi: bool) -> Any:
    """series_markers' query, built once per shape (building it cost every history
    request ~1 ms): ``legacy`` also takes changes of the legacy series (no codec set)."""
    in_series: ColumnElement[bool] = Change.codec_set_id.in_(
        bindparam("set_ids", expanding=True))
    if legacy:
        in_series = in_series | Change.codec_set_id.is_(None)
    stmt = (select(Commit.sha, Parent.sha, Change.delta_pct, Change.p_value, Change.id,
                   Change.status, Change.direction)
            .select_from(Change)
            .join(Commit, Commit.id == Change.commit_id)
            .outerjoin(Parent, Parent.id == Change.parent_commit_id)
            .where(Change.machine_id == bindparam("machine_id"),
                   Change.dataset_id == bindparam("dataset_id"),
                   Change.configuration_id == bindparam("configuration_id"),
                   Change.metric == bindparam("metric"),
                   Change.state == "confirmed", in_series)
            .order_by(Commit.order))
    if from_lo:
        stmt = stmt.where(Commit.order >= bindparam("lo"))
    if to_hi:
        stmt = stmt.where(Commit.order <= bindparam("hi"))
    return stmt


def series_markers(session: Session, machine_id: int, dataset_id: int, configuration_id: int,
                   metric: str, codec_set_ids: list[int | None], lo: int | None = None,
                   hi: int | None = None) -> list[dict[str, Any]]:
    """History markers: the confirmed changes of one series (dicts shaped like
    schemas.analysis.HistoryChange), so the plot and the Changes page agree.
    ``codec_set_ids`` are the codec sets of the series the history shows (its choice)."""
    stmt = _markers_statement(None in codec_set_ids, lo is not None, hi is not None)
    params = {"set_ids": [i for i in codec_set_ids if i is not None], "machine_id": machine_id,
              "dataset_id": dataset_id, "configuration_id": configuration_id,
              "metric": metric, "lo": lo, "hi": hi}
    # Columns, not Change objects: this runs on every history request.
    return [{"sha": sha, "previous_sha": psha or sha, "delta_pct": delta, "p_value": p,
             "change_id": change_id, "status": status, "direction": direction}
            for sha, psha, delta, p, change_id, status, direction
            in session.connection().execute(stmt, params)]
