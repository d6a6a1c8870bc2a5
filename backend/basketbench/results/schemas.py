"""Answers of the results domain: stored results with their provenance, the latest numbers
per configuration, ingest answers."""

from __future__ import annotations

from pydantic import BaseModel, Field

from basketbench.schemas.common import Page
from basketbench.schemas.refs import (
    BuildOut,  # noqa: F401 (re-exported)
    ConfigurationOut,
    MachineRef,
)


class SpeedStats(BaseModel):
    median: float
    min: float | None
    max: float | None
    mean: float | None
    stddev: float | None
    cv: float | None
    n: int | None
    samples: list[float] | None


class MeasuredCodecs(BaseModel):
    """The codec library versions ROOT's compression functions called for this number (the
    document's `codecs.libraries`), not the libraries the harness executable links."""

    zlib: str | None = None
    lzma: str | None = None
    lz4: str | None = None
    zstd: str | None = None
    xxhash: str | None = None


class Provenance(BaseModel):
    """What measured a result. Flat, so CSV exports keep every field as a column."""

    codec_set: str | None = Field(description="host | builtin | a named set such as "
                                  "root-6.40.00; null: stored before codec sets existed")
    codec_set_id: int | None
    measured_codecs: MeasuredCodecs
    root_version: str | None = Field(description="the ROOT release measured (e.g. 6.40.00)")
    root_commit: str | None = Field(description="the ROOT commit the measured compression layer "
                                    "was built from (root backend); null for rootcompat")
    build_profile: str | None = Field(description="build profile of ROOT's compression layer")
    build_profile_version: str | None
    harness: str | None = Field(description="the harness and its version, e.g. rzbench 0.1.0")
    harness_hash: str | None = Field(description="sha256 of the harness sources it was built "
                                     "from (worker runs)")
    harness_backend: str | None = Field(description="rootcompat | root")
    machine_version: int = Field(description="the machine's fingerprint version")
    fingerprint_hash: str


class ResultOut(BaseModel):
    id: int
    run_id: int | None
    document_id: int
    commit: str
    machine: str
    machine_id: int
    tag: str
    dataset: str
    configuration_id: int
    setting: int
    codec: str
    preconditioner: str
    dictionary_size: int
    basket_size: int
    mode: str
    threads: int
    label: str
    uncompressed_bytes: int | None
    compressed_bytes: int | None
    ratio: float | None
    compress_mbps: SpeedStats | None
    decompress_mbps: SpeedStats | None
    roundtrip_ok: bool
    error: str | None
    provenance: Provenance


class ResultPage(Page[ResultOut]):
    pass


class IngestOut(BaseModel):
    document_id: int
    results: int
    duplicate: bool
    commit: str
    machine_id: int
    run_id: int | None = None


# Mean numbers of one configuration and dataset at a machine's newest measured commit (no
# docstring: it would become the OpenAPI schema's description).
class LatestOut(BaseModel):
    configuration: ConfigurationOut
    dataset: str
    machine: MachineRef
    commit: str
    ratio: float | None
    compressed_bytes: int | None
    compress_mbps: float | None
    decompress_mbps: float | None


class LatestPage(Page[LatestOut]):
    pass
