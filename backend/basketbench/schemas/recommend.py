"""Recommendation requests and answers (services/recommend.py)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class CostModelIn(BaseModel):
    """The cost model; every field optional, defaults as `basketbench advise --help` states."""

    model_config = ConfigDict(extra="forbid")

    storage_per_tb_month: float = Field(20.0, ge=0, le=1e9, allow_inf_nan=False)
    months: float = Field(36.0, ge=0, le=1e4, allow_inf_nan=False)
    cpu_per_core_hour: float = Field(0.05, ge=0, le=1e6, allow_inf_nan=False)
    reads_per_file: float = Field(10.0, ge=0, le=1e9, allow_inf_nan=False)
    writes_per_file: float = Field(1.0, ge=0, le=1e9, allow_inf_nan=False)
    network_mb_per_s: float = Field(100.0, gt=0, le=1e9, allow_inf_nan=False)


class CandidateIn(BaseModel):
    """One measured setting: what `advise --json` lists under `measured`."""

    model_config = ConfigDict(extra="ignore")

    setting: int = Field(ge=0, le=599)
    preconditioner: Literal["none", "shuffle", "bitshuffle"] = "none"
    raw_bytes: int = Field(gt=0, le=2**62)
    compressed_bytes: int = Field(gt=0, le=2**62)
    compress_mb_s: float = Field(gt=0, le=1e9, allow_inf_nan=False)
    decompress_mb_s: float = Field(gt=0, le=1e9, allow_inf_nan=False)


class RecommendIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    candidates: list[CandidateIn] = Field(min_length=1, max_length=1000)
    model: CostModelIn = Field(default_factory=CostModelIn)


class RankedOut(BaseModel):
    rank: int
    label: str
    setting: int
    preconditioner: str
    raw_bytes: int
    compressed_bytes: int
    compress_mb_s: float
    decompress_mb_s: float
    ratio: float
    cost_storage: float
    cost_write: float
    cost_read: float
    cost_total: float
    pareto: bool


class CrossingOut(BaseModel):
    parameter: str
    direction: Literal["below", "above"]
    value: float
    winner: str


class RecommendationOut(BaseModel):
    model: CostModelIn
    recommended: str
    margin: float | None = Field(description="(runner-up - best) / best total cost; null alone")
    summary: str
    ranking: list[RankedOut]
    sensitivity: list[CrossingOut]
