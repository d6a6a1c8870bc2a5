"""One side of a comparison (a commit on a machine, in one codec series): its values per
(dataset, configuration), and its raw speed samples, parsed only where needed."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import orjson
from sqlalchemy import Text, bindparam, cast, select
from sqlalchemy.orm import Session

from basketbench.core.sqlutil import plain_rows
from basketbench.models import Result

Samples = str | list[float] | None
"""Raw samples: their JSON text as stored, or a list where several runs were merged."""


@dataclass(slots=True)
class Side:
    """One (dataset, configuration) of one compare side: values, and the raw samples --
    their JSON text as stored (parsed only for the rows that get a test), or a list where
    several runs were merged."""

    ratio: float | None
    cbytes: float | None
    c_median: float | None
    d_median: float | None
    c_samples: Samples
    d_samples: Samples
    c_ipmb: float | None = None  # instructions per MB (counted runs only)
    d_ipmb: float | None = None


def has_samples(raw: Samples) -> bool:
    """Whether the samples are a non-empty list, mostly without parsing them: in valid
    JSON, "[" followed by anything but blank or "]" starts a non-empty array."""
    if raw is None:
        return False
    if isinstance(raw, str):
        if len(raw) > 2 and raw[0] == "[" and raw[1] not in "] \t\r\n":
            return True
        return bool(orjson.loads(raw))
    return bool(raw)


def sample_count(raw: Samples) -> int:
    """How many samples, without parsing the JSON text: its commas plus one."""
    if raw is None:
        return 0
    if isinstance(raw, str):
        return raw.count(",") + 1 if has_samples(raw) else 0
    return len(raw)


def samples(raw: Samples) -> list[float] | None:
    return orjson.loads(raw) if isinstance(raw, str) else raw


@lru_cache(maxsize=32)
def _side_statement(want_c: bool, want_d: bool, by_dataset: bool, legacy: bool) -> Any:
    """A side's rows: built once per shape (which samples, one dataset or all, whether the
    codec series is the legacy one of results without a codec set), as parameters."""
    cols = [Result.dataset_id, Result.configuration_id, Result.ratio, Result.compressed_bytes,
            Result.c_median, Result.d_median,
            cast(Result.c_samples, Text) if want_c else Result.c_n,
            cast(Result.d_samples, Text) if want_d else Result.d_n,
            Result.c_instructions_per_mb, Result.d_instructions_per_mb]
    sets: Any = Result.codec_set_id.in_(bindparam("set_ids", expanding=True))
    if legacy:
        sets = sets | Result.codec_set_id.is_(None)
    stmt = select(*cols).where(Result.commit_id == bindparam("commit_id"),
                               Result.machine_id == bindparam("machine_id"), sets)
    if by_dataset:
        stmt = stmt.where(Result.dataset_id == bindparam("dataset_id"))
    return stmt


def load_side(session: Session, commit_id: int, machine_id: int, dataset_id: int | None,
              metrics: list[str], codec_set_ids: list[int | None]
              ) -> dict[tuple[int, int], Side]:
    """The side's values per (dataset id, configuration id), in these codec sets (None: the
    results without one); samples only of the speeds compared. Several runs of the commit
    are merged: means, and all their samples."""
    want_c = "compress_mbps" in metrics
    want_d = "decompress_mbps" in metrics
    stmt = _side_statement(want_c, want_d, dataset_id is not None, None in codec_set_ids)
    out: dict[tuple[int, int], Side] = {}
    repeated: dict[tuple[int, int], list[Side]] = {}
    # Plain row tuples (864 per side), no Row objects.
    for ds, conf, ratio, cb, cm, dm, cs, dsmp, ci, di in plain_rows(session, stmt, {
            "commit_id": commit_id, "machine_id": machine_id, "dataset_id": dataset_id,
            "set_ids": [i for i in codec_set_ids if i is not None]}):
        side = Side(ratio, cb, cm, dm, cs if want_c else None, dsmp if want_d else None,
                    ci, di)
        key = (ds, conf)
        if key in out:  # several runs of this commit: rare, merged below
            repeated.setdefault(key, [out[key]]).append(side)
        else:
            out[key] = side
    for key, sides in repeated.items():
        out[key] = Side(
            _mean([s.ratio for s in sides]), _mean([s.cbytes for s in sides]),
            _mean([s.c_median for s in sides]), _mean([s.d_median for s in sides]),
            [x for s in sides for x in (samples(s.c_samples) or [])] or None,
            [x for s in sides for x in (samples(s.d_samples) or [])] or None,
            _mean([s.c_ipmb for s in sides]), _mean([s.d_ipmb for s in sides]))
    return out


def _mean(values: list[Any]) -> float | None:
    present = [float(v) for v in values if v is not None]
    return sum(present) / len(present) if present else None
