"""history, tradeoff, compare."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request, Response
from sqlalchemy.orm import Session

from basketbench.analysis import history, series, tradeoff
from basketbench.analysis.compare import service as compare
from basketbench.analysis.compare.request import CompareRequest
from basketbench.analysis.configuration import ConfigSelector
from basketbench.analysis.schemas import CodecSeriesOut, CompareOut, HistoryOut, TradeoffOut
from basketbench.core.config import Settings
from basketbench.schemas.refs import Metric
from basketbench.web.deps import ReadAccess, SessionDep, SettingsDep, run_read
from basketbench.web.listing import csv_response, orjson_response

router = APIRouter(tags=["analysis"], dependencies=[ReadAccess])

_CSV: dict[int | str, dict[str, Any]] = {
    200: {"content": {"text/csv": {"schema": {"type": "string"}}},
          "description": "JSON, or CSV of the points/rows with ?format=csv"}}


@router.get("/history", response_model=HistoryOut, responses=_CSV)
async def get_history(
    request: Request, machine: str, dataset: str, metric: Metric = "compress_mbps",
    configuration_id: int | None = None, setting: int | None = None, codec: str | None = None,
    preconditioner: str = "none", dictionary_size: int = 0, basket_size: int = 0,
    mode: str = "basket", threads: int = 1, commit_from: str | None = None,
    commit_to: str | None = None,
    max_points: Annotated[int, Query(ge=10, le=100_000)] = 2000,
    codecs: Annotated[str | None, Query(
        max_length=100, description="codec series key or set name (host, builtin, ...); "
        "default: the series of the newest commit")] = None,
    format: Annotated[str | None, Query(pattern="^(json|csv)$")] = None,
) -> Any:
    sel = ConfigSelector(configuration_id, setting, codec, preconditioner, dictionary_size,
                         basket_size, mode, threads)
    return await run_read(request, _history_answer, machine, dataset, metric, sel,
                          commit_from, commit_to, max_points, codecs, format)


def _history_answer(session: Session, machine: str, dataset: str, metric: str,
                    sel: ConfigSelector, commit_from: str | None,
                    commit_to: str | None, max_points: int, codecs: str | None,
                    format: str | None) -> Response:
    out = history.history(session, machine, dataset, metric, sel, commit_from, commit_to,
                           max_points, codecs)
    if format == "csv":  # one flat row per point: its build spelled out, not referred to
        builds = out["builds"]
        return csv_response([{**p, "build": builds[p["build_id"]] if "build_id" in p else None}
                             for p in out["points"]], "history")
    return orjson_response(out)


@router.get("/tradeoff", response_model=TradeoffOut, responses=_CSV)
async def get_tradeoff(
    request: Request, commit: str, machine: str, dataset: str,
    reference: Annotated[int | None, Query(description="setting to divide by, e.g. 505")] = None,
    codec: str | None = None, preconditioner: str = "none", dictionary_size: int = 0,
    basket_size: int = 0, mode: str = "basket", threads: int = 1,
    format: Annotated[str | None, Query(pattern="^(json|csv)$")] = None,
    codecs: Annotated[str | None, Query(max_length=100)] = None,
) -> Any:
    sel = ConfigSelector(None, None, codec, preconditioner, dictionary_size, basket_size,
                         mode, threads)
    return await run_read(request, _tradeoff_answer, commit, machine, dataset, sel,
                          reference, codecs, format)


def _tradeoff_answer(session: Session, commit: str, machine: str, dataset: str,
                     sel: ConfigSelector, reference: int | None, codecs: str | None,
                     format: str | None) -> Response:
    out = tradeoff.tradeoff(session, commit, machine, dataset, sel, reference, codecs)
    return csv_response(out["points"], "tradeoff") if format == "csv" else orjson_response(out)


@router.get("/compare", response_model=CompareOut, responses=_CSV)
async def get_compare(
    request: Request, settings: SettingsDep,
    base_commit: Annotated[str | None, Query(
        description="commits mode: the base commit (sha or unique prefix)")] = None,
    head_commit: Annotated[str | None, Query(
        description="commits mode: the head commit (sha or unique prefix)")] = None,
    machine: Annotated[str | None, Query(
        description="commits mode: the machine both commits were measured on")] = None,
    base_machine: Annotated[str | None, Query(description="machines mode: the base machine")
                            ] = None,
    head_machine: Annotated[str | None, Query(description="machines mode: the head machine")
                            ] = None,
    commit: Annotated[str | None, Query(
        description="machines mode: the commit both machines measured")] = None,
    dataset: Annotated[str | None, Query(description="only this dataset")] = None,
    metric: Annotated[Metric | None, Query(description="only this metric")] = None,
    only_significant: Annotated[bool, Query(
        description="only rows that are a significant change")] = False,
    format: Annotated[str | None, Query(
        pattern="^(json|csv)$", description="json (default) or csv of the rows")] = None,
    codecs: Annotated[str | None, Query(
        max_length=100, description="codec series key or set name for both sides; default: "
        "the head's newest series")] = None,
    merged: Annotated[bool, Query(
        description="one size row per series: the compressed-size row carries the ratio, "
        "exact bytes and the byte delta, and the ratio row is left out")] = False,
    order: Annotated[Literal["decided", "series"] | None, Query(
        description="decided: exact size changes, then significant speed changes, each by "
        "|delta|, then the rest in series order; series (default): dataset, configuration, "
        "metric")] = None,
    setting: Annotated[int | None, Query(description="only this setting, e.g. 505")] = None,
    limit: Annotated[int | None, Query(
        ge=1, le=10_000, description="rows per page; default: every row")] = None,
    offset: Annotated[int, Query(ge=0, description="rows to skip (after ordering)")] = 0,
) -> Any:
    """Per-series deltas between two commits on one machine, or two machines at one
    commit. Sizes are exact (any byte change is a change); speeds are tested (two-sided
    Mann-Whitney U, Benjamini-Hochberg over the compared speed rows, a minimum effect):
    `rule` states the rule applied, `total` and `counts` cover every row, not one page."""
    asked = CompareRequest(
        base_commit=base_commit, head_commit=head_commit, machine=machine,
        base_machine=base_machine, head_machine=head_machine, commit=commit, dataset=dataset,
        metric=metric, only_significant=only_significant, codecs=codecs, merged=merged,
        order=order, setting=setting, limit=limit, offset=offset)
    return await run_read(request, _compare_answer, asked, settings, format)


def _compare_answer(session: Session, asked: CompareRequest, settings: Settings,
                    format: str | None) -> Response:
    out = compare.compare(session, asked, settings)
    return (csv_response(out.rows, "compare") if format == "csv"
            else orjson_response(out.answer()))


@router.get("/codec-series", response_model=list[CodecSeriesOut])
def get_codec_series(session: SessionDep, machine: str) -> Any:
    """Every codec series the machine measured, newest first, with its two newest commits
    (the dashboard's default compare pair: two commits of one series)."""
    return series.machine_codec_series(session, machine)
