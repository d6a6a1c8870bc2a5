"""List queries and shapes of the catalog: repositories, commits, machines, datasets,
configurations (their filter, ConfigFilter, and dimensions), and the runs filter.

Listing results (GET /results, GET /configurations/latest) is results/listing.py."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import exists, func, or_, select
from sqlalchemy.orm import Session

from basketbench.catalog.lookup import get_commit, get_dataset, get_machine, get_repository
from basketbench.catalog.machines import machine_stats
from basketbench.catalog.schemas import CommitOut, DatasetKind, Dimensions, MachineOut
from basketbench.core.sqlutil import AnySelect
from basketbench.models import (
    Commit,
    Configuration,
    Dataset,
    Machine,
    Repository,
    Result,
    Run,
)
from basketbench.schemas.refs import ConfigurationOut, MachineRef


def commit_out(commit: Commit, repository: str) -> CommitOut:
    return CommitOut(
        id=commit.id, repository=repository, sha=commit.sha, parents=commit.parents or [],
        author=commit.author, author_email=commit.author_email, date=commit.date,
        message=commit.message, branch=commit.branch, order=commit.order)


def configuration_out(c: Configuration) -> ConfigurationOut:
    return ConfigurationOut(
        id=c.id, setting=c.setting, algorithm=c.algorithm, codec=c.codec, level=c.level,
        preconditioner=c.preconditioner, dictionary_size=c.dictionary_size,
        basket_size=c.basket_size, mode=c.mode, threads=c.threads, label=c.label)


def machine_ref(m: Machine) -> MachineRef:
    return MachineRef(id=m.id, name=m.name, tag=m.tag, version=m.version)


def machines_out(session: Session, machines: list[Machine]) -> list[MachineOut]:
    stats = machine_stats(session, [m.id for m in machines])
    out = []
    for m in machines:
        count, latest = stats.get(m.id, (0, None))
        out.append(MachineOut(
            id=m.id, name=m.name, tag=m.tag, version=m.version, fingerprint=m.fingerprint,
            fingerprint_hash=m.fingerprint_hash, registered_at=m.registered_at,
            last_heartbeat=m.last_heartbeat, active=m.active, result_count=count,
            latest_commit=latest))
    return out


def order_bounds(session: Session, commit_from: str | None, commit_to: str | None,
                 repository_id: int | None = None) -> tuple[int | None, int | None]:
    lo = get_commit(session, commit_from, repository_id).order if commit_from else None
    hi = get_commit(session, commit_to, repository_id).order if commit_to else None
    return lo, hi


def commits_query(session: Session, repository: str | None, branch: str | None,
                  commit_from: str | None, commit_to: str | None, q: str | None) -> AnySelect:
    stmt = select(Commit, Repository.name).join(Repository, Repository.id == Commit.repository_id)
    repo_id = None
    if repository:
        repo_id = get_repository(session, repository).id
        stmt = stmt.where(Commit.repository_id == repo_id)
    if branch:
        stmt = stmt.where(Commit.branch == branch)
    lo, hi = order_bounds(session, commit_from, commit_to, repo_id)
    if lo is not None:
        stmt = stmt.where(Commit.order >= lo)
    if hi is not None:
        stmt = stmt.where(Commit.order <= hi)
    if q:
        like = f"%{q.lower()}%"
        stmt = stmt.where(or_(func.lower(Commit.message).like(like),
                              func.lower(Commit.author).like(like), Commit.sha.startswith(q)))
    return stmt.order_by(Commit.order.desc(), Commit.date.desc(), Commit.id.desc())


@dataclass
class ConfigFilter:
    setting: list[int] | None = None
    algorithm: int | None = None
    level: int | None = None
    codec: str | None = None
    preconditioner: str | None = None
    dictionary_size: int | None = None
    basket_size: int | None = None
    mode: str | None = None
    threads: int | None = None

    def clauses(self) -> list[Any]:
        out: list[Any] = []
        if self.setting:
            out.append(Configuration.setting.in_(self.setting))
        for name in ("algorithm", "level", "codec", "preconditioner", "dictionary_size",
                     "basket_size", "mode", "threads"):
            value = getattr(self, name)
            if value is not None:
                out.append(getattr(Configuration, name) == value)
        return out


def configurations_query(session: Session, f: ConfigFilter, dataset: str | None,
                         machine: str | None, tag: str | None, commit_from: str | None,
                         commit_to: str | None) -> AnySelect:
    stmt = select(Configuration).where(*f.clauses())
    conds: list[Any] = []
    if dataset:
        conds.append(Result.dataset_id == get_dataset(session, dataset).id)
    if machine:
        conds.append(Result.machine_id == get_machine(session, machine).id)
    if tag:
        conds.append(Result.machine_id.in_(select(Machine.id).where(Machine.tag == tag)))
    lo, hi = order_bounds(session, commit_from, commit_to)
    if lo is not None or hi is not None:
        commit_ids = select(Commit.id)
        if lo is not None:
            commit_ids = commit_ids.where(Commit.order >= lo)
        if hi is not None:
            commit_ids = commit_ids.where(Commit.order <= hi)
        conds.append(Result.commit_id.in_(commit_ids))
    if conds:
        # EXISTS per configuration probes the results indexes instead of a DISTINCT scan.
        stmt = stmt.where(exists().where(Result.configuration_id == Configuration.id, *conds))
    return stmt.order_by(Configuration.setting, Configuration.preconditioner,
                         Configuration.dictionary_size, Configuration.basket_size,
                         Configuration.mode, Configuration.threads, Configuration.id)


def dimensions(session: Session) -> Dimensions:
    def distinct(col: Any) -> list[Any]:
        return list(session.scalars(select(col).distinct().order_by(col)))

    machines = list(session.scalars(select(Machine).order_by(Machine.name, Machine.version)))
    return Dimensions(
        settings=distinct(Configuration.setting), algorithms=distinct(Configuration.algorithm),
        codecs=distinct(Configuration.codec),
        preconditioners=distinct(Configuration.preconditioner),
        dictionary_sizes=distinct(Configuration.dictionary_size),
        basket_sizes=distinct(Configuration.basket_size), modes=distinct(Configuration.mode),
        threads=distinct(Configuration.threads), datasets=distinct(Dataset.name),
        machines=[machine_ref(m) for m in machines], tags=distinct(Machine.tag),
        synthetic_datasets=list(session.scalars(
            select(Dataset.name).where(Dataset.source.startswith("synthetic:"))
            .distinct().order_by(Dataset.name))),
        dataset_kinds={name: DatasetKind(kind=kind, page_size=page_size)
                       for name, kind, page_size in session.execute(
                           select(Dataset.name, Dataset.kind, Dataset.page_size)
                           .where(Dataset.kind.is_not(None)).order_by(Dataset.name))})


def runs_filter(stmt: AnySelect, session: Session, status: str | None, stage: str | None,
                tag: str | None, machine: str | None, commit: str | None) -> AnySelect:
    if status:
        stmt = stmt.where(Run.status.in_(status.split(",")))
    if stage:
        stmt = stmt.where(Run.stage == stage)
    if tag:
        stmt = stmt.where(Run.tag == tag)
    if machine:
        stmt = stmt.where(Run.machine_id == get_machine(session, machine).id)
    if commit:
        stmt = stmt.where(Run.commit_id == get_commit(session, commit).id)
    return stmt.order_by(Run.created_at.desc(), Run.id.desc())
