"""The lossy sweep document as uploaded (basketbench-lossy-v1, measure/lossy/sweep.py) and the
answers of the lossy endpoints."""

from __future__ import annotations

import math
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

Setting = Annotated[int, Field(ge=100, le=509)]
Name = Annotated[str, Field(min_length=1, max_length=300)]
Error = Annotated[float, Field(ge=0)]
Bytes = Annotated[int, Field(ge=0, le=2**62)]
BITS = {"full": (32, 32), "half": (16, 16), "trunc": (10, 31), "quant": (1, 32)}


class LossyResultIn(BaseModel):
    model_config = ConfigDict(extra="ignore")

    column: Name
    representation: Literal["full", "half", "trunc", "quant"]
    bits: int
    setting: Setting
    compressed_bytes: Bytes
    uncompressed_bytes: Bytes
    max_abs_error: Error
    max_rel_error: Error
    rms_rel_error: Error

    @field_validator("max_abs_error", "max_rel_error", "rms_rel_error")
    @classmethod
    def _finite(cls, value: float) -> float:
        if not math.isfinite(value):
            raise ValueError("must be finite")
        return value

    @model_validator(mode="after")
    def _bits(self) -> LossyResultIn:
        low, high = BITS[self.representation]
        if not low <= self.bits <= high:
            raise ValueError(f"{self.representation} has {low}-{high} bits, not {self.bits}")
        return self


class LossyDocument(BaseModel):
    model_config = ConfigDict(extra="ignore")

    schema_: Literal["basketbench-lossy-v1"] = Field(alias="schema")
    file: Name
    file_sha256: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]
    settings: list[Setting] = Field(min_length=1, max_length=20)
    tool: Annotated[str, Field(max_length=100)] | None = None
    columns: Annotated[int, Field(ge=1, le=100_000)]
    results: list[LossyResultIn] = Field(min_length=1, max_length=200_000)
    physics: list[dict[str, Any]] = Field(default_factory=list, max_length=10_000)
    notes: list[Annotated[str, Field(max_length=2000)]] = Field(default_factory=list,
                                                                max_length=100_000)

    @model_validator(mode="after")
    def _unique(self) -> LossyDocument:
        keys = {(r.column, r.representation, r.bits, r.setting) for r in self.results}
        if len(keys) != len(self.results):
            raise ValueError("results repeat a (column, representation, bits, setting)")
        unknown = {r.setting for r in self.results} - set(self.settings)
        if unknown:
            raise ValueError(f"results at settings {sorted(unknown)} not in settings")
        return self


class LossyUpload(BaseModel):
    model_config = ConfigDict(extra="forbid")

    commit: Annotated[str, Field(min_length=4, max_length=64)]
    codecs: Annotated[str, Field(min_length=1, max_length=100)] = "host"
    document: LossyDocument


class LossyStored(BaseModel):
    id: int
    commit: str
    file: str
    codecs: str
    rows: int


class LossySweepOut(BaseModel):
    id: int
    commit: str
    file: str
    file_sha256: str
    codecs: str
    settings: list[int]
    columns: int
    created_at: datetime


class LossySweepsOut(BaseModel):
    sweeps: list[LossySweepOut]


class LossyPointOut(BaseModel):
    column: str
    representation: str
    bits: int
    compressed_bytes: int
    uncompressed_bytes: int
    saved_pct: float  # against `full` of the same column at the same setting
    max_abs_error: float
    max_rel_error: float
    rms_rel_error: float


class LossyColumnsOut(BaseModel):
    sweep: LossySweepOut
    setting: int
    columns: list[str]  # every column of the sweep, largest at `full` first
    points: list[LossyPointOut]  # of the columns asked for (default: the largest)
    physics: list[dict[str, Any]]
    notes: list[str]


class LossyHistoryPointOut(BaseModel):
    commit: str
    committed_at: datetime | None
    sweep: int
    codecs: str
    compressed_bytes: int
    saved_pct: float
    max_rel_error: float


class LossyHistoryOut(BaseModel):
    file: str
    column: str
    representation: str
    bits: int
    setting: int
    codecs: str | None  # None: every codec set
    points: list[LossyHistoryPointOut]
