"""Rank measured settings under a cost model: the same engine as `basketbench advise`."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from basketbench.api.deps import ReadAccess
from basketbench.schemas.recommend import RecommendationOut, RecommendIn
from basketbench.services.recommend import Candidate, CostModel, recommend

router = APIRouter(tags=["recommend"], dependencies=[ReadAccess])


@router.post("/recommend", response_model=RecommendationOut)
def post_recommend(body: RecommendIn) -> Any:
    """Ranking, Pareto set, margin and sensitivity of the given measured settings."""
    model = CostModel(**body.model.model_dump())
    candidates = [Candidate(**c.model_dump()) for c in body.candidates]
    return recommend(candidates, model).as_dict()
