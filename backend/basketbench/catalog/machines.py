"""Machine registration: same name + fingerprint -> same machine; changed -> new version."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from sqlalchemy import exists, func, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session, aliased

from basketbench.core.errors import Conflict, NotFound
from basketbench.models import Commit, Machine, ResultDocument
from basketbench.models.base import utcnow

# Fields that describe the host, not the hardware/software: they never split a machine.
MAX_VERSION_RACES = 5
# Codec library versions neither: a machine measures several codec sets (host, builtin,
# named) and stays one machine; the set is part of each result's series (models/codecs.py).
# Nor the codec build (backend, ROOT release): one machine measures ROOT commits, releases and
# rootcompat alike, and its history shows them side by side; each document's `codecs` says
# which code ran.
VOLATILE_FIELDS = {"hostname", "fingerprint_hash", "host_name", "date", "load_avg", "executable",
                   "libraries", "backend", "root_version"}


def fingerprint_hash(fingerprint: dict[str, Any]) -> str:
    """The machine's identity, computed here over the stable fields: the harness's own
    fingerprint_hash covers the codec libraries too, so it is not taken as given."""
    stable = {k: v for k, v in fingerprint.items() if k not in VOLATILE_FIELDS}
    canonical = json.dumps(stable, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()[:32]


def register_machine(session: Session, name: str, tag: str, fingerprint: dict[str, Any],
                     fp_hash: str | None = None) -> tuple[Machine, bool]:
    """An upsert: concurrent registrations (or ingests) of the same machine all get the one
    row, never a unique-violation; a new fingerprint becomes the next version."""
    # A given hash (the harness's or a client's) is ignored: identity is computed here, the
    # same way for every client, without the codec libraries.
    del fp_hash
    fp_hash = fingerprint_hash(fingerprint)
    for _ in range(MAX_VERSION_RACES):
        existing = session.scalar(
            select(Machine).where(Machine.name == name, Machine.fingerprint_hash == fp_hash)
            .execution_options(populate_existing=True))
        if existing is not None:
            if existing.tag != tag:
                raise Conflict(
                    f"machine {name!r} with this fingerprint is registered with tag "
                    f"{existing.tag!r}, not {tag!r}")
            return existing, False
        version = (session.scalar(select(func.max(Machine.version))
                                  .where(Machine.name == name)) or 0) + 1
        module: Any = postgresql if session.get_bind().dialect.name == "postgresql" else sqlite
        new_id = session.scalar(
            module.insert(Machine)
            .values(name=name, tag=tag, version=version, fingerprint=fingerprint,
                    fingerprint_hash=fp_hash, active=True, registered_at=utcnow())
            .on_conflict_do_nothing()
            .returning(Machine.id))
        if new_id is None:
            continue  # the same machine, or this version of the name, was taken meanwhile
        session.execute(update(Machine).where(Machine.name == name, Machine.id != new_id)
                        .values(active=False))
        machine = session.get(Machine, new_id)
        assert machine is not None
        return machine, True
    raise Conflict(f"machine {name!r}: too many concurrent registrations; retry")


def heartbeat(session: Session, machine_id: int) -> Machine:
    machine = session.get(Machine, machine_id)
    if machine is None:
        raise NotFound(f"unknown machine {machine_id}")
    machine.last_heartbeat = utcnow()
    from basketbench.catalog.worker_tags import seen

    seen(session, machine.tag)
    session.commit()
    return machine


def machine_stats(session: Session, machine_ids: list[int]) -> dict[int, tuple[int, str | None]]:
    """result_count and latest commit (newest in git order) per machine, in one statement
    of index-only reads of ix_result_documents_machine_commit: the sum over the machine's
    entries, and commits walked newest first until one the machine measured. (Reading
    every document of the machines joined to their commits cost GET /machines 15-21 ms
    at 6 000 documents, issue 34.)"""
    if not machine_ids:
        return {}
    doc = aliased(ResultDocument)
    count = (select(func.sum(ResultDocument.result_count))
             .where(ResultDocument.machine_id == Machine.id).scalar_subquery())
    latest = (select(Commit.sha)
              .where(exists().where(doc.machine_id == Machine.id, doc.commit_id == Commit.id))
              .order_by(Commit.order.desc(), Commit.id.desc()).limit(1).scalar_subquery())
    rows = session.execute(select(Machine.id, count, latest)
                           .where(Machine.id.in_(machine_ids))).all()
    found = {mid: (int(n or 0), sha) for mid, n, sha in rows}
    return {mid: found.get(mid, (0, None)) for mid in machine_ids}
