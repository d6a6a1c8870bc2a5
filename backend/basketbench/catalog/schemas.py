"""Repositories, commits, machines, datasets, configurations."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from basketbench.schemas.common import OrmModel, Page
from basketbench.schemas.refs import ConfigurationOut, MachineRef  # noqa: F401 (re-exported)


class RepositoryOut(OrmModel):
    id: int
    name: str
    url: str | None = None
    commit_count: int = 0


class RepositoryPage(Page[RepositoryOut]):
    pass


class CommitOut(OrmModel):
    id: int
    repository: str
    sha: str
    parents: list[str]
    author: str | None
    author_email: str | None = None
    date: datetime | None
    message: str | None
    branch: str | None
    order: int


class CommitPage(Page[CommitOut]):
    pass


class MachineIn(BaseModel):
    name: str = Field(min_length=1, max_length=200)
    tag: str = Field(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9_.\-]+$")
    fingerprint: dict[str, Any]
    fingerprint_hash: str | None = Field(
        default=None, description="Ignored (kept for old clients): the identity is a sha256 "
        "over the canonical fingerprint without hostname and codec library versions.")


class MachineOut(OrmModel):
    id: int
    name: str
    tag: str
    version: int
    fingerprint: dict[str, Any]
    fingerprint_hash: str
    registered_at: datetime
    last_heartbeat: datetime | None
    active: bool
    result_count: int = 0
    latest_commit: str | None = None


class MachinePage(Page[MachineOut]):
    pass


class MachineRegistered(MachineOut):
    created: bool = Field(description="false when this name + fingerprint was already known")


class DatasetOut(OrmModel):
    id: int
    name: str
    source: str | None
    bytes: int | None
    baskets: int | None = None
    checksum: str | None
    kind: str | None = Field(
        default=None, description="ttree | rntuple | mixed (TTree baskets, RNTuple pages, both) | "
        "synthetic (a generator's data)")
    page_size: int | None = Field(
        default=None, description="maximum uncompressed page size of a re-paged RNTuple dataset")


class DatasetPage(Page[DatasetOut]):
    pass


class ConfigurationPage(Page[ConfigurationOut]):
    pass


class DatasetKind(BaseModel):
    kind: str
    page_size: int | None = None


class Dimensions(BaseModel):
    settings: list[int]
    algorithms: list[int]
    codecs: list[str]
    preconditioners: list[str]
    dictionary_sizes: list[int]
    basket_sizes: list[int]
    modes: list[str]
    threads: list[int]
    datasets: list[str]
    machines: list[MachineRef]
    tags: list[str]
    synthetic_datasets: list[str] = Field(
        default_factory=list,
        description="the datasets made by a generator (source synthetic:...), not real files")
    dataset_kinds: dict[str, DatasetKind] = Field(
        default_factory=dict,
        description="the datasets with a kind: ttree | rntuple | mixed | synthetic, "
                    "and an RNTuple dataset's page size (null as ROOT wrote it)")
