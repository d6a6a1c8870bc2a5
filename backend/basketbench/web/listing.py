"""Pagination and CSV export shared by every list endpoint."""

from __future__ import annotations

import csv
import io
import itertools
import json
import logging
import types
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from enum import StrEnum
from typing import Annotated, Any, TypeVar, Union, get_args, get_origin

import orjson
from fastapi import Query, Request
from fastapi.responses import Response, StreamingResponse
from pydantic import BaseModel
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from basketbench.core.errors import Invalid
from basketbench.core.sqlutil import AnySelect

T = TypeVar("T")
log = logging.getLogger(__name__)

MAX_LIMIT = 1000
MAX_CSV_LIMIT = 100_000
# Rows per server-side cursor fetch when streaming CSV: memory stays at one chunk.
STREAM_CHUNK = 500
# The last line of a CSV export that failed after its first byte (the status line said
# 200 by then): documented in docs/API.md, "CSV exports". A complete export never has it.
CSV_ERROR_MARKER = "#basketbench-error"
# Cells a spreadsheet would read as a formula (OWASP "CSV injection"): text starting with
# one of these gets a leading single quote. Numbers are written as they are.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


class Format(StrEnum):
    json = "json"
    csv = "csv"


class PageParams(BaseModel):
    limit: int
    offset: int
    csv: bool


def page_params(
    request: Request,
    limit: Annotated[int, Query(ge=1, le=MAX_CSV_LIMIT, description="max 1000 (100000 for CSV)")]
    = 100,
    offset: Annotated[int, Query(ge=0)] = 0,
    format: Annotated[Format | None, Query(description="json (default) or csv")] = None,
) -> PageParams:
    as_csv = format == Format.csv or (
        format is None and "text/csv" in request.headers.get("accept", "")
    )
    if not as_csv and limit > MAX_LIMIT:
        # Said, not clamped: a caller asking for more must learn to page.
        raise Invalid(f"limit {limit} is above {MAX_LIMIT} for JSON: page with offset, or "
                      f"ask for format=csv (at most {MAX_CSV_LIMIT})",
                      [{"loc": ["query", "limit"], "msg": f"at most {MAX_LIMIT} for JSON"}])
    return PageParams(limit=limit, offset=offset, csv=as_csv)


def fetch_page(session: Session, stmt: AnySelect, params: PageParams,
               count: AnySelect | None = None) -> tuple[Sequence[Any], int]:
    """One page of ``stmt`` and the total; ``count`` is a cheaper query giving the same
    number (default: count the statement itself)."""
    rows = session.execute(stmt.limit(params.limit).offset(params.offset)).all()
    if params.offset == 0 and len(rows) < params.limit:
        return rows, len(rows)
    if count is not None:
        return rows, int(session.execute(count).scalar_one())
    total = session.execute(
        select(func.count()).select_from(stmt.order_by(None).subquery())
    ).scalar_one()
    return rows, int(total)


def csv_cell(text: str) -> str:
    """A text cell no spreadsheet runs as a formula (OWASP: prefix a single quote)."""
    return f"'{text}" if text.startswith(FORMULA_STARTS) else text


def _flatten(prefix: str, value: Any, out: dict[str, Any]) -> None:
    if isinstance(value, str):
        out[prefix] = csv_cell(value)
    elif isinstance(value, dict):
        for k, v in value.items():
            _flatten(f"{prefix}.{k}" if prefix else str(k), v, out)
    elif isinstance(value, list):
        out[prefix] = csv_cell(json.dumps(value))
    elif isinstance(value, datetime):
        out[prefix] = value.isoformat()
    elif value is None:
        out[prefix] = ""
    else:
        out[prefix] = value


def csv_response(items: Sequence[Any], filename: str) -> Response:
    rows: list[dict[str, Any]] = []
    columns: dict[str, None] = {}
    for item in items:
        data = item.model_dump(mode="json") if isinstance(item, BaseModel) else item
        flat: dict[str, Any] = {}
        _flatten("", data, flat)
        rows.append(flat)
        columns.update(dict.fromkeys(flat))
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(columns), extrasaction="ignore")
    writer.writeheader()
    writer.writerows(rows)
    return Response(
        buf.getvalue(), media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{filename}.csv"'},
    )


def json_response(model: BaseModel, status_code: int = 200) -> Response:
    """Serialise once with pydantic-core; FastAPI would validate the model again
    against ``response_model`` (which stays declared, for the OpenAPI schema)."""
    return Response(model.__pydantic_serializer__.to_json(model),
                    media_type="application/json", status_code=status_code)


def orjson_response(data: Any) -> Response:
    """For large answers built as plain dicts (history points, compare rows)."""
    return Response(orjson.dumps(data), media_type="application/json")


def respond(items: Sequence[T], total: int, params: PageParams, name: str,
            page_cls: Callable[..., BaseModel]) -> Any:
    if params.csv:
        return csv_response(items, name)
    return json_response(page_cls(items=list(items), total=total, limit=params.limit,
                                  offset=params.offset))


CSV_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {"content": {"text/csv": {"schema": {"type": "string"}}},
          "description": "JSON page, or CSV with ?format=csv / Accept: text/csv"},
}


def _model_type(annotation: Any) -> type[BaseModel] | None:
    """The BaseModel in ``X``, ``X | None`` or ``Optional[X]``, else None."""
    if get_origin(annotation) in (Union, types.UnionType):
        found = [a for a in get_args(annotation) if a is not type(None)]
        annotation = found[0] if len(found) == 1 else None
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    return None


def model_columns(model: type[BaseModel], prefix: str = "") -> list[str]:
    """The CSV columns ``_flatten`` gives an item of ``model`` whose nested models are set."""
    out: list[str] = []
    for name, info in model.model_fields.items():
        nested = _model_type(info.annotation)
        key = f"{prefix}.{name}" if prefix else name
        out += model_columns(nested, key) if nested else [key]
    return out


def stream_csv(make_session: sessionmaker[Session], stmt: AnySelect, params: PageParams,
               to_item: Callable[[Any], BaseModel], model: type[BaseModel],
               filename: str) -> StreamingResponse:
    """CSV of up to 100 000 rows in constant memory: a server-side cursor read
    STREAM_CHUNK rows at a time, each chunk written out before the next is fetched.
    Its own session: the request's closes when the endpoint returns.

    The query runs and its first chunk is written before the status line is sent, so a
    bad parameter (400) or an unavailable database (503) is a real status code. A failure
    after that ends the body with a CSV_ERROR_MARKER line (the status was already 200)."""
    columns = model_columns(model)

    def chunks() -> Iterator[str]:
        buf = io.StringIO()
        writer = csv.DictWriter(buf, fieldnames=columns, extrasaction="ignore")
        writer.writeheader()
        with make_session() as session:
            result = session.execute(stmt.limit(params.limit).offset(params.offset)
                                     .execution_options(yield_per=STREAM_CHUNK))
            for part in result.partitions():
                for row in part:
                    flat: dict[str, Any] = {}
                    _flatten("", to_item(row).model_dump(mode="json"), flat)
                    writer.writerow(flat)
                yield buf.getvalue()
                buf.seek(0)
                buf.truncate()
        yield buf.getvalue()

    body = chunks()
    # Raises here, in the endpoint, when the query cannot run: mapped to 4xx/503. An
    # unsent generator is closed (and its session with it) when it is collected.
    first = next(body)
    return StreamingResponse(
        _marked(itertools.chain([first], body), filename), media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{filename}.csv"'})


def _marked(chunks: Iterator[str], what: str) -> Iterator[str]:
    """The chunks, then, if producing one fails, a marker line instead of a silent cut."""
    try:
        yield from chunks
    except Exception as exc:
        log.warning("CSV export of %s failed after it started: %s", what,
                    str(exc).splitlines()[0][:300] if str(exc) else type(exc).__name__)
        yield f"{CSV_ERROR_MARKER}: export incomplete ({type(exc).__name__}); retry\n"
