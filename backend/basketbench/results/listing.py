"""Listing stored results: GET /results (the query with its filters, its total, each row
shaped as ResultOut with what measured it, ``provenance``) and GET /configurations/latest
(mean numbers at each machine's newest measured commit, sortable)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import and_, func, select
from sqlalchemy.orm import Session

from basketbench.catalog.lookup import get_commit, get_dataset, get_machine
from basketbench.catalog.service import ConfigFilter, configuration_out, machine_ref
from basketbench.core.errors import NotFound
from basketbench.core.sorting import sort_rows
from basketbench.core.sqlutil import AnySelect
from basketbench.models import (
    CodecSet,
    Commit,
    Configuration,
    Dataset,
    Machine,
    Result,
    ResultDocument,
)
from basketbench.results.schemas import (
    LatestOut,
    MeasuredCodecs,
    Provenance,
    ResultOut,
    SpeedStats,
)


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
            # A result's document is of its commit and machine (ingest writes both from
            # it). Said in the join, the planner carries a commit or machine filter over
            # to result_documents and reads it by ix_result_documents_machine_commit:
            # joined by id alone, its estimate of the page's rows decides between that and
            # a sequential scan of every document (it chose the scan on a CI run).
            .join(ResultDocument, and_(ResultDocument.id == Result.document_id,
                                       ResultDocument.commit_id == Result.commit_id,
                                       ResultDocument.machine_id == Result.machine_id))
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
