"""Changes found by detection, their evidence and their status workflow."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from basketbench.schemas.common import Page
from basketbench.schemas.refs import BuildOut, CodecSetOut, ConfigurationOut, MachineRef

ChangeStatus = Literal["open", "acknowledged", "fixed", "ignored"]
ChangeState = Literal["confirming", "confirmed", "rejected", "unconfirmed"]
# The listing's state filter: "pending" is a synonym of "confirming" (awaiting reruns).
ChangeStateFilter = Literal["confirming", "pending", "confirmed", "rejected", "unconfirmed"]
Direction = Literal["regression", "improvement"]


class CommitRef(BaseModel):
    sha: str
    url: str  # the commit on its repository's web page
    message: str | None
    author: str | None
    date: datetime | None
    order: int


class ChangeLink(BaseModel):
    change_id: int
    sha: str  # the linked change's commit


class ChangeOut(BaseModel):
    id: int
    repository: str
    commit: CommitRef
    parent: CommitRef | None
    machine: MachineRef
    dataset: str
    configuration: ConfigurationOut
    metric: str
    kind: Literal["exact", "speed", "drift"]
    test: str
    direction: Direction
    base_value: float | None
    head_value: float | None
    delta_pct: float
    ci_low_pct: float | None
    ci_high_pct: float | None
    p_value: float | None
    q_value: float | None
    min_effect_pct: float | None
    state: ChangeState
    state_reason: str | None = None  # why unconfirmed (or rejected without reruns)
    status: ChangeStatus
    status_by: str | None
    status_reason: str | None
    status_at: datetime | None
    bisection: dict[str, Any]
    created_at: datetime
    confirmed_at: datetime | None
    notified_at: datetime | None
    codecs: CodecSetOut | None = None  # the codec set the changed commit was measured with
    build: BuildOut | None = None  # how the harness that measured the changed commit was built
    # A change back to the level before an earlier change of the same series, both ways.
    reverts: ChangeLink | None = None
    reverted_by: ChangeLink | None = None
    # A speed change judged by the instruction counts of its two commits
    # (stats/counts.py): code when they moved, probably the machine when not;
    # null when the commits were not both counted, or not a speed change.
    attribution: Literal["code", "probably the machine", "busy machine: not tested"] | None = None


class ChangePage(Page[ChangeOut]):
    pass


class DeliveryOut(BaseModel):
    id: int
    channel: str  # webhook | github-status | github-pulls | github-comment
    target: str
    status: str  # pending (in the outbox, retried) | sent | failed
    attempts: int
    response_code: int | None
    error: str | None
    created_at: datetime
    next_attempt_at: datetime | None = None  # while pending
    sent_at: datetime | None = None
    attempt_log: list[dict[str, Any]] = Field(
        default_factory=list, description="every attempt: at, code, error, retry_in (s)")


class ChangeDetail(ChangeOut):
    evidence: dict[str, Any]
    confirmation: dict[str, Any]
    related: list[ChangeOut]  # the other changes of the same commit and machine
    deliveries: list[DeliveryOut]


class StatusIn(BaseModel):
    status: ChangeStatus
    reason: str | None = Field(default=None, max_length=2000)
    by: str | None = Field(default=None, max_length=200,
                           description="who decided (default: the token's name)")


class RangeCommit(BaseModel):
    sha: str = Field(min_length=40, max_length=64)
    parents: list[str] = []
    author: str | None = None
    author_email: str | None = None
    date: datetime | None = None
    message: str | None = None


class RangeIn(BaseModel):
    """Commits after the measured parent up to the changed commit, oldest first."""

    commits: list[RangeCommit] = Field(min_length=1, max_length=100_000)


class BisectionOut(BaseModel):
    change_id: int
    bisection: dict[str, Any]
    run_ids: list[int]


class ChangeSummaryLine(BaseModel):
    """The changes of one commit, machine and cause (a codec's metric in one direction)."""

    line: str = Field(description='e.g. "ZLIB compression speed -47.00 % ... -74.00 %, '
                      '36 series on 4 datasets, haswell-01"')
    commit: CommitRef
    machine: MachineRef
    codec: str
    metric: str
    direction: Direction
    changes: int = Field(description="series (changes) in this line")
    datasets: list[str]
    min_delta_pct: float
    max_delta_pct: float
    statuses: dict[str, int] = Field(description="changes per status")
    change_ids: list[int] = Field(description="the changes, for /changes?... rows or a bulk "
                                  "status")
    bisection: dict[str, Any] = Field(description="the bisection of the commit's group, if any")


class ChangeSummaryPage(BaseModel):
    items: list[ChangeSummaryLine]
    total: int = Field(description="lines of the filter, on any page")
    changes: int = Field(description="changes in those lines")
    limit: int
    offset: int


class BulkStatusIn(BaseModel):
    change_ids: list[int] = Field(min_length=1, max_length=100_000,
                                  description="the changes to set (e.g. a line's or a "
                                  "commit's change_ids); all or none are set")
    status: ChangeStatus
    reason: str | None = Field(default=None, max_length=2000,
                               description="required for fixed and ignored")
    by: str | None = Field(default=None, max_length=200,
                           description="who decided (default: the token's name)")


class BulkStatusOut(BaseModel):
    status: ChangeStatus
    updated: int
    change_ids: list[int]
