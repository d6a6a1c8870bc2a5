"""Storing an A/B upload: one ab_runs row and its ab_effects, in one transaction.

Idempotent: the canonical JSON of the upload is hashed and kept in the run's `method`
(`document_sha256`); the same upload again answers the stored run (duplicate), never a
second row. Uploads for one machine are serialised by an advisory lock, so two identical
uploads arriving together store one run. Nothing is written unless everything validates.
"""

from __future__ import annotations

import hashlib
from typing import Any

import orjson
from pydantic import ValidationError
from sqlalchemy import insert, select, text
from sqlalchemy.orm import Session

from basketbench.ab.schemas import AbIngestOut, AbResult, AbUpload
from basketbench.catalog.commits import ensure_commit
from basketbench.catalog.lookup import get_repository
from basketbench.core import ownership
from basketbench.core.config import Settings
from basketbench.core.errors import Invalid
from basketbench.core.sqlutil import insert_ignore
from basketbench.models import (
    AbEffect,
    AbRun,
    ApiToken,
    Commit,
    Configuration,
    Dataset,
    Repository,
    Run,
)
from basketbench.models.ab_request import AbRequest as AbRequestRow
from basketbench.models.experiment import ALGORITHM_NAMES
from basketbench.results import codec_sets as codec_service

# "bb" + 3 (commits.py holds "bb" + 1, detection "bb" + 2).
AB_INGEST_LOCK = 0x62620003
MAX_REASONS = 50


def parse_upload(body: Any) -> AbUpload:
    """The upload, or Invalid (422) listing every reason with its place in the body."""
    try:
        return AbUpload.model_validate(body)
    except ValidationError as rejected:
        reasons = [f"{'/'.join(str(p) for p in e['loc']) or 'body'}: {e['msg']}"
                   for e in rejected.errors(include_url=False)]
        raise Invalid("A/B upload rejected", reasons[:MAX_REASONS]) from rejected


def upload_hash(body: Any) -> str:
    return hashlib.sha256(orjson.dumps(body, option=orjson.OPT_SORT_KEYS)).hexdigest()


def ingest(session: Session, settings: Settings, body: Any,
           uploader: ApiToken | None = None) -> AbIngestOut:
    """Store an upload; ``uploader`` (an HTTP upload's token) must serve the machine's tag."""
    upload = parse_upload(body)
    digest = upload_hash(body)
    machine = ownership.upload_machine(session, upload.machine_id, uploader)
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("SELECT pg_advisory_xact_lock(:k, :m)"),
                        {"k": AB_INGEST_LOCK, "m": machine.id})
    run = None
    if upload.run_id is not None:
        run = session.get(Run, upload.run_id)
        if run is None:
            raise Invalid(f"unknown run {upload.run_id}", [f"run_id: no run {upload.run_id}"])
    commit = _commit(session, _repository(session, settings, upload, run), upload.commit, run)
    if run is not None and run.commit_id != commit.id:
        raise Invalid("the run measured another commit",
                      [f"commit: run {run.id} is not a run of {upload.commit}"])
    found = _existing(session, machine.id, commit.id, digest)
    if found is not None:
        return AbIngestOut(ab_run_id=found.id, effects=_effect_count(session, found.id),
                           duplicate=True)
    reference = upload.reference
    reference_kind: str = reference.kind
    origin: str = upload.origin
    asked = session.get(AbRequestRow, run.id) if run is not None else None
    if asked is not None and reference.commit is not None:
        # a queued A/B (runs.ab_requests): the request says why it was asked for (a
        # detection's confirmation against the parent, a comparison from the page)
        reference_kind, origin = asked.reference_kind, asked.origin
    reference_id = None
    if reference.kind == "self":
        reference_id = commit.id
    elif reference.commit is not None:
        reference_id = _commit(session, session.get(Repository, commit.repository_id),
                               reference.commit, None).id
    codec_set_id = None
    if upload.codecs is not None:
        codecs = upload.codecs
        codec_set_id = codec_service.ensure_codec_set(
            session, codecs.set, codecs.root_version, dict(codecs.libraries)).id
    doc = upload.document
    method = {**doc.method.model_dump(), "document_sha256": digest,
              "a": doc.a.model_dump(), "b": doc.b.model_dump()}
    ab_run = AbRun(run_id=run.id if run else None, machine_id=machine.id, commit_id=commit.id,
                   reference_kind=reference_kind, reference_commit_id=reference_id,
                   reference_label=reference.label, origin=origin,
                   codec_set_id=codec_set_id, disturbed_fraction=doc.disturbed_fraction,
                   method=method, load=doc.load.model_dump(), error=upload.error)
    session.add(ab_run)
    session.flush()
    datasets = _dataset_ids(session, {r.dataset for r in doc.results})
    configurations = _configuration_ids(session, {r.setting for r in doc.results})
    rows = [
        {"ab_run_id": ab_run.id, "dataset_id": datasets[r.dataset],
         "configuration_id": configurations[r.setting], "metric": metric,
         "ratio": estimate.ratio, "ci_low": estimate.ci_low, "ci_high": estimate.ci_high,
         "pairs": estimate.pairs, "disturbed_pairs": estimate.disturbed_pairs,
         "samples": list(estimate.samples)}
        for r in doc.results for metric, estimate in _estimates(r)]
    session.execute(insert(AbEffect), rows)
    session.commit()
    return AbIngestOut(ab_run_id=ab_run.id, effects=len(rows), duplicate=False)


def _estimates(result: AbResult) -> list[tuple[str, Any]]:
    return [("compress_mbps", result.compress), ("decompress_mbps", result.decompress)]


def _repository(session: Session, settings: Settings, upload: AbUpload,
                run: Run | None) -> Repository:
    """The run's repository, else the one named, else the default."""
    if run is not None:
        commit = session.get(Commit, run.commit_id)
        repo = session.get(Repository, commit.repository_id) if commit else None
        if repo is not None:
            return repo
    return get_repository(session, upload.repository or settings.default_repository,
                          create=True)


def _commit(session: Session, repo: Repository | None, sha: str, run: Run | None) -> Commit:
    if run is not None:
        commit = session.get(Commit, run.commit_id)
        if commit is not None and commit.sha.lower() == sha.lower():
            return commit
    if repo is None:
        raise Invalid("no repository for the commit", [f"commit: {sha}"])
    return ensure_commit(session, repo, sha.lower())


def _existing(session: Session, machine_id: int, commit_id: int, digest: str) -> AbRun | None:
    candidates = session.scalars(select(AbRun).where(AbRun.machine_id == machine_id,
                                                     AbRun.commit_id == commit_id))
    return next((r for r in candidates if (r.method or {}).get("document_sha256") == digest),
                None)


def _effect_count(session: Session, ab_run_id: int) -> int:
    return len(session.scalars(select(AbEffect.id).where(AbEffect.ab_run_id == ab_run_id)).all())


def _dataset_ids(session: Session, names: set[str]) -> dict[str, int]:
    insert_ignore(session, Dataset.__table__, [{"name": n} for n in sorted(names)],  # type: ignore[arg-type]
                  ["name"])
    found = session.execute(select(Dataset.name, Dataset.id)
                            .where(Dataset.name.in_(sorted(names))))
    return {name: id_ for name, id_ in found}


# An A/B measures whole baskets of one setting, one thread, no preconditioner or dictionary:
# the plain configuration of that setting, the one the pipeline's results use too.
PLAIN = {"preconditioner": "none", "dictionary_size": 0, "basket_size": 0, "mode": "basket",
         "threads": 1}


def _configuration_ids(session: Session, settings: set[int]) -> dict[int, int]:
    rows = [{"setting": s, "algorithm": s // 100, "level": s % 100,
             "codec": ALGORITHM_NAMES[s // 100].lower(), **PLAIN} for s in sorted(settings)]
    insert_ignore(session, Configuration.__table__, rows,  # type: ignore[arg-type]
                  ["setting", "codec", *PLAIN])
    found = session.execute(
        select(Configuration.setting, Configuration.id).where(
            Configuration.setting.in_(sorted(settings)),
            *(getattr(Configuration, k) == v for k, v in PLAIN.items()),
            Configuration.codec.in_(sorted({r["codec"] for r in rows}))))
    return {setting: id_ for setting, id_ in found}
