"""Interleaved A/B requests: queue an A/B of two commits on a worker (the compare page's
button), follow it, and for the worker: what to measure."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Response

from basketbench.runs import ab_requests as service
from basketbench.runs.ab_schemas import AbRequestIn, AbRequestOut, AbRequestPage
from basketbench.web.deps import ReadAccess, SessionDep, UserToken

RunId = Annotated[int, Path(ge=1, le=2**31 - 1)]
Ref = Annotated[str | None, Query(min_length=1, max_length=200)]

router = APIRouter(prefix="/ab-requests", tags=["runs"])


@router.post("", response_model=AbRequestOut, status_code=201,
             responses={200: {"model": AbRequestOut,
                              "description": "an A/B of this pair is already pending on the "
                                             "tag: that one (duplicate true)"}})
def post_ab_request(session: SessionDep, token: UserToken, body: AbRequestIn,
                    response: Response) -> Any:
    """Queue an interleaved A/B of `head_commit` (side B) against `base_commit` (side A)
    on a worker of `machine`'s tag (or of `tag`): a run of suite "ab:<base sha>". Needs a
    token of scope `user`. The A/B's effects become the evidence of compare's speed rows."""
    out = service.request(session, body, token.name)
    if out.duplicate:
        response.status_code = 200
    return out


@router.get("", response_model=AbRequestPage, dependencies=[ReadAccess])
def list_ab_requests(
    session: SessionDep, machine: Ref = None,
    base_commit: Annotated[str | None, Query(max_length=200, description="side A's commit "
                                             "(sha or unique prefix)")] = None,
    head_commit: Annotated[str | None, Query(max_length=200, description="side B's commit "
                                             "(sha or unique prefix)")] = None,
    limit: Annotated[int, Query(ge=1, le=200, description="at most this many, newest "
                                "first")] = 20,
) -> Any:
    """The newest A/B requests (of a machine's tag and a pair of commits if given), with
    their run's status and, once uploaded, the A/B run that answers them."""
    return {"items": service.listing(session, machine, base_commit, head_commit, limit)}


@router.get("/{run_id}", response_model=AbRequestOut, dependencies=[ReadAccess])
def get_ab_request(session: SessionDep, run_id: RunId) -> Any:
    """One request: the pair, who asked, the run's state and, once uploaded, its A/B run."""
    return service.get(session, run_id)
