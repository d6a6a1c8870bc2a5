"""The A/B upload (an envelope naming where a `basketbench-ab-v1` document belongs) and the
listing's answer. The document's shape is the shared contract (COMMON.md, written by
`basketbench ab --json` and the worker's A/B stage); unknown extra keys are tolerated so a
newer harness can add evidence, but every key stored is checked here."""

from __future__ import annotations

import math
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from basketbench.models.experiment import ALGORITHM_NAMES

AB_SCHEMA = "basketbench-ab-v1"
Sha = Field(min_length=40, max_length=40, pattern=r"^[0-9a-fA-F]{40}$")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="ignore", allow_inf_nan=False, strict=False)


class AbSide(_Strict):
    build: str = Field(min_length=1, max_length=1000)
    label: str = Field(max_length=200)
    codec_versions: dict[str, str] = Field(default_factory=dict)


class AbMethod(_Strict):
    model_config = ConfigDict(extra="allow", allow_inf_nan=False)
    order: str = Field(max_length=500)
    ratio: str = Field(max_length=500)
    ci: str = Field(max_length=500)
    confidence: float = Field(gt=0, lt=1)
    disturbed_rule: str = Field(max_length=1000)
    repetitions_per_pair: int = Field(ge=1)


class AbLoad(_Strict):
    model_config = ConfigDict(extra="allow", allow_inf_nan=False)
    loadavg_start: list[float] = Field(min_length=3, max_length=3)
    loadavg_end: list[float] = Field(min_length=3, max_length=3)


class AbEstimate(_Strict):
    """One direction's effect: the median of the per-pair ratios B/A and its interval
    (null when no undisturbed pair is left)."""

    ratio: float | None = Field(default=None, gt=0)
    ci_low: float | None = Field(default=None, gt=0)
    ci_high: float | None = Field(default=None, gt=0)
    pairs: int = Field(ge=0, le=10**7)
    disturbed_pairs: int = Field(ge=0, le=10**7)
    samples: list[float] = Field(default_factory=list, max_length=10**5)

    @model_validator(mode="after")
    def _consistent(self) -> AbEstimate:
        values = (self.ratio, self.ci_low, self.ci_high)
        if any(v is None for v in values) and not all(v is None for v in values):
            raise ValueError("ratio, ci_low and ci_high are all numbers or all null")
        if self.ratio is not None and self.ci_low is not None and self.ci_high is not None \
                and not self.ci_low <= self.ratio <= self.ci_high:
            raise ValueError(f"the interval [{self.ci_low}, {self.ci_high}] does not hold "
                             f"the ratio {self.ratio}")
        if self.ratio is not None and self.pairs == 0:
            raise ValueError("a ratio needs at least one pair")
        if any(not math.isfinite(s) or s <= 0 for s in self.samples):
            raise ValueError("samples must be positive finite ratios")
        if len(self.samples) > self.pairs + self.disturbed_pairs:
            raise ValueError(f"{len(self.samples)} samples but only "
                             f"{self.pairs + self.disturbed_pairs} pairs")
        return self


class AbResult(_Strict):
    dataset: str = Field(min_length=1, max_length=300)
    setting: int
    compressed_bytes: dict[Literal["a", "b"], int] = Field(default_factory=dict)
    roundtrip_ok: bool
    compress: AbEstimate
    decompress: AbEstimate

    @field_validator("setting")
    @classmethod
    def _setting(cls, value: int) -> int:
        if value // 100 not in ALGORITHM_NAMES or value // 100 == 0 or not 1 <= value % 100 <= 99:
            raise ValueError(f"{value} is not a compression setting (algorithm * 100 + level)")
        return value


class AbDocument(_Strict):
    schema_: Literal["basketbench-ab-v1"] = Field(alias="schema")
    a: AbSide
    b: AbSide
    method: AbMethod
    load: AbLoad
    disturbed_fraction: float = Field(ge=0, le=1)
    results: list[AbResult] = Field(min_length=1, max_length=10_000)

    @model_validator(mode="after")
    def _unique(self) -> AbDocument:
        seen: dict[tuple[str, int], int] = {}
        for i, r in enumerate(self.results):
            first = seen.setdefault((r.dataset, r.setting), i)
            if first != i:
                raise ValueError(f"results/{i}: same dataset and setting as results/{first}")
        return self


class AbReference(_Strict):
    kind: Literal["parent", "previous", "release", "commit", "self", "bare"]
    commit: str | None = Field(default=None, min_length=40, max_length=40,
                               pattern=r"^[0-9a-fA-F]{40}$")
    label: str | None = Field(default=None, max_length=100)

    @model_validator(mode="after")
    def _named(self) -> AbReference:
        if self.kind in ("parent", "previous", "commit") and self.commit is None:
            raise ValueError(f"a {self.kind!r} reference names its commit")
        if self.kind == "release" and not self.label:
            raise ValueError("a 'release' reference names its release in 'label' (6.40.00)")
        if self.kind == "bare" and (not self.label or self.commit is not None):
            raise ValueError("a 'bare' reference (the codec library without ROOT's framing) "
                             "names its context in 'label' and no commit")
        return self


class AbCodecs(_Strict):
    set: str = Field(min_length=1, max_length=100)
    root_version: str | None = Field(default=None, max_length=50)
    libraries: dict[str, str] = Field(default_factory=dict)


class AbUpload(BaseModel):
    """POST /ab-runs: side B's commit, what it was measured against, on which machine."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    machine_id: int = Field(ge=1)
    commit: str = Sha
    repository: str | None = Field(default=None, min_length=1, max_length=200)
    run_id: int | None = Field(default=None, ge=1)
    reference: AbReference
    origin: Literal["pipeline", "compare"] = "pipeline"
    codecs: AbCodecs | None = None
    error: str | None = Field(default=None, max_length=4000)
    document: AbDocument


class AbIngestOut(BaseModel):
    ab_run_id: int
    effects: int
    duplicate: bool


class AbEffectOut(BaseModel):
    dataset: str
    setting: int
    configuration_id: int
    configuration: str
    metric: Literal["compress_mbps", "decompress_mbps"]
    ratio: float | None
    ci_low: float | None
    ci_high: float | None
    pairs: int
    disturbed_pairs: int
    samples: list[float] | None


class AbRunOut(BaseModel):
    id: int
    run_id: int | None
    machine_id: int
    machine: str
    commit: str
    reference_kind: str
    reference_commit: str | None
    reference_label: str | None
    origin: str
    codec_set: str | None
    disturbed_fraction: float | None
    method: dict[str, object]
    load: dict[str, object] | None
    error: str | None
    created_at: datetime
    effects: list[AbEffectOut]


class AbRunPage(BaseModel):
    items: list[AbRunOut]
    total: int

