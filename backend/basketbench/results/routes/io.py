"""GET /io/breakdown: end-to-end ROOT I/O per setting beside the codec alone (io_results.py)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from basketbench.results import io_results as io
from basketbench.results.io_schemas import IoBreakdownOut
from basketbench.web.deps import ReadAccess, SessionDep

router = APIRouter(tags=["io"], dependencies=[ReadAccess])


@router.get("/io/breakdown", response_model=IoBreakdownOut)
def get_io_breakdown(
    session: SessionDep, machine: str,
    commit: Annotated[str | None, Query(max_length=100, description="default: the newest "
                                        "commit with end-to-end I/O results on the machine")]
    = None,
    data: Annotated[str | None, Query(max_length=300, description="<file>/<tree>, e.g. "
                                      "uproot-HZZ/events; default: the first available")] = None,
) -> IoBreakdownOut:
    """Per setting and form: read (write) MB/s at each thread count, cache and page-cache
    state, the codec alone's MB/s on the same baskets, and the share of the read (write)
    time that is decompression (compression)."""
    return io.breakdown(session, commit, machine, data)
