"""Changes: the inbox, one change with its evidence, the status workflow, and the
workers' commit lists for bisection."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request

from basketbench.catalog.commits import CommitInfo
from basketbench.changes import service
from basketbench.changes import summary as change_summary_service
from basketbench.changes.detection import bisect
from basketbench.changes.schemas import (
    BisectionOut,
    BulkStatusIn,
    BulkStatusOut,
    ChangeDetail,
    ChangePage,
    ChangeStateFilter,
    ChangeStatus,
    ChangeSummaryPage,
    Direction,
    RangeIn,
    StatusIn,
)
from basketbench.schemas.refs import Metric
from basketbench.web.deps import MachineToken, ReadAccess, SessionDep, SettingsDep, UserToken
from basketbench.web.listing import CSV_RESPONSES, PageParams, fetch_page, page_params, respond

router = APIRouter(prefix="/changes", tags=["changes"])
Pages = Annotated[PageParams, Depends(page_params)]


@router.get("", response_model=ChangePage, responses=CSV_RESPONSES, dependencies=[ReadAccess])
def list_changes(
    session: SessionDep, page: Pages, status: ChangeStatus | None = None,
    state: Annotated[ChangeStateFilter | None, Query(
        description="detection's verdict (default confirmed; 'pending' = 'confirming': "
                    "awaiting reruns; every state: omit with include_unconfirmed)")] = None,
    include_unconfirmed: bool = False,
    machine: Annotated[str | None, Query(description="name, name@version or id")] = None,
    tag: str | None = None, dataset: str | None = None, setting: int | None = None,
    configuration_id: int | None = None, metric: Metric | None = None,
    direction: Direction | None = None,
    commit: str | None = None, commit_from: str | None = None, commit_to: str | None = None,
    codec: Annotated[str | None, Query(description="only this codec (zlib, zstd, ...)")
                     ] = None,
) -> Any:
    """Changes found by detection, newest commit first; a commit's changes together, the
    largest first. Filters combine (AND); the page's total counts every match."""
    f = service.ChangeFilter(
        status=status, state=state or (None if include_unconfirmed else "confirmed"),
        machine=machine, tag=tag, dataset=dataset, setting=setting,
        configuration_id=configuration_id, metric=metric, direction=direction, commit=commit,
        commit_from=commit_from, commit_to=commit_to, codec=codec)
    rows, total = fetch_page(session, service.list_query(session, f), page)
    return respond(service.outs_with_builds(session, rows), total, page, "changes", ChangePage)


@router.get("/summary", response_model=ChangeSummaryPage, dependencies=[ReadAccess])
def change_summary(
    session: SessionDep,
    status: Annotated[ChangeStatus | None, Query(description="only changes in this status")
                      ] = None,
    include_unconfirmed: Annotated[bool, Query(
        description="also changes detection has not confirmed (yet)")] = False,
    machine: Annotated[str | None, Query(description="name, name@version or id")] = None,
    tag: Annotated[str | None, Query(description="machine tag, e.g. haswell")] = None,
    dataset: Annotated[str | None, Query(description="only this dataset")] = None,
    setting: Annotated[int | None, Query(description="only this setting, e.g. 505")] = None,
    codec: Annotated[str | None, Query(description="only this codec (zlib, zstd, ...)")
                     ] = None,
    metric: Annotated[Metric | None, Query(description="only this metric")] = None,
    direction: Annotated[Direction | None, Query(description="regression or improvement")
                         ] = None,
    commit: Annotated[str | None, Query(description="only this commit (sha or prefix)")
                      ] = None,
    limit: Annotated[int, Query(ge=1, le=1000, description="lines per page")] = 50,
    offset: Annotated[int, Query(ge=0, description="lines to skip")] = 0,
) -> Any:
    """One line per commit, machine and cause (a codec's metric in one direction), e.g.
    "ZLIB compression speed -47 % ... -74 %, 36 series on 4 datasets, haswell-01", with
    the ids of its changes (for the rows behind it or a bulk status)."""
    f = service.ChangeFilter(
        status=status, state=None if include_unconfirmed else "confirmed", machine=machine,
        tag=tag, dataset=dataset, setting=setting, metric=metric, direction=direction,
        commit=commit, codec=codec)
    return change_summary_service.summary(session, f, limit, offset)


@router.post("/status", response_model=BulkStatusOut)
def set_many_statuses(session: SessionDep, token: UserToken, body: BulkStatusIn) -> Any:
    """One status (and reason) for many changes, e.g. every change of a commit or of one
    summary line: all are set, or none (an unknown id is a 404 naming it)."""
    return change_summary_service.set_many(session, body.change_ids, body.status,
                                           body.reason, body.by, token.name)


@router.get("/{change_id:int}", response_model=ChangeDetail, dependencies=[ReadAccess])
def get_change(session: SessionDep, change_id: int) -> ChangeDetail:
    return service.get_detail(session, change_id)


@router.patch("/{change_id:int}", response_model=ChangeDetail)
def set_change_status(session: SessionDep, token: UserToken, change_id: int,
                      body: StatusIn) -> ChangeDetail:
    return service.set_status(session, change_id, body, token.name)


@router.post("/{change_id:int}/bisection/range", response_model=BisectionOut)
def bisection_range(request: Request, session: SessionDep, settings: SettingsDep,
                    _token: MachineToken, change_id: int, body: RangeIn) -> BisectionOut:
    """A worker's list of the commits between the measured parent and the changed commit."""
    infos = [CommitInfo(sha=c.sha, parents=c.parents, author=c.author,
                        author_email=c.author_email, date=c.date, message=c.message)
             for c in body.commits]
    result, runs = bisect.receive_range(session, settings, change_id, infos)
    # The runs and any notification are in their outboxes (same transaction): the
    # dispatchers of this process look now.
    from basketbench.changes import notify
    from basketbench.runs import dispatch

    dispatch.wake()
    notify.wake()
    return BisectionOut(change_id=change_id, bisection=result, run_ids=[r.id for r in runs])
