"""Recommendations over history: which setting wins on each commit, and where that changes.

A change of the winning setting is a change like any other: for one machine and dataset,
every commit's measured settings (basket mode, no preconditioner, no dictionary, 1 thread)
are ranked under the cost model, commit after commit in git order, within each codec set
(a new codec set is a new series, not a change); the commits where the winner differs from
the previous commit's are listed with both winners.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from basketbench.catalog.lookup import get_dataset, get_machine
from basketbench.measure.advise.ranking import Candidate, CostModel, recommend
from basketbench.models import Commit, Configuration, Result


def winners_over_history(session: Session, machine: str, dataset: str, model: CostModel,
                         limit: int = 500) -> dict[str, Any]:
    m = get_machine(session, machine)
    ds = get_dataset(session, dataset)
    newest = (select(Result.commit_id, func.max(Commit.order).label("o"))
              .join(Commit, Commit.id == Result.commit_id)
              .where(Result.machine_id == m.id, Result.dataset_id == ds.id)
              .group_by(Result.commit_id).order_by(func.max(Commit.order).desc()).limit(limit)
              .subquery())
    stmt = (select(Commit.order, Commit.sha, Result.codec_set_id, Configuration.setting,
                   func.avg(Result.uncompressed_bytes), func.avg(Result.compressed_bytes),
                   func.avg(Result.c_median), func.avg(Result.d_median))
            .join(newest, newest.c.commit_id == Result.commit_id)
            .join(Commit, Commit.id == Result.commit_id)
            .join(Configuration, Configuration.id == Result.configuration_id)
            .where(Result.machine_id == m.id, Result.dataset_id == ds.id,
                   Result.error.is_(None), Configuration.algorithm != 0,
                   Configuration.preconditioner == "none", Configuration.dictionary_size == 0,
                   Configuration.basket_size == 0, Configuration.mode == "basket",
                   Configuration.threads == 1)
            .group_by(Commit.order, Commit.sha, Result.codec_set_id, Configuration.setting)
            .order_by(Commit.order, Result.codec_set_id))
    per_commit: dict[tuple[int, str, int | None], list[Candidate]] = {}
    for order, sha, codec_set, setting, raw, comp, c, d in session.execute(stmt):
        if not (raw and comp and c and d):
            continue
        per_commit.setdefault((order, sha, codec_set), []).append(
            Candidate(int(setting), "none", round(raw), round(comp), float(c), float(d)))
    points: list[dict[str, Any]] = []
    changes: list[dict[str, Any]] = []
    last: dict[int | None, dict[str, Any]] = {}
    for (order, sha, codec_set), cands in per_commit.items():
        rec = recommend(cands, model)
        point = {"sha": sha, "order": order, "codec_set_id": codec_set,
                 "recommended": rec.best.candidate.label,
                 "margin": rec.as_dict()["margin"], "settings": len(cands)}
        before = last.get(codec_set)
        if before is not None and before["recommended"] != point["recommended"]:
            changes.append({"sha": sha, "order": order, "codec_set_id": codec_set,
                            "previous_sha": before["sha"], "from": before["recommended"],
                            "to": point["recommended"], "margin": point["margin"]})
        last[codec_set] = point
        points.append(point)
    return {"machine": m.name, "dataset": ds.name, "points": points, "changes": changes}
