"""The arena upload (an envelope naming where a `basketbench-arena-v1` document belongs) and
the answers of the arena endpoints. The document itself is the shared contract
(basketbench.measure.document.arena), checked strictly."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from basketbench.measure.document.arena import ArenaDocument


class ArenaUpload(BaseModel):
    """POST /arena-runs: the machine that measured, and the commit whose build was ROOT's
    reference layer (none: the host's layer, a `basketbench arena` run by hand)."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    machine_id: int = Field(ge=1)
    commit: str | None = Field(default=None, min_length=40, max_length=40,
                               pattern=r"^[0-9a-fA-F]{40}$")
    repository: str | None = Field(default=None, min_length=1, max_length=200)
    run_id: int | None = Field(default=None, ge=1)
    document: ArenaDocument


class ArenaStored(BaseModel):
    arena_run_id: int
    results: int
    duplicate: bool


class SpeedRatioOut(BaseModel):
    """Candidate speed / ROOT speed, interleaved: median of the per-pair ratios (> 1: the
    candidate is faster), its interval and the pairs behind it."""

    median: float | None
    ci_low: float | None
    ci_high: float | None
    pairs: int
    disturbed_pairs: int


class ArenaResultOut(BaseModel):
    candidate: str
    family: str
    level: int
    shape: str | None
    reference_setting: int
    root_setting: int | None  # level mapping: the ROOT setting reaching this level
    compressed_bytes: int | None  # None: a failed result (error)
    reference_bytes: int | None
    size_change_pct: float | None
    identical_to_reference: bool | None
    roundtrip_ok: bool | None
    root_readable: bool | None
    error: str | None
    compress_ratio: SpeedRatioOut | None
    decompress_ratio: SpeedRatioOut | None
    compress_instructions: float | None
    decompress_instructions: float | None
    reference_compress_instructions: float | None
    reference_decompress_instructions: float | None


class ArenaCandidateOut(BaseModel):
    candidate: str
    family: str
    version: str
    source: str
    sha256: str | None
    what: str | None = None
    root_readable: bool | None


class ArenaRunOut(BaseModel):
    id: int
    file: str
    file_sha256: str
    format: str
    machine_id: int
    machine: str
    commit: str | None  # the build that was ROOT's reference; None: the host's layer
    run_id: int | None
    host: dict[str, Any]
    load: dict[str, Any]
    buffers: int
    embedded_buffers: int | None  # of them, baskets ROOT kept inside their TBranch
    uncompressed_bytes: int
    candidates: list[ArenaCandidateOut]
    reference: dict[str, Any] | None  # ROOT's side: {label, codec_versions}
    method: dict[str, Any]
    shape_totals: dict[str, Any]  # {shape: {buffers, bytes}}
    created_at: datetime


class ArenaBoardOut(BaseModel):
    """The latest arena run of one file on one machine, with its rows (`results` for the
    whole file, `shapes` per data shape, `level_mapping` per family)."""

    run: ArenaRunOut
    results: list[ArenaResultOut]
    shapes: list[ArenaResultOut]
    level_mapping: dict[str, list[ArenaResultOut]]


class ArenaBoardsOut(BaseModel):
    boards: list[ArenaBoardOut]


class ArenaHistoryPointOut(BaseModel):
    commit: str
    committed_at: datetime | None
    arena_run_id: int
    created_at: datetime
    compressed_bytes: int | None
    reference_bytes: int | None
    size_change_pct: float | None
    roundtrip_ok: bool | None
    error: str | None
    compress_ratio: SpeedRatioOut | None
    decompress_ratio: SpeedRatioOut | None
    compress_instructions: float | None
    reference_compress_instructions: float | None
    decompress_instructions: float | None
    reference_decompress_instructions: float | None


class ArenaHistoryOut(BaseModel):
    file: str
    machine: str
    candidate: str
    level: int
    reference_setting: int
    shape: str | None
    points: list[ArenaHistoryPointOut]  # oldest commit first
