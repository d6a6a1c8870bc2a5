"""POST /ab-requests and its answers: an interleaved A/B of two commits, queued on a worker
of a tag, and (once the worker uploaded it) the A/B run that answers it."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

Ref = Field(min_length=4, max_length=64, pattern=r"^[0-9a-fA-F]+$",
            description="a commit's sha or unique prefix")


class AbRequestIn(BaseModel):
    """Measure ``head_commit`` (side B) against ``base_commit`` (side A) interleaved in one
    process on a worker: of ``machine``'s tag (the comparison's machine), or of ``tag``."""

    model_config = ConfigDict(extra="forbid")

    base_commit: str = Ref
    head_commit: str = Ref
    machine: str | None = Field(default=None, min_length=1, max_length=200,
                                description="a machine (name, name@version or id): a "
                                "worker of its tag runs the A/B")
    tag: str | None = Field(default=None, min_length=1, max_length=100,
                            pattern=r"^[A-Za-z0-9_.\-]+$")
    repository: str | None = Field(default=None, min_length=1, max_length=200)

    @model_validator(mode="after")
    def _one_place(self) -> AbRequestIn:
        if (self.machine is None) == (self.tag is None):
            raise ValueError("give machine or tag (one of them)")
        return self


class AbRequestOut(BaseModel):
    """A queued A/B and how far it got: ``commit`` (side B) measured against
    ``reference_commit`` (side A) by the run ``run_id`` (suite "ab:<reference_commit>"),
    answered by the A/B run it uploads (``ab_run_id``)."""

    run_id: int
    tag: str
    machine: str | None = Field(description="the machine asked for (null: any of the tag)")
    commit: str = Field(description="side B: the head of the comparison")
    reference_commit: str = Field(description="side A: the base of the comparison")
    reference_kind: Literal["commit", "parent", "previous"]
    origin: Literal["compare", "pipeline"]
    requested_by: str | None
    status: str
    stage: str | None
    progress: float
    created_at: datetime
    finished_at: datetime | None
    ab_run_id: int | None = Field(description="the A/B run the worker uploaded for this run")
    measured_on: str | None = Field(description="the machine that measured it")
    duplicate: bool = Field(False, description="POST: an A/B of this pair was already "
                            "queued or running on the tag; that one is answered")


class AbRequestPage(BaseModel):
    items: list[AbRequestOut]
