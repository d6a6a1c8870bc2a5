"""GET /configurations/latest: the mean numbers of each configuration and dataset at each
machine's newest measured commit (results/listing.py). Under /configurations beside the
catalog's configuration queries; app.py includes it right after them."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query

from basketbench.catalog.routes.lookup import ConfigFilterDep
from basketbench.results import listing
from basketbench.results.schemas import LatestPage
from basketbench.web.deps import ReadAccess, SessionDep
from basketbench.web.listing import CSV_RESPONSES, PageParams, page_params, respond

Pages = Annotated[PageParams, Depends(page_params)]

router = APIRouter(prefix="/configurations", tags=["configurations"], dependencies=[ReadAccess])


@router.get("/latest", response_model=LatestPage, responses=CSV_RESPONSES)
def latest_results(
    session: SessionDep, page: Pages, f: ConfigFilterDep, dataset: str | None = None,
    machine: str | None = None, tag: str | None = None, commit_to: str | None = None,
    sort: Annotated[str | None, Query(description=listing.LATEST_SORT_HELP)] = None,
) -> Any:
    items = listing.sort_latest(listing.latest(session, f, dataset, machine, tag, commit_to),
                                sort)
    window = items[page.offset:page.offset + page.limit]
    return respond(window, len(items), page, "latest", LatestPage)
