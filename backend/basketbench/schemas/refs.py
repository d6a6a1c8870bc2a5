"""Response shapes that several domains show: a configuration, a machine, a codec set,
a build, a worker tag. One home, so a change to them is one change.

Each domain's own shapes stay in its schemas module (which re-exports these)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from basketbench.schemas.common import OrmModel

Metric = Literal["ratio", "compressed_bytes", "compress_mbps", "decompress_mbps",
                 "compress_instructions_per_mb", "decompress_instructions_per_mb"]


class ConfigurationOut(OrmModel):
    id: int
    setting: int
    algorithm: int
    codec: str
    level: int
    preconditioner: str
    dictionary_size: int
    basket_size: int
    mode: str
    threads: int
    label: str


class MachineRef(BaseModel):
    id: int
    name: str
    tag: str
    version: int


class BuildOut(BaseModel):
    """How the measuring harness was built (history points, compare sides, change records;
    /results items carry the same fields flat in `provenance`)."""

    harness: str | None = Field(description="the harness and its version, e.g. rzbench 0.1.0")
    harness_backend: str | None = Field(description="rootcompat | root")
    harness_hash: str | None = Field(description="sha256 of the harness sources (worker runs)")
    build_profile: str | None = Field(description="build profile of ROOT's compression layer")
    build_profile_version: str | None
    root_commit: str | None = Field(description="the ROOT commit the measured compression "
                                    "layer was built from; null for rootcompat")


class CodecSetOut(BaseModel):
    """The codec library versions a result was measured with (models/codecs.py)."""

    id: int
    set: str = Field(description="host | builtin | a named set such as root-6.40.00")
    root_version: str | None
    libraries: dict[str, str] = Field(description="zlib, lzma, lz4, zstd, xxhash versions")
    series_key: str = Field(description="results with the same key form one history")


class MachineCodecSetOut(CodecSetOut):
    documents: int
    results: int
    latest_order: int = Field(description="git order of the newest commit measured with it")


class WorkerTagOut(BaseModel):
    """A hardware tag and whether a worker serves it (catalog/worker_tags.py)."""

    tag: str
    operator: bool = Field(description="declared by an operator (PUT /worker-tags/{tag})")
    live: bool = Field(description="a worker was seen within BASKETBENCH_WORKER_LIVE_SECONDS")
    last_seen_at: datetime | None
    gets_runs: bool = Field(description="new commits get runs for this tag")
    queued: int
    expired_runs: int = Field(description="queued runs expired for want of a worker")
    last_expired_at: datetime | None
    note: str | None = Field(description="e.g. 'tag arm64: no worker for 3 h, 12 runs "
                             "expired, 0 queued'; null when all is well")
