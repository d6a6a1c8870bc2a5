"""The codec arena's document, `basketbench-arena-v1`: what `basketbench arena FILE.root --json`
writes and POST /api/v1/arena-runs stores (the upload contract, so it is checked strictly:
unknown keys, wrong types and numbers that contradict each other are refused).

One document answers, for one ROOT file on one machine, "what would switching ROOT's X to Y
do?": each candidate codec (at one native level, inside ROOT's 9-byte block framing) against
the ROOT setting it would replace (`reference_setting`, e.g. 101 or 505), over the file's
own baskets or pages. Sizes are exact; speeds are interleaved A/B ratios (candidate over
ROOT, per pair, with an interval: > 1 means the candidate is faster); instruction counts are
per MB of uncompressed data. `shapes` repeats the comparison per data shape (the same
entries with a `shape` key), `level_mapping` lays out ZSTD's and LZ4's native levels
against ROOT's setting of that algorithm (what 505 would cost and save at zstd 3..19 instead
of 10).

Here, not in a domain, so that both the measurement library and the backend import it
(import-linter: `basketbench.measure` imports no web or database code).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

ARENA_SCHEMA = "basketbench-arena-v1"
FAMILIES = ("zlib", "zstd", "lz4", "lzma")
# ROOT's algorithm number per family (setting = algorithm * 100 + level).
FAMILY_ALGORITHM = {"zlib": 1, "lzma": 2, "lz4": 4, "zstd": 5}
# Bounds: real documents hold a few hundred results and a few thousand shape rows.
MAX_RESULTS = 20_000
MAX_CANDIDATES = 500
# sizes are exact, but the document's percentages are rounded by whoever wrote them
SIZE_CHANGE_TOLERANCE_PCT = 0.01

Name = Annotated[str, Field(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9][A-Za-z0-9._+-]*$")]
Text = Annotated[str, Field(max_length=1000)]
Sha256 = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]
Bytes = Annotated[int, Field(ge=0, le=2**62)]
Count = Annotated[int, Field(ge=0, le=10**9)]
PerMb = Annotated[float, Field(ge=0, le=1e15)]
Family = Literal["zlib", "zstd", "lz4", "lzma"]
LoadAverages = Annotated[list[Annotated[float, Field(ge=0)] | None],
                         Field(min_length=3, max_length=3)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, strict=True)


class ArenaMachine(_Strict):
    hostname: Annotated[str, Field(min_length=1, max_length=255)]
    cpu_model: Annotated[str, Field(max_length=300)] | None = None
    cores: Annotated[int, Field(ge=1, le=100_000)] | None = None
    hardware_tag: Annotated[str, Field(max_length=100)] | None = None


class ArenaLoad(_Strict):
    """Load averages (1, 5, 15 min; null where the system gives none) when the measurement
    started and ended: context shown with the numbers, never a verdict (the A/B ratios
    carry their own disturbance counts)."""

    loadavg_start: LoadAverages
    loadavg_end: LoadAverages


class ArenaReference(_Strict):
    """ROOT's side: the layer measured as ROOT's current choice (a build, "host" or a
    release), its label and the codec library versions it reported."""

    layer: Annotated[str, Field(min_length=1, max_length=1000)]
    label: Annotated[str, Field(max_length=300)]
    codec_versions: dict[Annotated[str, Field(max_length=50)],
                         Annotated[str, Field(max_length=100)]] = Field(default_factory=dict,
                                                                        max_length=50)


class ArenaCandidate(_Strict):
    """Where a candidate's code came from: its library version, the source (a Debian source
    package, a PyPI sdist, the host's shared library) and that source's SHA-256 when it was
    downloaded; whether ROOT's layer read back every buffer it wrote (null: nothing
    measured)."""

    candidate: Name
    family: Family
    version: Annotated[str, Field(min_length=1, max_length=100)]
    source: Text
    sha256: Sha256 | None = None
    what: Text | None = None
    root_readable: bool | None


class SpeedRatio(_Strict):
    """Candidate speed / ROOT speed over interleaved pairs: the median of the per-pair
    ratios and its interval (all null when no undisturbed pair is left)."""

    median: Annotated[float, Field(gt=0)] | None
    ci_low: Annotated[float, Field(gt=0)] | None
    ci_high: Annotated[float, Field(gt=0)] | None
    pairs: Count
    disturbed_pairs: Count

    @model_validator(mode="after")
    def _consistent(self) -> SpeedRatio:
        values = (self.median, self.ci_low, self.ci_high)
        if any(v is None for v in values):
            if not all(v is None for v in values):
                raise ValueError("median, ci_low and ci_high are all numbers or all null")
            return self
        assert self.median is not None and self.ci_low is not None and self.ci_high is not None
        if not self.ci_low <= self.median <= self.ci_high:
            raise ValueError(f"the interval [{self.ci_low}, {self.ci_high}] does not hold the "
                             f"median {self.median}")
        if self.pairs == 0:
            raise ValueError("a median needs at least one pair")
        return self


def _check_sizes(compressed: int | None, reference: int | None, change: float | None,
                 reference_setting: int, families: tuple[int, ...] = (1, 2, 4, 5)) -> None:
    algorithm, level = divmod(reference_setting, 100)
    if algorithm not in families or not 1 <= level <= 9:
        raise ValueError(f"reference_setting {reference_setting} is not a ROOT setting of "
                         "zlib, lzma, lz4 or zstd (such as 101 or 505)")
    if compressed is None or not reference:
        if change is not None:
            raise ValueError("size_change_pct needs both sizes (and a reference above 0)")
        return
    if change is None:
        raise ValueError("both sizes are known: size_change_pct is "
                         "100 * (compressed - reference) / reference")
    exact = 100.0 * (compressed - reference) / reference
    if abs(exact - change) > SIZE_CHANGE_TOLERANCE_PCT:
        raise ValueError(f"size_change_pct {change} is not "
                         f"100 * (compressed - reference) / reference = {exact:.4f}")


class ArenaResult(_Strict):
    """One candidate at one native level against one ROOT setting. Sizes are null only for
    a failed result (`error` says why)."""

    candidate: Name
    family: Family
    level: Annotated[int, Field(ge=-(2**17), le=100)]
    reference_setting: Annotated[int, Field(ge=100, le=599)]
    compressed_bytes: Bytes | None
    reference_bytes: Bytes | None
    size_change_pct: Annotated[float, Field(ge=-100, le=1e9)] | None
    identical_to_reference: bool | None = None
    roundtrip_ok: bool
    root_readable: bool
    compress_ratio: SpeedRatio | None
    decompress_ratio: SpeedRatio | None
    compress_instructions: PerMb | None = None
    decompress_instructions: PerMb | None = None
    reference_compress_instructions: PerMb | None = None
    reference_decompress_instructions: PerMb | None = None
    error: Annotated[str, Field(max_length=4000)] | None = None

    @model_validator(mode="after")
    def _arithmetic(self) -> ArenaResult:
        _check_sizes(self.compressed_bytes, self.reference_bytes, self.size_change_pct,
                     self.reference_setting)
        if self.error is None and (self.compressed_bytes is None
                                   or self.reference_bytes is None):
            raise ValueError("a result without an error has both sizes")
        if not self.roundtrip_ok and any(r is not None and r.median is not None
                                         for r in (self.compress_ratio, self.decompress_ratio)):
            # a failed round trip is a failed result, never a number (DESIGN: measuring well)
            raise ValueError("a result whose round trip failed carries no speed ratio")
        return self


class ArenaShapeResult(ArenaResult):
    """The same comparison over the buffers of one data shape (floats, offsets, ...)."""

    shape: Annotated[str, Field(min_length=1, max_length=100)]


class LevelMappingEntry(_Strict):
    """One native level of the family's own library against ROOT's setting of that family
    (zstd 3..19 against 505 = zstd 10; LZ4 / LZ4HC levels against 404): `root_setting` is
    the ROOT setting that reaches this native level, null when none does."""

    native_level: Annotated[int, Field(ge=-(2**17), le=100)]
    root_setting: Annotated[int, Field(ge=100, le=599)] | None
    reference_setting: Annotated[int, Field(ge=100, le=599)]
    compressed_bytes: Bytes | None
    reference_bytes: Bytes | None
    size_change_pct: Annotated[float, Field(ge=-100, le=1e9)] | None
    identical_to_reference: bool | None = None
    compress_ratio: SpeedRatio | None
    decompress_ratio: SpeedRatio | None

    @model_validator(mode="after")
    def _arithmetic(self) -> LevelMappingEntry:
        _check_sizes(self.compressed_bytes, self.reference_bytes, self.size_change_pct,
                     self.reference_setting)
        return self


class LevelMapping(_Strict):
    zstd: list[LevelMappingEntry] = Field(default_factory=list, max_length=1000)
    lz4: list[LevelMappingEntry] = Field(default_factory=list, max_length=1000)

    @model_validator(mode="after")
    def _families(self) -> LevelMapping:
        for key, rows in (("zstd", self.zstd), ("lz4", self.lz4)):
            seen = set()
            for i, row in enumerate(rows):
                for setting in (row.reference_setting, row.root_setting):
                    if setting is not None and setting // 100 != FAMILY_ALGORITHM[key]:
                        raise ValueError(f"{key}/{i}: the {key} mapping holds {key} "
                                         f"settings, not {setting}")
                if (row.native_level, row.reference_setting) in seen:
                    raise ValueError(f"{key}/{i}: level {row.native_level} appears twice")
                seen.add((row.native_level, row.reference_setting))
        return self


class ArenaDocument(_Strict):
    schema_: Literal["basketbench-arena-v1"] = Field(alias="schema")
    file: Annotated[str, Field(min_length=1, max_length=300, pattern=r"^[^/\\\x00]+$")]
    file_sha256: Sha256
    format: Literal["ttree", "rntuple"]
    machine: ArenaMachine
    load: ArenaLoad
    reference: ArenaReference | None = None
    # how it was measured, as the tool states it (pairs, target, the ratio's definition)
    method: dict[Annotated[str, Field(max_length=100)], Any] = Field(default_factory=dict,
                                                                     max_length=100)
    buffers: Count
    # of them, baskets ROOT kept inside their TBranch (measured like the others)
    embedded_buffers: Count | None = None
    uncompressed_bytes: Bytes
    shape_buffers: dict[Annotated[str, Field(max_length=100)], Count] = Field(
        default_factory=dict, max_length=1000)
    shape_bytes: dict[Annotated[str, Field(max_length=100)], Bytes] = Field(
        default_factory=dict, max_length=1000)
    candidates: list[ArenaCandidate] = Field(min_length=1, max_length=MAX_CANDIDATES)
    results: list[ArenaResult] = Field(min_length=1, max_length=MAX_RESULTS)
    shapes: list[ArenaShapeResult] = Field(default_factory=list, max_length=MAX_RESULTS)
    level_mapping: LevelMapping = Field(default_factory=LevelMapping)

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, strict=True,
                              populate_by_name=True)

    @model_validator(mode="after")
    def _coherent(self) -> ArenaDocument:
        named: dict[str, ArenaCandidate] = {}
        for i, c in enumerate(self.candidates):
            if c.candidate in named:
                raise ValueError(f"candidates/{i}: {c.candidate!r} is listed twice")
            named[c.candidate] = c
        rows: list[tuple[str, ArenaResult, tuple[Any, ...]]] = (
            [("results", r, ()) for r in self.results]
            + [("shapes", r, (r.shape,)) for r in self.shapes])
        seen: set[tuple[Any, ...]] = set()
        for where, r, extra in rows:
            described = named.get(r.candidate)
            if described is None:
                raise ValueError(f"{where}: candidate {r.candidate!r} is not in candidates")
            if described.family != r.family:
                raise ValueError(f"{where}: {r.candidate!r} is {described.family}, "
                                 f"not {r.family}")
            key = (where, r.candidate, r.level, r.reference_setting, *extra)
            if key in seen:
                raise ValueError(f"{where}: {r.candidate!r} level {r.level} against "
                                 f"{r.reference_setting}"
                                 + (f" on shape {extra[0]!r}" if extra else "")
                                 + " appears twice")
            seen.add(key)
        return self


def parse_arena(body: Any) -> ArenaDocument:
    """The document, or pydantic's ValidationError naming every problem with its place."""
    return ArenaDocument.model_validate(body)
