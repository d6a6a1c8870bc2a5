"""What a comparison asks (GET /compare's query parameters, parsed by the route): the two
sides, what to compare, and how the rows are shown."""

from __future__ import annotations

from dataclasses import dataclass

from basketbench.analysis.compare.view import Order
from basketbench.core.errors import BadRequest
from basketbench.models.result import METRICS


@dataclass(frozen=True, slots=True)
class CompareRequest:
    """Two commits on one machine (``base_commit``, ``head_commit``, ``machine``) or two
    machines at one commit (``base_machine``, ``head_machine``, ``commit``).

    ``dataset``, ``metric``, ``setting`` and ``only_significant`` select rows; ``codecs``
    names the codec series of both sides (default: the newest both have); ``merged``,
    ``order``, ``limit`` and ``offset`` shape what is shown (view.py)."""

    base_commit: str | None = None
    head_commit: str | None = None
    machine: str | None = None
    base_machine: str | None = None
    head_machine: str | None = None
    commit: str | None = None
    dataset: str | None = None
    metric: str | None = None
    only_significant: bool = False
    codecs: str | None = None
    merged: bool = False
    order: Order | None = None
    setting: int | None = None
    limit: int | None = None
    offset: int = 0

    def metrics(self) -> list[str]:
        """The metrics compared: the one asked for, else every metric."""
        if self.metric is not None and self.metric not in METRICS:
            raise BadRequest(f"unknown metric {self.metric!r}", list(METRICS))
        return [self.metric] if self.metric else list(METRICS)
