"""History, tradeoff and compare answers."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, Field

from basketbench.schemas.refs import (  # noqa: F401 (re-exported)
    BuildOut,
    CodecSetOut,
    ConfigurationOut,
    MachineCodecSetOut,
    MachineRef,
    Metric,
)


class CodecSeriesOut(CodecSetOut):
    """One codec series, named by its newest set, and how far it reaches."""

    commits: int = Field(default=0, description="commits measured in this series here "
                         "(compare: of base and head)")
    first_libraries: dict[str, str] = Field(
        default_factory=dict, description="the versions at its oldest commit here "
        "(compare: the base's); differ from `libraries` in the builtin series")
    first_root_version: str | None = None
    latest_commits: list[str] = Field(
        default_factory=list, description="GET /codec-series only: its newest commits on "
        "the machine, newest first (compare's default pair)")


class SeriesOut(BaseModel):
    machine: MachineRef
    dataset: str
    configuration: ConfigurationOut
    metric: str


class HistoryPoint(BaseModel):
    sha: str
    order: int
    date: datetime | None
    author: str | None
    message: str | None
    value: float
    min: float | None
    max: float | None
    stddev: float | None
    n: int | None
    run_id: int | None
    codecs: CodecSetOut | None = None
    build: BuildOut | None = Field(default=None, description="how the harness that measured "
                                   "this point was built (its newest document)")


class HistoryChange(BaseModel):
    """A recorded, confirmed change of the series (GET /changes/{change_id})."""

    sha: str
    previous_sha: str
    delta_pct: float
    p_value: float | None
    change_id: int | None = None
    status: str | None = None
    direction: str | None = None


class HistoryOut(BaseModel):
    series: SeriesOut | None
    points: list[HistoryPoint]
    changes: list[HistoryChange]
    downsampled: bool
    total_points: int
    codecs: CodecSetOut | None = Field(
        default=None, description="the codec series shown (its newest versions)")
    codec_series: list[CodecSeriesOut] = Field(
        default_factory=list, description="every codec series this machine has for it, "
        "newest first; choose one with ?codecs=<series_key or set name>")


class SpeedSummary(BaseModel):
    median: float
    min: float | None
    max: float | None


class Relative(BaseModel):
    ratio: float | None
    compressed_bytes: float | None
    compress_mbps: float | None
    decompress_mbps: float | None


class TradeoffPoint(BaseModel):
    configuration_id: int
    setting: int
    algorithm: int
    codec: str
    level: int
    label: str
    ratio: float | None
    compressed_bytes: int | None
    compress_mbps: SpeedSummary | None
    decompress_mbps: SpeedSummary | None
    pareto_compress: bool
    pareto_decompress: bool
    relative: Relative | None
    # Median over the counted runs (`basketbench run --instructions`); null: none counted.
    compress_instructions_per_mb: float | None = None
    decompress_instructions_per_mb: float | None = None


class TradeoffOut(BaseModel):
    commit: str
    machine: MachineRef
    dataset: str
    reference: int | None
    points: list[TradeoffPoint]
    codecs: CodecSetOut | None = Field(default=None, description="the codec series shown")
    codec_series: list[CodecSeriesOut] = Field(
        default_factory=list, description="every codec series of this commit, machine and "
        "dataset; choose one with ?codecs=")


class CompareSide(BaseModel):
    """One side of a comparison; every row's base (or head) value was measured so: its
    codecs, its machine version (machine.version) and its harness builds."""

    commit: str
    machine: MachineRef
    codecs: CodecSetOut | None = None
    builds: list[BuildOut] = Field(default_factory=list, description="the builds of the "
                                   "harness that measured this side (usually one)")
    busy: bool | None = None
    """A run of this side was made on a busy machine (its document's load,
    measure/rzbench/noise.py): its speeds say little, its instruction counts stay exact;
    null: load not recorded."""


class EvidenceAb(BaseModel):
    """An interleaved A/B of the two builds on this machine (ab_effects): the median of the
    per-pair speed ratios head/base and its interval (confidence in CompareOut.ab)."""

    kind: Literal["ab"]
    ratio: float = Field(description="speed of head over base: median of the pairs' ratios")
    ci_low: float
    ci_high: float
    pairs: int = Field(description="undisturbed pairs behind the ratio")
    disturbed_pairs: int = Field(description="pairs dropped as disturbed by interference")


class EvidenceCounts(BaseModel):
    """Instructions per MB of both sides (valgrind): exact for the same code on the same
    corpus, so a count change beyond the threshold is a change of the code."""

    kind: Literal["counts"]
    base_instructions_per_mb: float
    head_instructions_per_mb: float
    instructions_delta_pct: float | None


class EvidenceNone(BaseModel):
    """Two runs measured at different times and nothing else: no verdict (the reason is
    CompareRule.speed_without_evidence)."""

    kind: Literal["none"]


CompareEvidence = Annotated[EvidenceAb | EvidenceCounts | EvidenceNone,
                            Field(discriminator="kind")]


class CompareRow(BaseModel):
    dataset: str
    configuration: ConfigurationOut
    metric: str
    base: float | None
    head: float | None
    delta_pct: float | None
    significant: bool = Field(description="a change: sizes exact, counts beyond the count "
                              "threshold, speeds only by their evidence (never for none)")
    regression: bool
    base_bytes: int | None = Field(None, description="merged size rows: exact compressed "
                                   "bytes of the base (None when a mean of runs is not whole)")
    head_bytes: int | None = Field(None, description="merged size rows: exact bytes of the head")
    delta_bytes: int | None = Field(None, description="merged size rows: head - base bytes")
    base_ratio: float | None = Field(None, description="merged size rows: the base's ratio")
    head_ratio: float | None = Field(None, description="merged size rows: the head's ratio")
    evidence: CompareEvidence | None = Field(
        None, description="speed rows: what backs the verdict (ab, counts) or that nothing "
        "does (none: no verdict); null for size and count rows")


class CompareCounts(BaseModel):
    regressions: int = Field(description="rows that are a significant regression")
    improvements: int = Field(description="rows that are a significant improvement")
    rows: int = Field(description="every row of the selection, on any page")


class EvidenceTally(BaseModel):
    ab: int = Field(description="speed rows judged by an interleaved A/B")
    counts: int = Field(description="speed rows judged by instruction counts")
    none: int = Field(description="speed rows without evidence: no verdict")


class CompareRule(BaseModel):
    """The rule that decided which rows are changes, as applied to this comparison."""

    speed_test: str
    multiple_testing: str
    speed_without_evidence: str = Field(description="why a speed row without A/B or counts "
                                        "evidence gets no verdict")
    min_effect_pct: float = Field(description="an A/B effect below this is not a change")
    min_effect_patterns: dict[str, float] = Field(
        default_factory=dict, description="per-series minimum effects (fnmatch patterns of "
        "tag/dataset/setting/metric), first match wins")
    count_threshold_pct: float = Field(description="instruction counts that moved by more "
                                       "than this are a change")
    sizes: str
    evidence: EvidenceTally = Field(description="speed rows of the selection by evidence")
    note: str | None = Field(None, description="set when no speed row can get a verdict, "
                             "with the reason")


class CompareAb(BaseModel):
    """The interleaved A/B whose effects back the rows of kind ab: when and how it was
    measured, and how disturbed it was (interference measured from the run itself)."""

    ab_run_id: int
    measured_at: str | None
    confidence: float = Field(description="of the rows' intervals, e.g. 0.95")
    interval: str | None = Field(None, description="how the interval was computed")
    disturbed_fraction: float | None = Field(
        None, description="fraction of the run's pairs dropped or flagged as disturbed")
    disturbed_rule: str | None = None
    loadavg_start: list[float] | None = None
    loadavg_end: list[float] | None = None
    reference_kind: str
    origin: str = Field(description="pipeline (measured with the commit) or compare "
                        "(asked for with POST /ab-requests)")
    swapped: bool = Field(description="the A/B measured base as its side B; the rows give "
                          "head over base (inverted)")


class CompareOut(BaseModel):
    total: int = Field(0, description="rows of the selection before paging")
    offset: int = 0
    counts: CompareCounts | None = None
    rule: CompareRule | None = None
    base: CompareSide
    head: CompareSide
    rows: list[CompareRow]
    mode: Literal["commits", "machines"]
    codec_series: list[CodecSeriesOut] = Field(
        default_factory=list, description="the codec series both sides were measured in "
        "(versions: head's, first_libraries: base's); empty: nothing in common, and base "
        "and head each show their own newest series")
    ab: CompareAb | None = Field(None, description="the interleaved A/B of the two commits "
                                 "on this machine behind the rows of evidence ab; null: none")
