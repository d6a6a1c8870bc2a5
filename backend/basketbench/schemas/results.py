"""Stored results and ingest answers."""

from __future__ import annotations

from pydantic import BaseModel

from basketbench.schemas.common import Page


class SpeedStats(BaseModel):
    median: float
    min: float | None
    max: float | None
    mean: float | None
    stddev: float | None
    cv: float | None
    n: int | None
    samples: list[float] | None


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


class ResultPage(Page[ResultOut]):
    pass


class IngestOut(BaseModel):
    document_id: int
    results: int
    duplicate: bool
    commit: str
    machine_id: int
    run_id: int | None = None
