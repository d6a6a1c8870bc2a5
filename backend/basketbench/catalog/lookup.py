"""Resolve user-given references: commit sha prefixes, machines, datasets, repositories."""

from __future__ import annotations

from functools import lru_cache
from typing import Any, NamedTuple, TypeVar

from sqlalchemy import bindparam, func, select
from sqlalchemy.orm import Session

from basketbench.core.errors import BadRequest, Invalid, NotFound
from basketbench.core.sqlutil import insert_ignore
from basketbench.models import Commit, Dataset, Machine, Repository
from basketbench.schemas.refs import MachineRef

HEX = set("0123456789abcdef")


def normalise_sha(ref: str) -> str:
    ref = ref.strip().lower()
    if not ref or len(ref) > 64 or not set(ref) <= HEX:
        raise BadRequest(f"not a commit sha: {ref!r}")
    return ref


def find_commit(session: Session, ref: str, repository_id: int | None = None) -> Commit | None:
    """Full sha or unique prefix. A range scan (not LIKE) so the btree index is used."""
    lo, hi = _prefix_range(ref)
    stmt = select(Commit).where(Commit.sha >= lo, Commit.sha < hi)
    if repository_id is not None:
        stmt = stmt.where(Commit.repository_id == repository_id)
    return _unique_commit(ref, list(session.scalars(stmt.limit(2))))


_COMMIT_REF = (select(Commit.id, Commit.sha, Commit.order)
               .where(Commit.sha >= bindparam("lo"), Commit.sha < bindparam("hi")).limit(2))


class CommitRef(NamedTuple):
    id: int
    sha: str
    order: int


def get_commit_ref(session: Session, ref: str) -> CommitRef:
    """get_commit's (id, sha, git order) only, for the hot reads: the ORM object (its
    message, parents, ...) and a statement built per request cost a tradeoff ~1 ms."""
    lo, hi = _prefix_range(ref)
    found = _unique_commit(ref, [CommitRef(*row) for row in
                                 session.execute(_COMMIT_REF, {"lo": lo, "hi": hi})])
    if found is None:
        raise NotFound(f"unknown commit {ref!r}")
    return found


def _prefix_range(ref: str) -> tuple[str, str]:
    """The shas a prefix stands for, as a half-open range of the sha index."""
    sha = normalise_sha(ref)
    return sha, sha + "~"


_C = TypeVar("_C", Commit, CommitRef)


def _unique_commit(ref: str, found: list[_C]) -> _C | None:
    """The one commit a prefix found (at most two asked for), None for none; a 400 naming
    the candidates for more."""
    if len(found) > 1:
        raise BadRequest(f"commit prefix {ref!r} is ambiguous", [c.sha for c in found])
    return found[0] if found else None


def get_commit(session: Session, ref: str, repository_id: int | None = None) -> Commit:
    commit = find_commit(session, ref, repository_id)
    if commit is None:
        raise NotFound(f"unknown commit {ref!r}")
    return commit


def get_repository(session: Session, name: str, create: bool = False) -> Repository:
    repo = session.scalar(select(Repository).where(Repository.name == name))
    if repo is None:
        if len(name) > 200:
            raise Invalid(f"repository name longer than 200 characters: {name[:40]!r}...")
        if not create:
            raise NotFound(f"unknown repository {name!r}")
        insert_ignore(session, Repository.__table__, [{"name": name}], ["name"])  # type: ignore[arg-type]
        repo = session.scalar(select(Repository).where(Repository.name == name))
        assert repo is not None
    return repo


@lru_cache(maxsize=16)
def _machine_statement(columns: tuple[Any, ...], by: str) -> Any:
    """A machine by "id", by "name" (its newest version) or by "version" (name@version):
    built once per shape, it runs on every hot read."""
    stmt = select(*columns)
    if by == "id":
        return stmt.where(Machine.id == bindparam("id"))
    stmt = stmt.where(Machine.name == bindparam("name"))
    if by == "version":
        stmt = stmt.where(Machine.version == bindparam("version"))
    return stmt.order_by(Machine.version.desc()).limit(1)


def _machine_query(ref: str, *columns: Any) -> tuple[Any, dict[str, Any]]:
    """Machine id, or name (its newest version), or name@version: statement, parameters."""
    ref = ref.strip()
    if ref.isdigit():
        return _machine_statement(columns, "id"), {"id": int(ref)}
    name, _, version = ref.partition("@")
    if version.lstrip("v").isdigit():
        return (_machine_statement(columns, "version"),
                {"name": name, "version": int(version.lstrip("v"))})
    return _machine_statement(columns, "name"), {"name": name}


def get_machine(session: Session, ref: str) -> Machine:
    """Machine id, or name (its newest version), or name@version."""
    machine = session.scalar(*_machine_query(ref, Machine))
    if machine is None:
        raise NotFound(f"unknown machine {ref.strip()!r}")
    return machine


def get_machine_ref(session: Session, ref: str) -> MachineRef:
    """get_machine's identity columns only, for the hot reads: loading the whole machine
    (its fingerprint JSON, an ORM object) cost a history request 1 ms."""
    row = session.execute(*_machine_query(
        ref, Machine.id, Machine.name, Machine.tag, Machine.version)).first()
    if row is None:
        raise NotFound(f"unknown machine {ref.strip()!r}")
    return MachineRef(id=row[0], name=row[1], tag=row[2], version=row[3])


# The dataset named ``dataset_name``, as a column of the machine's row (below).
_DATASET_ID_BY_NAME = (select(Dataset.id).where(Dataset.name == bindparam("dataset_name"))
                       .scalar_subquery().label("dataset_id"))


def get_machine_dataset_refs(session: Session, machine: str, dataset: str,
                             extra: tuple[Any, ...] = (), params: dict[str, Any] | None = None,
                             ) -> tuple[MachineRef, int, str, tuple[Any, ...]]:
    """get_machine_ref and get_dataset_ref in one round trip (a history's or trade-off's
    lookups): the dataset found by name comes with the machine's row, and so do the
    caller's ``extra`` scalar subqueries (their values last; ``params`` binds them). Same
    answers and errors as the two, in their order: an unknown machine first."""
    stmt, machine_params = _machine_query(machine, Machine.id, Machine.name, Machine.tag,
                                          Machine.version, _DATASET_ID_BY_NAME, *extra)
    row = session.execute(stmt, {**(params or {}), **machine_params,
                                 "dataset_name": dataset}).first()
    if row is None:
        raise NotFound(f"unknown machine {machine.strip()!r}")
    ref = MachineRef(id=row[0], name=row[1], tag=row[2], version=row[3])
    values = tuple(row[5:])
    if row[4] is None:  # a dataset id, or unknown: its own lookup says which
        return (ref, *get_dataset_ref(session, dataset), values)
    return ref, row[4], dataset, values


def get_dataset(session: Session, ref: str) -> Dataset:
    ds = session.scalar(select(Dataset).where(Dataset.name == ref))
    if ds is None and ref.isdigit():
        ds = session.get(Dataset, int(ref))
    if ds is None:
        raise NotFound(f"unknown dataset {ref!r}")
    return ds


_DATASET_BY_NAME = select(Dataset.id, Dataset.name).where(Dataset.name == bindparam("name"))
_DATASET_BY_ID = select(Dataset.id, Dataset.name).where(Dataset.id == bindparam("id"))


def get_dataset_ref(session: Session, ref: str) -> tuple[int, str]:
    """get_dataset's (id, name) only, for the hot reads (no ORM object)."""
    row = session.execute(_DATASET_BY_NAME, {"name": ref}).first()
    if row is None and ref.isdigit() and int(ref) < 2**31:
        row = session.execute(_DATASET_BY_ID, {"id": int(ref)}).first()
    if row is None:
        raise NotFound(f"unknown dataset {ref!r}")
    return row[0], row[1]


def max_order(session: Session, repository_id: int) -> int:
    value = session.scalar(
        select(func.max(Commit.order)).where(Commit.repository_id == repository_id))
    return int(value) if value is not None else -1
