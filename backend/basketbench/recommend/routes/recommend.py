"""Rank measured settings under a cost model: the same engine as `basketbench advise`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query
from sqlalchemy import select

from basketbench.catalog.lookup import get_commit, get_dataset
from basketbench.core.errors import Invalid, NotFound
from basketbench.measure.advise.branch_sizes import aggregate
from basketbench.measure.advise.groups import GroupSizes, recommend_groups
from basketbench.measure.advise.ranking import Candidate, CostModel, recommend
from basketbench.measure.advise.stability import recommend_stably
from basketbench.models import Dataset
from basketbench.recommend import branch_sizes
from basketbench.recommend.history import winners_over_history
from basketbench.recommend.schemas import (
    BranchSizesOut,
    BranchSizesStored,
    BranchSizesUpload,
    CostModelQuery,
    GroupsRecommendationOut,
    RecommendationOut,
    RecommendGroupsIn,
    RecommendHistoryOut,
    RecommendIn,
    SpeedEvidenceOut,
)
from basketbench.recommend.speed_evidence import speed_evidence
from basketbench.web.deps import MachineToken, ReadAccess, SessionDep

router = APIRouter(tags=["recommend"], dependencies=[ReadAccess])


@router.post("/recommend", response_model=RecommendationOut)
def post_recommend(body: RecommendIn) -> Any:
    """Ranking, Pareto set, margin and sensitivity of the given measured settings."""
    model = CostModel(**body.model.model_dump())
    fields = ("setting", "preconditioner", "raw_bytes", "compressed_bytes", "compress_mb_s",
              "decompress_mb_s")
    candidates = [Candidate(**c.model_dump(include=set(fields))) for c in body.candidates]
    samples: dict[tuple[int, str], tuple[Sequence[float], Sequence[float]]] = {
        (c.setting, c.preconditioner): (c.compress_samples, c.decompress_samples)
        for c in body.candidates if c.compress_samples and c.decompress_samples}
    if len(samples) == len(candidates):
        return recommend_stably(candidates, samples, model)
    return recommend(candidates, model).as_dict()


@router.get("/recommend/speeds", response_model=SpeedEvidenceOut)
def get_recommend_speeds(session: SessionDep, machine: str, dataset: str, commit: str) -> Any:
    """The speeds to rank a commit's settings with, and their evidence: an interleaved A/B
    against a reference (ab), the median of the commit's runs (history) or the one run."""
    return speed_evidence(session, machine, dataset, commit)


@router.post("/recommend/groups", response_model=GroupsRecommendationOut)
def post_recommend_groups(body: RecommendGroupsIn) -> Any:
    """Each branch's or type class's own recommendation (its exact sizes, the file's speeds),
    and what those per-group settings save against the file's single best setting."""
    speeds: dict[tuple[int, str], tuple[float, float]] = {}
    for i, s in enumerate(body.speeds):
        if (s.setting, s.preconditioner) in speeds:
            raise Invalid(f"speeds[{i}]: setting {s.setting} with preconditioner "
                          f"{s.preconditioner!r} given twice")
        speeds[(s.setting, s.preconditioner)] = (s.compress_mb_s, s.decompress_mb_s)
    groups = [
        GroupSizes(g.key, g.type_class, g.raw_bytes, g.share,
                   {(z.setting, z.preconditioner): z.compressed_bytes for z in g.sizes})
        for g in body.groups
    ]
    return recommend_groups(groups, speeds, CostModel(**body.model.model_dump()))


@router.get("/branch-sizes", response_model=BranchSizesOut)
def get_branch_sizes(
    session: SessionDep, commit: str, dataset: str, codecs: str = "host",
    group_by: Literal["branch", "type_class", "file"] = "branch",
    allow_empty: Annotated[bool, Query(description="none stored: 200 with no groups, not 404")]
    = False,
) -> Any:
    """Exact compressed bytes summed per branch, type class or file, with byte shares."""
    c = get_commit(session, commit)
    ds = get_dataset(session, dataset)
    rows = branch_sizes.load(session, commit_id=c.id, dataset_id=ds.id, codecs=codecs)
    if not rows and not allow_empty:
        raise NotFound(f"no branch sizes for dataset {dataset!r} on commit {commit!r} "
                       f"(codecs {codecs!r})")
    groups = [g.as_dict() for g in aggregate(rows, group_by)]
    return {"commit": c.sha, "dataset": ds.name, "codecs": codecs, "group_by": group_by,
            "groups": groups}


@router.get("/recommend/history", response_model=RecommendHistoryOut)
def get_recommend_history(
    session: SessionDep, machine: str, dataset: str,
    model: Annotated[CostModelQuery, Query()],
    limit: Annotated[int, Query(ge=1, le=5000)] = 500,
) -> Any:
    """The winning setting on each of the newest `limit` commits, and where it changed."""
    return winners_over_history(session, machine, dataset, CostModel(**model.model_dump()), limit)


upload_router = APIRouter(tags=["recommend"])


@upload_router.post("/branch-sizes", response_model=BranchSizesStored, status_code=201)
def post_branch_sizes(session: SessionDep, _token: MachineToken, body: BranchSizesUpload) -> Any:
    """Store `rzbench sizes` branches of a dataset on a commit (replaces an earlier upload)."""
    c = get_commit(session, body.commit)
    ds = session.scalar(select(Dataset).where(Dataset.name == body.dataset))
    if ds is None:
        ds = Dataset(name=body.dataset)
        session.add(ds)
        session.flush()
    n = branch_sizes.store(session, commit_id=c.id, dataset_id=ds.id, codecs=body.codecs,
                           branches=[b.model_dump() for b in body.branches])
    session.commit()
    return {"commit": c.sha, "dataset": ds.name, "codecs": body.codecs, "rows": n}
