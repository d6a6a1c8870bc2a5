"""Reading A/B comparisons: runs with their effects, newest first."""

from __future__ import annotations

from collections import defaultdict

from sqlalchemy import ColumnElement, func, select
from sqlalchemy.orm import Session, aliased

from basketbench.ab.schemas import AbEffectOut, AbRunOut, AbRunPage
from basketbench.catalog.lookup import get_commit
from basketbench.core.errors import NotFound
from basketbench.models import AbEffect, AbRun, CodecSet, Commit, Configuration, Dataset, Machine


def list_ab_runs(session: Session, machine: str | None, commit: str | None,
                 reference: str | None, origin: str | None, run: int | None, limit: int,
                 offset: int) -> AbRunPage:
    conditions: list[ColumnElement[bool]] = []
    if machine is not None:
        ids = _machine_ids(session, machine)
        conditions.append(AbRun.machine_id.in_(ids))
    if commit is not None:
        conditions.append(AbRun.commit_id == get_commit(session, commit).id)
    if reference is not None:
        conditions.append(AbRun.reference_commit_id == get_commit(session, reference).id)
    if origin is not None:
        conditions.append(AbRun.origin == origin)
    if run is not None:
        conditions.append(AbRun.run_id == run)
    total = session.scalar(select(func.count()).select_from(AbRun).where(*conditions)) or 0
    reference_commit = aliased(Commit)
    rows = session.execute(
        select(AbRun, Machine.name, Commit.sha, reference_commit.sha, CodecSet.name)
        .join(Machine, Machine.id == AbRun.machine_id)
        .join(Commit, Commit.id == AbRun.commit_id)
        .outerjoin(reference_commit, reference_commit.id == AbRun.reference_commit_id)
        .outerjoin(CodecSet, CodecSet.id == AbRun.codec_set_id)
        .where(*conditions).order_by(AbRun.id.desc()).limit(limit).offset(offset)).all()
    effects = _effects(session, [r[0].id for r in rows])
    items = [
        AbRunOut(id=ab.id, run_id=ab.run_id, machine_id=ab.machine_id, machine=machine_name,
                 commit=sha, reference_kind=ab.reference_kind, reference_commit=ref_sha,
                 reference_label=ab.reference_label, origin=ab.origin, codec_set=codec_set,
                 disturbed_fraction=ab.disturbed_fraction, method=ab.method or {},
                 load=ab.load, error=ab.error, created_at=ab.created_at,
                 effects=effects.get(ab.id, []))
        for ab, machine_name, sha, ref_sha, codec_set in rows]
    return AbRunPage(items=items, total=total)


def _machine_ids(session: Session, machine: str) -> list[int]:
    """A machine id, or a name (every version of that machine)."""
    if machine.isdigit():
        found = session.get(Machine, int(machine))
        ids = [found.id] if found else []
    else:
        ids = list(session.scalars(select(Machine.id).where(Machine.name == machine)))
    if not ids:
        raise NotFound(f"unknown machine {machine!r}")
    return ids


def _effects(session: Session, ab_run_ids: list[int]) -> dict[int, list[AbEffectOut]]:
    if not ab_run_ids:
        return {}
    rows = session.execute(
        select(AbEffect, Dataset.name, Configuration)
        .join(Dataset, Dataset.id == AbEffect.dataset_id)
        .join(Configuration, Configuration.id == AbEffect.configuration_id)
        .where(AbEffect.ab_run_id.in_(ab_run_ids))
        .order_by(AbEffect.ab_run_id, Dataset.name, Configuration.setting, AbEffect.metric))
    out: dict[int, list[AbEffectOut]] = defaultdict(list)
    for effect, dataset, conf in rows:
        out[effect.ab_run_id].append(AbEffectOut(
            dataset=dataset, setting=conf.setting, configuration_id=conf.id,
            configuration=conf.label, metric=effect.metric,
            ratio=effect.ratio, ci_low=effect.ci_low, ci_high=effect.ci_high,
            pairs=effect.pairs, disturbed_pairs=effect.disturbed_pairs,
            samples=effect.samples))
    return out


