"""A compiled (pydantic-core) screen for harness result documents.

Only a fast path: it mirrors harness-result-v1.schema.json and is at least as strict,
so a document it accepts is valid against the schema. A document it rejects goes to the
full JSON Schema validator, which decides and lists every reason (tests/backend check
that the two agree). jsonschema needs ~60 us per result; this a few. TypedDicts, not
models: nothing is instantiated, and NotRequired (absent allowed, null not) matches the
schema's optional-but-typed properties exactly. The same TypedDicts type the parts of a
checked document (batch.DocumentBatch).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired

from pydantic import (
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    TypeAdapter,
    with_config,
)
from typing_extensions import TypedDict

from basketbench.measure.document.limits import MAX_RESULTS

NonNegInt = Annotated[StrictInt, Field(ge=0)]
NonNegFloat = Annotated[float, Field(ge=0, allow_inf_nan=False, strict=True)]
Number = Annotated[float, Field(allow_inf_nan=False, strict=True)]
OPEN = ConfigDict(strict=True, extra="ignore")  # nested objects allow unknown properties


@with_config(OPEN)
class Tool(TypedDict):
    name: StrictStr
    version: StrictStr


@with_config(OPEN)
class Context(TypedDict):
    repository: NotRequired[StrictStr]
    commit: NotRequired[StrictStr]
    machine: NotRequired[StrictStr]
    tag: NotRequired[StrictStr]
    run_id: NotRequired[StrictInt]
    suite: NotRequired[StrictStr]


@with_config(OPEN)
class Isa(TypedDict):
    sse4_2: NotRequired[StrictBool]
    avx2: NotRequired[StrictBool]
    avx512f: NotRequired[StrictBool]
    pclmul: NotRequired[StrictBool]
    crc32: NotRequired[StrictBool]
    neon: NotRequired[StrictBool]


@with_config(OPEN)
class Machine(TypedDict):
    hostname: StrictStr
    arch: StrictStr
    cpu_model: StrictStr
    vendor: NotRequired[StrictStr]
    family: NotRequired[StrictInt | None]
    model: NotRequired[StrictInt | None]
    isa: Isa
    caches: NotRequired[dict[str, StrictInt]]
    cores_logical: Annotated[StrictInt, Field(ge=1)]
    cores_physical: NotRequired[StrictInt | None]
    kernel: StrictStr
    governor: NotRequired[StrictStr | None]
    boost: NotRequired[StrictBool | None]
    compiler: StrictStr
    compiler_flags: NotRequired[StrictStr]
    libraries: dict[str, StrictStr]
    fingerprint_hash: Annotated[StrictStr, Field(pattern=r"^[0-9a-f]{16,64}$")]


@with_config(OPEN)
class Parameters(TypedDict):
    min_samples: Annotated[StrictInt, Field(ge=1)]
    target_pass_ms: NonNegFloat
    interleaved: NotRequired[StrictBool]


@with_config(OPEN)
class Dataset(TypedDict):
    name: Annotated[StrictStr, Field(min_length=1)]
    source: StrictStr
    bytes: NonNegInt
    baskets: NonNegInt
    checksum: StrictStr
    kind: NotRequired[Literal["ttree", "rntuple", "mixed"]]
    pages: NotRequired[NonNegInt]
    page_size: NotRequired[Annotated[StrictInt, Field(ge=1)] | None]


@with_config(OPEN)
class Stats(TypedDict):
    median: NonNegFloat
    min: NonNegFloat
    max: NotRequired[NonNegFloat]
    mean: NonNegFloat
    stddev: NonNegFloat
    cv: NonNegFloat
    samples: Annotated[list[NonNegFloat], Field(min_length=1, fail_fast=True)]


@with_config(OPEN)
class Io(TypedDict):
    """How an io-write / io-read copy was written or read (every property optional)."""

    form: NotRequired[Literal["ttree", "rntuple"]]
    op: NotRequired[Literal["write", "read"]]
    threads: NotRequired[Annotated[StrictInt, Field(ge=1)]]
    cache: NotRequired[Literal["on", "off"]]
    page_cache: NotRequired[Literal["warm", "cold"]]
    events: NotRequired[NonNegInt]
    events_per_s: NotRequired[Stats | None]
    seconds: NotRequired[list[NonNegFloat]]
    checksum: NotRequired[StrictStr | None]
    original_checksum: NotRequired[StrictStr | None]
    columns_compared: NotRequired[NonNegInt]


@with_config(OPEN)
class Result(TypedDict):
    dataset: StrictStr
    codec: Literal["zlib", "lzma", "cs", "lz4", "zstd", "none", "memcpy"]
    setting: Annotated[StrictInt, Field(ge=0, le=599)]
    algorithm: Annotated[StrictInt, Field(ge=0, le=5)]
    level: Annotated[StrictInt, Field(ge=0, le=9)]
    preconditioner: Literal["none", "shuffle", "bitshuffle"]
    dictionary_size: NonNegInt
    dictionary_train_ms: NotRequired[Number | None]
    basket_size: NonNegInt
    mode: Literal["basket", "rac-sequential", "rac-random", "io-write", "io-read"]
    threads: Annotated[StrictInt, Field(ge=1)]
    uncompressed_bytes: NonNegInt
    compressed_bytes: NonNegInt
    ratio: NonNegFloat
    compress_mbps: Stats | None
    decompress_mbps: Stats | None
    roundtrip_ok: StrictBool
    error: StrictStr | None
    # Optional but bounded by the schema: the screen checks them too, so that a document it
    # passes never carries a value the database would refuse (a 500, not a 422).
    compress_instructions: NotRequired[NonNegInt | None]
    compress_instructions_per_mb: NotRequired[NonNegFloat | None]
    compress_estimated_cycles: NotRequired[NonNegInt | None]
    compress_estimated_cycles_per_mb: NotRequired[NonNegFloat | None]
    decompress_instructions: NotRequired[NonNegInt | None]
    decompress_instructions_per_mb: NotRequired[NonNegFloat | None]
    decompress_estimated_cycles: NotRequired[NonNegInt | None]
    decompress_estimated_cycles_per_mb: NotRequired[NonNegFloat | None]
    io: NotRequired[Io]


@with_config(OPEN)
class Codecs(TypedDict):
    set: StrictStr
    root_version: NotRequired[StrictStr | None]
    libraries: dict[str, StrictStr]


@with_config(OPEN)
class Build(TypedDict):
    profile: NotRequired[Annotated[StrictStr, Field(max_length=100)] | None]
    profile_version: NotRequired[Annotated[StrictStr, Field(max_length=50)] | StrictInt | None]
    harness_hash: NotRequired[Annotated[StrictStr, Field(pattern=r"^[0-9a-f]{16,64}$")] | None]


@with_config(ConfigDict(strict=True, extra="forbid"))
class Document(TypedDict):
    schema_version: Literal["1"]
    tool: Tool
    created_at: StrictStr
    backend: Literal["rootcompat", "root"]
    root_commit: NotRequired[StrictStr | None]
    context: NotRequired[Context]
    machine: Machine
    codecs: NotRequired[Codecs]
    build: NotRequired[Build]
    parameters: Parameters
    # fail_fast: a screen only needs yes or no; collecting every error of 50 000 broken
    # results took ~350 MB
    datasets: Annotated[list[Dataset], Field(fail_fast=True)]
    results: Annotated[list[Result], Field(max_length=MAX_RESULTS, fail_fast=True)]


_ADAPTER = TypeAdapter(Document)
_RESULT = TypeAdapter(Result)


def passes_screen(doc: Any) -> bool:
    """True only if ``doc`` is certainly valid against the schema."""
    try:
        _ADAPTER.validate_python(doc)
    except Exception:
        return False
    return True


def result_passes_screen(result: Any) -> bool:
    """One result's shape only (counting invalid results without listing them)."""
    try:
        _RESULT.validate_python(result)
    except Exception:
        return False
    return True
