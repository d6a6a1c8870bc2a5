"""End-to-end ROOT I/O beside the codec alone (`basketbench run --io` results)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from basketbench.schemas.refs import MachineRef


class IoRead(BaseModel):
    threads: int
    cache: str = Field(description="TTreeCache / RNTuple cluster cache: on, off")
    page_cache: str = Field(description="warm, or cold (the file's pages dropped before each "
                            "sample)")
    read_mbps: float = Field(description="median, uncompressed 10^6 bytes per second")
    uncompressed_bytes: int
    codec_share: float | None = Field(
        description="the codec alone's decompression time of the same baskets / this read's "
        "time (TTree only; null without a codec-only row)")


class IoWrite(BaseModel):
    threads: int
    write_mbps: float
    uncompressed_bytes: int
    codec_share: float | None = Field(description="compression time alone / write time")


class IoSetting(BaseModel):
    setting: int
    label: str
    form: str = Field(description="ttree or rntuple")
    ratio: float | None
    codec_compress_mbps: float | None = Field(description="rzbench, same release and baskets")
    codec_decompress_mbps: float | None
    reads: list[IoRead]
    writes: list[IoWrite]


class IoBreakdownOut(BaseModel):
    commit: str
    machine: MachineRef
    data: str = Field(description="<file>/<tree>")
    settings: list[IoSetting]
    data_available: list[str] = Field(description="every <file>/<tree> with end-to-end results "
                                      "on this commit and machine")
