"""List queries for repositories, commits, machines, datasets, configurations, results."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import and_, exists, func, or_, select
from sqlalchemy.orm import Session

from basketbench.catalog.lookup import get_commit, get_dataset, get_machine, get_repository
from basketbench.catalog.machines import machine_stats
from basketbench.catalog.schemas import CommitOut, DatasetKind, Dimensions, LatestOut, MachineOut
from basketbench.core.errors import NotFound
from basketbench.core.sorting import sort_rows
from basketbench.core.sqlutil import AnySelect
from basketbench.models import (
    CodecSet,
    Commit,
    Configuration,
    Dataset,
    Machine,
    Repository,
    Result,
    ResultDocument,
    Run,
)
from basketbench.results.schemas import MeasuredCodecs, Provenance, ResultOut, SpeedStats
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


def _speed(prefix: str, r: Result) -> SpeedStats | None:
    median = getattr(r, f"{prefix}_median")
    if median is None:
        return None
    return SpeedStats(
        median=median, min=getattr(r, f"{prefix}_min"), max=getattr(r, f"{prefix}_max"),
        mean=getattr(r, f"{prefix}_mean"), stddev=getattr(r, f"{prefix}_stddev"),
        cv=getattr(r, f"{prefix}_cv"), n=getattr(r, f"{prefix}_n"),
        samples=getattr(r, f"{prefix}_samples"))


def codec_set_ids(session: Session, codec_set: str | None,
                  root_version: str | None) -> list[int] | None:
    """The codec sets a /results filter by set name and/or ROOT release keeps (None: no
    filter). A name or release no result was measured with is a 404, like an unknown
    dataset, so a typo never looks like "no results"."""
    if codec_set is None and root_version is None:
        return None
    stmt = select(CodecSet.id)
    if codec_set is not None:
        stmt = stmt.where(CodecSet.name == codec_set)
    if root_version is not None:
        stmt = stmt.where(CodecSet.root_version == root_version)
    ids = list(session.scalars(stmt))
    if not ids:
        wanted = " and ".join(
            ([f"codec set {codec_set!r}"] if codec_set is not None else [])
            + ([f"ROOT version {root_version!r}"] if root_version is not None else []))
        raise NotFound(f"no results measured with {wanted}")
    return ids


# What measured a result: its document's harness and build, its codec set (outer: results
# stored before codec sets have none). result_out reads them after the five columns above.
_PROVENANCE_COLUMNS = (
    ResultDocument.tool, ResultDocument.backend, ResultDocument.root_commit,
    ResultDocument.build_profile, ResultDocument.build_profile_version,
    ResultDocument.harness_hash, CodecSet.name, CodecSet.root_version, CodecSet.libraries)


def results_query(session: Session, f: ConfigFilter, run: int | None, commit: str | None,
                  machine: str | None, tag: str | None, dataset: str | None,
                  configuration: int | None, codec_set: str | None = None,
                  root_version: str | None = None) -> AnySelect:
    stmt = (select(Result, Commit.sha, Machine, Dataset.name, Configuration,
                   *_PROVENANCE_COLUMNS)
            .join(Commit, Commit.id == Result.commit_id)
            .join(Machine, Machine.id == Result.machine_id)
            .join(Dataset, Dataset.id == Result.dataset_id)
            .join(Configuration, Configuration.id == Result.configuration_id)
            .join(ResultDocument, ResultDocument.id == Result.document_id)
            .outerjoin(CodecSet, CodecSet.id == Result.codec_set_id)
            .where(*f.clauses()))
    if run is not None:
        stmt = stmt.where(Result.run_id == run)
    if commit:
        stmt = stmt.where(Result.commit_id == get_commit(session, commit).id)
    if machine:
        stmt = stmt.where(Result.machine_id == get_machine(session, machine).id)
    if tag:
        stmt = stmt.where(Machine.tag == tag)
    if dataset:
        stmt = stmt.where(Result.dataset_id == get_dataset(session, dataset).id)
    if configuration is not None:
        stmt = stmt.where(Result.configuration_id == configuration)
    set_ids = codec_set_ids(session, codec_set, root_version)
    if set_ids is not None:
        stmt = stmt.where(Result.codec_set_id.in_(set_ids))
    return stmt.order_by(Result.id)


def count_results(session: Session, f: ConfigFilter, run: int | None, commit: str | None,
                  machine: str | None, tag: str | None, dataset: str | None,
                  configuration: int | None, codec_set: str | None = None,
                  root_version: str | None = None) -> AnySelect:
    """The total for results_query without its joins. With document-level filters only
    (run, commit, machine, tag, codec set) it sums result_documents.result_count (results
    are only ever written with their document, which carries their codec set), which avoids
    counting millions of index entries."""
    doc_level = dataset is None and configuration is None and not f.clauses()
    machine_ids = None
    if machine:
        machine_ids = [get_machine(session, machine).id]
    commit_id = get_commit(session, commit).id if commit else None
    set_ids = codec_set_ids(session, codec_set, root_version)
    if doc_level:
        stmt = select(func.coalesce(func.sum(ResultDocument.result_count), 0))
        cols: Any = ResultDocument
    else:
        stmt = select(func.count()).select_from(Result)
        cols = Result
        if dataset:
            stmt = stmt.where(Result.dataset_id == get_dataset(session, dataset).id)
        if configuration is not None:
            stmt = stmt.where(Result.configuration_id == configuration)
        if f.clauses():
            stmt = stmt.where(Result.configuration_id.in_(
                select(Configuration.id).where(*f.clauses())))
    if run is not None:
        stmt = stmt.where(cols.run_id == run)
    if commit_id is not None:
        stmt = stmt.where(cols.commit_id == commit_id)
    if machine_ids is not None:
        stmt = stmt.where(cols.machine_id.in_(machine_ids))
    if tag:
        stmt = stmt.where(cols.machine_id.in_(select(Machine.id).where(Machine.tag == tag)))
    if set_ids is not None:
        stmt = stmt.where(cols.codec_set_id.in_(set_ids))
    return stmt


def result_out(row: Any) -> ResultOut:
    (r, sha, m, ds, c, tool, backend, root_commit, profile, profile_version, harness_hash,
     set_name, root_version, libraries) = row
    return ResultOut(
        id=r.id, run_id=r.run_id, document_id=r.document_id, commit=sha, machine=m.name,
        machine_id=m.id, tag=m.tag, dataset=ds, configuration_id=c.id, setting=c.setting,
        codec=c.codec, preconditioner=c.preconditioner, dictionary_size=c.dictionary_size,
        basket_size=c.basket_size, mode=c.mode, threads=c.threads, label=c.label,
        uncompressed_bytes=r.uncompressed_bytes, compressed_bytes=r.compressed_bytes,
        ratio=r.ratio, compress_mbps=_speed("c", r), decompress_mbps=_speed("d", r),
        roundtrip_ok=r.roundtrip_ok, error=r.error,
        provenance=Provenance(
            codec_set=set_name, codec_set_id=r.codec_set_id,
            measured_codecs=MeasuredCodecs.model_validate(libraries or {}),
            root_version=root_version, root_commit=root_commit, build_profile=profile,
            build_profile_version=profile_version, harness=tool, harness_hash=harness_hash,
            harness_backend=backend, machine_version=m.version,
            fingerprint_hash=m.fingerprint_hash))


def latest(session: Session, f: ConfigFilter, dataset: str | None, machine: str | None,
           tag: str | None, commit_to: str | None) -> list[LatestOut]:
    """Numbers at each machine's newest measured commit (optionally at or before commit_to)."""
    mstmt = select(Machine)
    if machine:
        mstmt = mstmt.where(Machine.id == get_machine(session, machine).id)
    elif tag:
        mstmt = mstmt.where(Machine.tag == tag)
    hi = get_commit(session, commit_to).order if commit_to else None
    ds_id = get_dataset(session, dataset).id if dataset else None
    out: list[LatestOut] = []
    for m in session.scalars(mstmt.order_by(Machine.name, Machine.version)):
        cstmt = (select(Commit).join(ResultDocument, ResultDocument.commit_id == Commit.id)
                 .where(ResultDocument.machine_id == m.id))
        if hi is not None:
            cstmt = cstmt.where(Commit.order <= hi)
        commit = session.scalar(cstmt.order_by(Commit.order.desc(), Commit.date.desc()).limit(1))
        if commit is None:
            continue
        stmt = (select(Configuration, Dataset.name, func.avg(Result.ratio),
                       func.avg(Result.compressed_bytes), func.avg(Result.c_median),
                       func.avg(Result.d_median))
                .join(Configuration, Configuration.id == Result.configuration_id)
                .join(Dataset, Dataset.id == Result.dataset_id)
                .where(and_(Result.commit_id == commit.id, Result.machine_id == m.id),
                       *f.clauses())
                .group_by(Configuration.id, Dataset.name)
                .order_by(Dataset.name, Configuration.setting, Configuration.id))
        if ds_id is not None:
            stmt = stmt.where(Result.dataset_id == ds_id)
        for conf, ds_name, ratio, cbytes, cm, dm in session.execute(stmt):
            out.append(LatestOut(
                configuration=configuration_out(conf), dataset=ds_name, machine=machine_ref(m),
                commit=commit.sha, ratio=ratio,
                compressed_bytes=int(cbytes) if cbytes is not None else None,
                compress_mbps=cm, decompress_mbps=dm))
    return out


LATEST_SORT_KEYS: dict[str, Callable[[LatestOut], Any]] = {
    "configuration": lambda r: r.configuration.label,
    "setting": lambda r: r.configuration.setting,
    "preconditioner": lambda r: r.configuration.preconditioner,
    "dictionary_size": lambda r: r.configuration.dictionary_size,
    "basket_size": lambda r: r.configuration.basket_size,
    "mode": lambda r: r.configuration.mode,
    "threads": lambda r: r.configuration.threads,
    "dataset": lambda r: r.dataset,
    "machine": lambda r: (r.machine.name, r.machine.version),
    "commit": lambda r: r.commit,
    "ratio": lambda r: r.ratio,
    "compressed_bytes": lambda r: r.compressed_bytes,
    "compress_mbps": lambda r: r.compress_mbps,
    "decompress_mbps": lambda r: r.decompress_mbps,
}
LATEST_SORT_HELP = (f"one of {', '.join(LATEST_SORT_KEYS)}; '-' prefix for descending "
                    "(default: dataset, setting); sorts every matching row, then pages")


def sort_latest(items: list[LatestOut], sort: str | None) -> list[LatestOut]:
    if not sort:
        return items  # already in (machine, dataset, setting) order
    return sort_rows(items, sort, LATEST_SORT_KEYS, "configuration")


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
