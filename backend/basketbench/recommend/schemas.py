"""Recommendation requests and answers (measure/advise/ranking.py)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from basketbench.measure.advise.settings import check_advise_setting

# A setting `advise` ranks (measure/advise/settings.py): what the CLI accepts, the API does.
AdviseSetting = Annotated[int, Field(ge=0, le=599), AfterValidator(check_advise_setting)]
Preconditioner = Literal["none", "shuffle", "bitshuffle"]


def _no_repeats(keys: Iterable[tuple[int, str]], where: str) -> None:
    """A (setting, preconditioner) given twice would silently overwrite or double-count."""
    seen: set[tuple[int, str]] = set()
    for i, key in enumerate(keys):
        if key in seen:
            raise ValueError(f"{where}[{i}]: setting {key[0]} with preconditioner "
                             f"{key[1]!r} given twice")
        seen.add(key)


class CostModelIn(BaseModel):
    """The cost model; every field optional, defaults as `basketbench advise --help` states."""

    model_config = ConfigDict(extra="forbid")

    storage_per_tb_month: float = Field(20.0, ge=0, le=1e9, allow_inf_nan=False,
                                        description="price of a decimal TB stored a month")
    months: float = Field(36.0, ge=0, le=1e4, allow_inf_nan=False,
                          description="how long the file is kept")
    cpu_per_core_hour: float = Field(0.05, ge=0, le=1e6, allow_inf_nan=False,
                                     description="price of a core-hour")
    reads_per_file: float = Field(10.0, ge=0, le=1e9, allow_inf_nan=False,
                                  description="how often the whole file is read")
    writes_per_file: float = Field(1.0, ge=0, le=1e9, allow_inf_nan=False,
                                   description="how often the file is written")
    network_mb_per_s: float = Field(100.0, ge=1e-6, le=1e9, allow_inf_nan=False,
                                    description="decimal MB/s between storage and the core")


class CandidateIn(BaseModel):
    """One measured setting: what `advise --json` lists under `measured`."""

    model_config = ConfigDict(extra="ignore")

    setting: AdviseSetting
    preconditioner: Preconditioner = "none"
    raw_bytes: int = Field(gt=0, le=2**62)
    compressed_bytes: int = Field(gt=0, le=2**62)
    compress_mb_s: float = Field(ge=1e-6, le=1e9, allow_inf_nan=False)
    decompress_mb_s: float = Field(ge=1e-6, le=1e9, allow_inf_nan=False)
    # the speed samples behind the medians (GET /recommend/speeds): given for every candidate,
    # the answer states how stable the winner is under resampling
    compress_samples: list[Annotated[float, Field(ge=1e-6, le=1e9, allow_inf_nan=False)]] | None \
        = Field(default=None, max_length=10000)
    decompress_samples: list[Annotated[float, Field(ge=1e-6, le=1e9, allow_inf_nan=False)]] | None \
        = Field(default=None, max_length=10000)


# Distinct advise settings: 4 algorithms x 10 levels x 3 preconditioners.
MAX_CANDIDATES = 120


class RecommendIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    candidates: list[CandidateIn] = Field(min_length=1, max_length=MAX_CANDIDATES,
                                          description="distinct (setting, preconditioner)")
    model: CostModelIn = Field(default_factory=CostModelIn)

    @model_validator(mode="after")
    def _distinct(self) -> RecommendIn:
        _no_repeats(((c.setting, c.preconditioner) for c in self.candidates), "candidates")
        return self


class MeasuredSettingOut(BaseModel):
    """A setting's exact bytes and its speeds (what the ranking ranks)."""

    setting: int
    preconditioner: str
    raw_bytes: int
    compressed_bytes: int
    compress_mb_s: float
    decompress_mb_s: float


class RankedOut(MeasuredSettingOut):
    rank: int
    label: str
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


class WinnerShare(BaseModel):
    label: str
    share: float


class StabilityOut(BaseModel):
    resamples: int
    seed: int
    winners: list[WinnerShare] = Field(description="share of the resamples each setting wins")
    stable: bool = Field(description="the winner wins at least 90 % of the resamples")
    contenders: list[str]
    statement: str


class RecommendationOut(BaseModel):
    model: CostModelIn
    recommended: str
    margin: float | None = Field(description="(runner-up - best) / best total cost; null alone")
    summary: str = Field(description="the headline in words")
    ranking: list[RankedOut]
    sensitivity: list[CrossingOut]
    snippet: str = Field(description="C++ applying the recommended setting in ROOT: TFile, "
                         "RDataFrame::Snapshot, RNTuple")
    stability: StabilityOut | None = Field(
        default=None, description="with speed samples for every candidate: how the winner "
        "holds when the speeds are resampled; null without samples")


class SpeedEvidenceRow(MeasuredSettingOut):
    source: Literal["ab", "history", "this-run"]
    runs: int
    compress_samples: list[float] | None
    decompress_samples: list[float] | None


class SpeedEvidenceOut(BaseModel):
    commit: str
    machine: str
    dataset: str
    source: Literal["ab", "history", "this-run"] = Field(
        description="the weakest evidence of any setting: ab (an interleaved A/B against a "
        "reference), history (the median of the commit's runs here), this-run")
    description: str
    speeds: list[SpeedEvidenceRow]


class SizeIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    setting: int = Field(ge=0, le=599)
    preconditioner: Literal["none", "shuffle", "bitshuffle"] = "none"
    compressed_bytes: int = Field(ge=0, le=2**62)
    stored_baskets: int | None = Field(default=None, ge=0)


class SpeedIn(BaseModel):
    """A setting's speeds; `advise --json`'s `measured` rows fit as they are."""

    model_config = ConfigDict(extra="ignore")

    setting: int = Field(ge=0, le=599)
    preconditioner: Literal["none", "shuffle", "bitshuffle"] = "none"
    compress_mb_s: float = Field(ge=1e-6, le=1e9, allow_inf_nan=False)
    decompress_mb_s: float = Field(ge=1e-6, le=1e9, allow_inf_nan=False)


class GroupSizesIn(BaseModel):
    """A branch or type class: `advise --json`'s and `GET /branch-sizes`' groups fit as they are."""

    model_config = ConfigDict(extra="ignore")

    key: str = Field(min_length=1, max_length=1000)
    type_class: str | None = Field(default=None, max_length=100)
    raw_bytes: int = Field(ge=0, le=2**62)
    share: float = Field(0.0, ge=0, le=1, allow_inf_nan=False)
    sizes: list[SizeIn] = Field(min_length=1, max_length=200)

    @model_validator(mode="after")
    def _distinct(self) -> GroupSizesIn:
        _no_repeats(((z.setting, z.preconditioner) for z in self.sizes),
                    f"group {self.key!r}: sizes")
        return self


# The work of one request is a ranking per group over its sizes that have speeds: about
# 13 us per size and 100 us per group (measured, docs/perf/faults.md), so a request may
# carry at most MAX_GROUP_WORK = sizes + GROUP_WEIGHT x groups: <= 0.2 CPU-s (docs/API.md).
GROUP_WEIGHT = 8
MAX_GROUP_WORK = 10_000
MAX_GROUPS = MAX_GROUP_WORK // (GROUP_WEIGHT + 1)


class RecommendGroupsIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    groups: list[GroupSizesIn] = Field(min_length=1, max_length=MAX_GROUPS)
    speeds: list[SpeedIn] = Field(min_length=1, max_length=MAX_CANDIDATES,
                                  description="distinct (setting, preconditioner)")
    model: CostModelIn = Field(default_factory=CostModelIn)

    @model_validator(mode="before")
    @classmethod
    def _bounded_early(cls, data: Any) -> Any:
        """The work bound counted on the raw body, before tens of thousands of sizes
        become models only to be refused."""
        groups = data.get("groups") if isinstance(data, dict) else None
        if isinstance(groups, list) and len(groups) <= MAX_GROUPS:
            _check_work(sum(len(g["sizes"]) for g in groups if isinstance(g, dict)
                            and isinstance(g.get("sizes"), list)), len(groups))
        return data

    @model_validator(mode="after")
    def _bounded(self) -> RecommendGroupsIn:
        _no_repeats(((s.setting, s.preconditioner) for s in self.speeds), "speeds")
        _check_work(sum(len(g.sizes) for g in self.groups), len(self.groups))
        return self


def _check_work(sizes: int, groups: int) -> None:
    work = sizes + GROUP_WEIGHT * groups
    if work > MAX_GROUP_WORK:
        raise ValueError(f"{sizes} sizes + {GROUP_WEIGHT} x {groups} groups = {work}: at "
                         f"most {MAX_GROUP_WORK} per request (split the groups over several "
                         "requests)")


class GroupRecommendationOut(BaseModel):
    key: str
    type_class: str | None
    raw_bytes: int
    share: float
    recommended: str | None = Field(description="null when no setting has both size and speeds")
    margin: float | None
    summary: str
    ranking: list[str]
    compressed_bytes: int | None = Field(description="at the group's own recommendation")
    cost_total: float | None
    compressed_bytes_at_file_best: int | None
    cost_at_file_best: float | None
    differs: bool = Field(False, description="its own best setting is not the file's")
    saving: float | None = Field(None, description="cost at the file's best - cost at its own")
    saving_bytes: int | None = Field(None, description="bytes at the file's best - at its own")


class GroupsRecommendationOut(BaseModel):
    model: CostModelIn
    file_recommended: str | None = Field(description="the best single setting for all groups")
    groups: list[GroupRecommendationOut]
    cost_at_file_best: float
    cost_per_group: float = Field(description="every group at its own recommendation")
    saving: float = Field(description="cost_at_file_best - cost_per_group")
    saving_fraction: float
    compressed_bytes_at_file_best: int
    compressed_bytes_per_group: int
    settings_used: int
    differing: int = Field(0, description="groups whose own best setting is not the file's; "
                           "`groups` lists them first, largest saving first")
    snippet: str | None = Field(None, description="C++ applying the file's setting and the "
                                "differing groups' own settings in ROOT")


class BranchSizesIn(BaseModel):
    """One branch of `rzbench sizes` output (docs/RZBENCH_CLI.md)."""

    model_config = ConfigDict(extra="ignore")

    file: str = Field("", max_length=1000)
    tree: str = Field("", max_length=1000)
    branch: str = Field(min_length=1, max_length=1000)
    type_class: Literal["float", "integer", "boolean", "counts", "string", "object"] | None = None
    baskets: int = Field(ge=0, le=2**31 - 1)
    raw_bytes: int = Field(ge=0, le=2**62)
    sizes: list[SizeIn] = Field(min_length=1, max_length=200)


class BranchSizesUpload(BaseModel):
    """Per-branch sizes of one dataset on one commit's codecs; replaces an earlier upload."""

    model_config = ConfigDict(extra="forbid")

    commit: str = Field(min_length=4, max_length=64)
    dataset: str = Field(min_length=1, max_length=300)
    codecs: str = Field("host", min_length=1, max_length=100)
    branches: list[BranchSizesIn] = Field(min_length=1, max_length=100_000)


class BranchSizesStored(BaseModel):
    commit: str
    dataset: str
    codecs: str
    rows: int


class SizeOut(BaseModel):
    setting: int
    preconditioner: str
    compressed_bytes: int


class SizeGroupOut(BaseModel):
    key: str
    type_class: str | None
    branches: int
    baskets: int
    raw_bytes: int
    share: float = Field(description="of the dataset's uncompressed bytes")
    sizes: list[SizeOut]


class BranchSizesOut(BaseModel):
    commit: str
    dataset: str
    codecs: str
    group_by: Literal["branch", "type_class", "file"]
    groups: list[SizeGroupOut]


class WinnerPoint(BaseModel):
    sha: str
    order: int
    codec_set_id: int | None
    recommended: str
    margin: float | None
    settings: int


class WinnerChange(BaseModel):
    sha: str
    order: int
    codec_set_id: int | None
    previous_sha: str
    from_: str = Field(alias="from")
    to: str
    margin: float | None

    model_config = ConfigDict(populate_by_name=True)


class RecommendHistoryOut(BaseModel):
    machine: str
    dataset: str
    points: list[WinnerPoint]
    changes: list[WinnerChange]


class CostModelQuery(CostModelIn):
    """The cost model as query parameters, next to the endpoint's own ones."""

    model_config = ConfigDict(extra="ignore")


class AdviseIn(BaseModel):
    """Advise on a file already under the worker's data root (no upload through the browser)."""

    model_config = ConfigDict(extra="forbid")

    tag: str = Field(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9_.\-]+$")
    path: str = Field(min_length=1, max_length=1000,
                      description="relative to the worker's data root (BASKETBENCH_DATA_ROOT)")


class AdviseRunOut(BaseModel):
    run_id: int
    tag: str
    path: str
    status: str
    stage: str | None
    progress: float
    created_at: datetime
    finished_at: datetime | None
    has_document: bool
    reason: str | None = Field(None, description="why a failed or cancelled run stopped")


class AdviseRunsOut(BaseModel):
    items: list[AdviseRunOut]


class AdvicePathOut(BaseModel):
    run_id: int
    path: str


AdviceDocument = dict[str, Any]


class MeasuredIn(BaseModel):
    """A `measured` row of `advise --json`."""

    model_config = ConfigDict(extra="allow")

    setting: AdviseSetting
    preconditioner: Preconditioner
    raw_bytes: int = Field(gt=0, le=2**62)
    compressed_bytes: int = Field(gt=0, le=2**62)
    ratio: float = Field(gt=0, le=1e12, allow_inf_nan=False)
    compress_mb_s: float = Field(gt=0, le=1e9, allow_inf_nan=False)
    decompress_mb_s: float = Field(gt=0, le=1e9, allow_inf_nan=False)


class RankedIn(BaseModel):
    model_config = ConfigDict(extra="allow")

    rank: int = Field(ge=1, le=MAX_CANDIDATES)
    label: str = Field(min_length=1, max_length=50)
    cost_total: float = Field(ge=0, allow_inf_nan=False)


class AdviceDocumentIn(BaseModel):
    """What `basketbench advise --json` writes, checked whole before it is stored: a worker
    stores a complete document or nothing (its other fields are kept as they are)."""

    model_config = ConfigDict(extra="allow")

    file: str = Field(min_length=1, max_length=1000)
    raw_bytes: int = Field(gt=0, le=2**62)
    baskets: int = Field(ge=1, le=2**62)
    measured: list[MeasuredIn] = Field(min_length=1, max_length=MAX_CANDIDATES)
    model: CostModelIn
    recommended: str = Field(min_length=1, max_length=50)
    margin: float | None = Field(allow_inf_nan=False)
    summary: str = Field(max_length=10_000)
    ranking: list[RankedIn] = Field(min_length=1, max_length=MAX_CANDIDATES)
    sensitivity: list[dict[str, Any]] = Field(max_length=100)
    type_classes: list[dict[str, Any]] = Field(max_length=MAX_GROUPS)
    branches: list[dict[str, Any]] = Field(max_length=100_000)

    @model_validator(mode="after")
    def _consistent(self) -> AdviceDocumentIn:
        _no_repeats(((m.setting, m.preconditioner) for m in self.measured), "measured")
        labels = [r.label for r in self.ranking]
        if self.recommended != labels[0]:
            raise ValueError(f"recommended {self.recommended!r} is not the ranking's first "
                             f"({labels[0]!r})")
        if len(self.ranking) != len(self.measured):
            raise ValueError(f"{len(self.ranking)} ranked settings for "
                             f"{len(self.measured)} measured")
        return self
