"""Storing result documents: validate, dedupe by content hash, bulk insert.

Both the harness JSON and Google Benchmark JSON end up here as a ``Batch``: a machine, a
commit, datasets and flat result rows (``StoredDataset`` / ``StoredResult``). A harness
document comes in through the contract's parse_document (measure/document/batch.py),
whose typed parts become the batch as they are; results/gbench.py builds its rows itself.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from operator import itemgetter
from typing import Any, NotRequired

import orjson
import psycopg
from sqlalchemy import insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session
from typing_extensions import ReadOnly, TypedDict

from basketbench.catalog import machines as machine_service
from basketbench.catalog.commits import ensure_commit
from basketbench.catalog.lookup import get_repository
from basketbench.core import dbguard, ownership
from basketbench.core.config import Settings
from basketbench.core.db import engine_of
from basketbench.core.engine_cache import PerEngine
from basketbench.core.errors import Invalid
from basketbench.core.sqlutil import insert_ignore
from basketbench.measure.document.batch import DocumentBatch, DocumentError, parse_document
from basketbench.measure.document.contract import MAX_LISTED, capped
from basketbench.measure.document.screen import Build
from basketbench.measure.rzbench import noise
from basketbench.models import (
    ApiToken,
    Configuration,
    Dataset,
    Machine,
    Result,
    ResultDocument,
    Run,
    ScreenPoints,
)
from basketbench.results import codec_sets as codec_service
from basketbench.results import provenance
from basketbench.results.schemas import IngestOut

CONF_KEYS = ("setting", "codec", "preconditioner", "dictionary_size", "basket_size", "mode",
             "threads")
BATCH = 5000


@dataclass
class Target:
    """Where results belong; query parameters override the document's context."""

    commit: str | None = None
    machine: str | None = None
    tag: str | None = None
    run_id: int | None = None
    repository: str | None = None
    suite: str | None = None


# The rows a batch stores. Read-only and looser than the document contract's own types
# (screen.Dataset / Result / Stats): a harness document's rows are these as they are (no
# copy), and Google Benchmark rows may lack what the harness always measures (sizes,
# ratio, min / max / samples: null, never invented).
class StoredDataset(TypedDict):
    name: ReadOnly[str]
    source: ReadOnly[NotRequired[str | None]]
    bytes: ReadOnly[NotRequired[int | None]]
    baskets: ReadOnly[NotRequired[int | None]]
    checksum: ReadOnly[NotRequired[str | None]]
    kind: ReadOnly[NotRequired[str | None]]
    page_size: ReadOnly[NotRequired[int | None]]


class StoredStats(TypedDict):
    median: ReadOnly[float]
    min: ReadOnly[float | None]
    max: ReadOnly[NotRequired[float | None]]
    mean: ReadOnly[float | None]
    stddev: ReadOnly[float | None]
    cv: ReadOnly[float | None]
    samples: ReadOnly[list[float] | None]


class StoredResult(TypedDict):
    """One result row; the instruction counts (COUNT_COLUMNS) are optional extra keys."""

    dataset: ReadOnly[str]
    codec: ReadOnly[str]
    setting: ReadOnly[int]
    algorithm: ReadOnly[int]
    level: ReadOnly[int]
    preconditioner: ReadOnly[str]
    dictionary_size: ReadOnly[int]
    dictionary_train_ms: ReadOnly[NotRequired[float | None]]
    basket_size: ReadOnly[int]
    mode: ReadOnly[str]
    threads: ReadOnly[int]
    uncompressed_bytes: ReadOnly[int | None]
    compressed_bytes: ReadOnly[int | None]
    ratio: ReadOnly[float | None]
    compress_mbps: ReadOnly[StoredStats | None]
    decompress_mbps: ReadOnly[StoredStats | None]
    roundtrip_ok: ReadOnly[bool]
    error: ReadOnly[str | None]


@dataclass
class Batch:
    kind: str
    sha256: str
    machine_name: str
    fingerprint: dict[str, Any]
    fingerprint_hash: str
    tag: str | None
    datasets: Sequence[StoredDataset]
    results: Sequence[StoredResult]
    created_at: datetime | None = None
    tool: str | None = None
    backend: str | None = None
    root_commit: str | None = None
    parameters: Mapping[str, Any] = field(default_factory=dict)
    target: Target = field(default_factory=Target)
    # (set, ROOT release, library versions): the document's `codecs`, else host + fingerprint's
    codecs: tuple[str, str | None, dict[str, str]] | None = None
    # the document's `build`: (profile, profile version, harness source hash), each optional
    build: tuple[str | None, str | None, str | None] = (None, None, None)
    load: dict[str, Any] | None = None  # the document's `load` (measure/rzbench/noise.py)


def _build_text(build: Build | None) -> tuple[str | None, str | None, str | None]:
    """The document's ``build`` as the text columns (a profile version may be a number)."""
    if not build:
        return None, None, None

    def text(value: str | int | None) -> str | None:
        return None if value is None else str(value)

    return (text(build.get("profile")), text(build.get("profile_version")),
            text(build.get("harness_hash")))


def document_hash(doc: Any, target: Target) -> str:
    """sha256 of the canonical JSON (sorted keys, no whitespace) plus where it is filed,
    so the same file posted for another commit or machine is not a duplicate."""
    canonical = orjson.dumps(doc, option=orjson.OPT_SORT_KEYS)
    extra = orjson.dumps([target.commit, target.machine, target.tag, target.run_id,
                          target.repository])
    return hashlib.sha256(canonical + b"\n" + extra).hexdigest()


def harness_batch(doc: Any, target: Target) -> Batch:
    try:
        parsed = parse_document(doc)
    except DocumentError as rejected:
        raise Invalid("result document rejected", rejected.errors) from rejected
    return document_batch(parsed, target)


def document_batch(parsed: DocumentBatch, target: Target) -> Batch:
    """A checked harness document as a batch, filed where ``target`` says, else where its
    context does."""
    context = parsed.context
    target = Target(
        commit=target.commit or context.get("commit"),
        machine=target.machine or context.get("machine"),
        tag=target.tag or context.get("tag"),
        run_id=target.run_id if target.run_id is not None else context.get("run_id"),
        repository=target.repository or context.get("repository"),
        suite=target.suite or context.get("suite"),
    )
    machine = parsed.machine
    return Batch(
        kind="harness", sha256=document_hash(parsed.document, target),
        machine_name=target.machine or machine["hostname"], fingerprint=dict(machine),
        fingerprint_hash=machine["fingerprint_hash"], tag=target.tag,
        datasets=parsed.datasets, results=parsed.results, created_at=parsed.created_at,
        tool=parsed.tool_label, backend=parsed.backend, root_commit=parsed.root_commit,
        parameters=parsed.parameters, target=target,
        codecs=codec_service.measured_codecs(parsed.codecs, machine["libraries"]),
        build=_build_text(parsed.build), load=parsed.load,
    )


STAT_KEYS = ("median", "min", "max", "mean", "stddev", "cv", "n", "samples")


_NO_STATS = (None,) * len(STAT_KEYS)


COUNT_COLUMNS = {
    "c_instructions": "compress_instructions",
    "c_instructions_per_mb": "compress_instructions_per_mb",
    "c_cycles_per_mb": "compress_estimated_cycles_per_mb",
    "d_instructions": "decompress_instructions",
    "d_instructions_per_mb": "decompress_instructions_per_mb",
    "d_cycles_per_mb": "decompress_estimated_cycles_per_mb",
}


def _counts(result: StoredResult) -> tuple[Any, ...]:
    """The instruction-count columns (measure/rzbench/counting.py), NULL for uncounted results."""
    return tuple(result.get(field) for field in COUNT_COLUMNS.values())


def _stats(stats: StoredStats | None) -> tuple[Any, ...]:
    """The c_/d_ column values of one speed, in STAT_KEYS order."""
    if not stats:
        return _NO_STATS
    get: Callable[[str], Any] = stats.get  # one lookup, several reads (per result)
    samples = get("samples") or None  # validated: a list of numbers
    lo, hi = get("min"), get("max")
    n: Any
    if samples:
        if lo is None:
            lo = min(samples)
        if hi is None:
            hi = max(samples)
        n = len(samples)
    else:
        n = get("n")
    return (stats["median"], lo, hi, get("mean"), get("stddev"), get("cv"), n, samples)


# Ids of configurations (by identity fields) and datasets (by name) per engine: rows that
# never change once written, looked up on every document. A miss goes to the database; a
# failed ingest forgets everything (a stale id would then be an FK error on COPY, never a
# silent wrong row).
_ids: PerEngine[tuple[dict[tuple[Any, ...], int], dict[str, int]]] = PerEngine(
    lambda: ({}, {}))
_conf_key = itemgetter(*CONF_KEYS)


def _configuration_ids(session: Session, results: Sequence[StoredResult],
                       keys: list[tuple[Any, ...]]) -> dict[tuple[Any, ...], int]:
    """Configuration id of each identity key (``keys[i]`` is ``results[i]``'s)."""
    known = _ids.of(engine_of(session))[0]
    missing = {k for k in set(keys) if k not in known}  # no iteration over the shared dict
    if not missing:
        return known
    wanted = dict(zip(keys, results, strict=True))  # the last result of a key, as before
    settings = {k[0] for k in missing}
    rows = []
    for key in missing:
        r = wanted[key]
        row = dict(zip(CONF_KEYS, key, strict=True))
        row["algorithm"] = r.get("algorithm", key[0] // 100)
        row["level"] = r.get("level", key[0] % 100)
        rows.append(row)
    insert_ignore(session, Configuration.__table__, rows, CONF_KEYS)  # type: ignore[arg-type]
    columns = [getattr(Configuration, k) for k in CONF_KEYS]
    for found in session.execute(select(Configuration.id, *columns)
                                 .where(Configuration.setting.in_(settings))):
        known[tuple(found[1:])] = found[0]
    return known


def dataset_kind(d: StoredDataset) -> str | None:
    """ttree | rntuple | mixed as the harness reports it, and `synthetic` for a generator's
    data (source synthetic:...), which the harness reports as "ttree" (its baskets are
    TTree-like buffers, but no ROOT file holds them)."""
    if str(d.get("source") or "").startswith("synthetic:"):
        return "synthetic"
    kind = d.get("kind")
    return str(kind) if kind is not None else None


def _dataset_ids(session: Session, datasets: Sequence[StoredDataset],
                 names: set[str]) -> dict[str, int]:
    known = _ids.of(engine_of(session))[1]
    if all(n in known for n in names) and all(d["name"] in known for d in datasets):
        return known
    rows = {d["name"]: {"name": d["name"], "source": d.get("source"), "bytes": d.get("bytes"),
                        "baskets": d.get("baskets"), "checksum": d.get("checksum"),
                        "kind": dataset_kind(d), "page_size": d.get("page_size")}
            for d in datasets}
    for name in names - rows.keys():
        rows[name] = {"name": name, "source": None, "bytes": None, "baskets": None,
                      "checksum": None, "kind": None, "page_size": None}
    insert_ignore(session, Dataset.__table__, list(rows.values()), ["name"])  # type: ignore[arg-type]
    found = session.execute(select(Dataset.name, Dataset.id).where(Dataset.name.in_(rows)))
    known.update({name: id_ for name, id_ in found})
    return known


def _existing_document(session: Session, sha256: str) -> ResultDocument | None:
    return session.scalar(select(ResultDocument).where(ResultDocument.sha256 == sha256))


def _duplicate(session: Session, doc: ResultDocument) -> IngestOut:
    from basketbench.models import Commit

    commit = session.get(Commit, doc.commit_id)
    return IngestOut(document_id=doc.id, results=doc.result_count, duplicate=True,
                     commit=commit.sha if commit else "", machine_id=doc.machine_id,
                     run_id=doc.run_id)


# Column widths (models): longer text is a 422, never a database error.
LIMITS = {"dataset name": 300, "dataset source": 1000, "dataset checksum": 100,
          "machine": 200, "tag": 100, "repository": 200, "root_commit": 64,
          "codecs.set": 100, "codecs.root_version": 50, "build.profile": 100,
          "build.profile_version": 50, "build.harness_hash": 64}


INT_LIMITS = {"threads": 2**31 - 1, "basket_size": 2**31 - 1, "dictionary_size": 2**31 - 1,
              "uncompressed_bytes": 2**63 - 1, "compressed_bytes": 2**63 - 1}


def _too_long(batch: Batch) -> list[str]:
    t = batch.target
    checks: list[tuple[str, Any]] = [("machine", batch.machine_name), ("tag", batch.tag),
                                     ("repository", t.repository),
                                     ("root_commit", batch.root_commit)]
    if batch.codecs is not None:
        checks += [("codecs.set", batch.codecs[0]), ("codecs.root_version", batch.codecs[1])]
    checks += list(zip(("build.profile", "build.profile_version", "build.harness_hash"),
                       batch.build, strict=True))
    for d in batch.datasets:
        checks += [("dataset name", d.get("name")), ("dataset source", d.get("source")),
                   ("dataset checksum", d.get("checksum"))]
    checks += [("dataset name", name) for name in {r["dataset"] for r in batch.results}]
    reasons = {f"{what}: longer than {LIMITS[what]} characters: {str(value)[:40]!r}..."
               for what, value in checks
               if isinstance(value, str) and len(value) > LIMITS[what]}
    for key, top in INT_LIMITS.items():
        values = [r.get(key) for r in batch.results]
        if max((v for v in values if isinstance(v, int)), default=0) <= top:
            continue  # the common case: one pass per key, no per-row branching
        reasons.update(f"results/{i}/{key}: {v} is larger than {top}"
                       for i, v in enumerate(values) if isinstance(v, int) and v > top)
    reasons.update(f"datasets/{i}/page_size: {size} is larger than {2**31 - 1}"
                   for i, d in enumerate(batch.datasets)
                   if isinstance(size := d.get("page_size"), int) and size > 2**31 - 1)
    return sorted(reasons)


class _StaleIds(Exception):
    """A cached configuration or dataset id is no longer in the database."""


def store_batch(session: Session, settings: Settings, batch: Batch,
                uploader: ApiToken | None = None) -> IngestOut:
    """Store a batch; ``uploader`` is the token of an HTTP upload (a machine token limited
    to some hardware tags stores results of those tags' machines only)."""
    try:
        return _store_once(session, settings, batch, uploader)
    except _StaleIds:
        # A cached id's row was deleted since it was read: the cache is empty now.
        session.rollback()
        return _store_once(session, settings, batch, uploader)


def _store_once(session: Session, settings: Settings, batch: Batch,
                uploader: ApiToken | None) -> IngestOut:
    try:
        return _store_batch(session, settings, batch, uploader)
    except BaseException:
        _ids.clear()  # whatever went wrong, the next ingest reads the ids afresh
        raise


def duplicate_results(results: Sequence[StoredResult],
                      keys: list[tuple[Any, ...]]) -> list[str]:
    """The rule for repeated rows: a document measures each (dataset, configuration) once;
    a second result for the same pair is refused, never stored twice or merged silently
    (docs/API.md, "Duplicate results")."""
    first: dict[tuple[Any, ...], int] = {}
    reasons: list[str] = []
    for i, (r, key) in enumerate(zip(results, keys, strict=True)):
        seen = first.setdefault((r["dataset"], *key), i)
        if seen != i:
            reasons.append(f"results/{i}: same dataset and configuration as results/{seen}")
    return capped(reasons, MAX_LISTED)


def _store_batch(session: Session, settings: Settings, batch: Batch,
                 uploader: ApiToken | None) -> IngestOut:
    reasons = _too_long(batch)
    if reasons:
        raise Invalid("document rejected: values too long", reasons)
    results = batch.results
    keys = list(map(_conf_key, results))
    reasons = duplicate_results(results, keys)
    if reasons:
        raise Invalid("document rejected: repeated results", reasons)
    batch.tool = batch.tool[:100] if batch.tool else batch.tool
    found = _existing_document(session, batch.sha256)
    if found is not None:
        return _duplicate(session, found)
    tgt = batch.target

    run: Run | None = None
    if tgt.run_id is not None:
        run = session.get(Run, tgt.run_id)
        if run is None:
            raise Invalid(f"unknown run {tgt.run_id}", [f"run_id: no run {tgt.run_id}"])
    repo = get_repository(session, tgt.repository or settings.default_repository, create=True)
    if tgt.commit:
        commit = ensure_commit(session, repo, tgt.commit)
    elif run is not None:
        from basketbench.models import Commit

        commit_obj = session.get(Commit, run.commit_id)
        assert commit_obj is not None
        commit = commit_obj
    else:
        raise Invalid("no commit: give context.commit, ?commit= or a run_id",
                      ["context.commit: missing"])

    tag = tgt.tag or (run.tag if run is not None else None)
    if tag is None:
        known = session.scalar(select(Machine).where(Machine.name == batch.machine_name)
                               .order_by(Machine.version.desc()).limit(1))
        tag = known.tag if known else str(batch.fingerprint.get("arch") or "untagged")
    if uploader is not None:
        ownership.check_tag(uploader, tag)
    machine, _ = machine_service.register_machine(
        session, batch.machine_name, tag, batch.fingerprint, batch.fingerprint_hash)
    set_name, root_version, libraries = batch.codecs or codec_service.host_codecs(
        batch.fingerprint.get("libraries"))
    codec_set = codec_service.ensure_codec_set(session, set_name, root_version, libraries)

    load = noise.rejudge(batch.load)
    document = ResultDocument(
        sha256=batch.sha256, kind=batch.kind, run_id=run.id if run else None,
        commit_id=commit.id, machine_id=machine.id, tool=batch.tool, backend=batch.backend,
        root_commit=batch.root_commit, parameters=batch.parameters,
        result_count=len(batch.results), created_at=batch.created_at,
        codec_set_id=codec_set.id, build_profile=batch.build[0],
        build_profile_version=batch.build[1], harness_hash=batch.build[2],
        build_id=provenance.ensure_build(session, batch.tool, batch.backend, batch.root_commit,
                                         *batch.build),
        # judged by the server's rule from the document's own snapshots (issue 32: a rule
        # that flagged back-to-back work busy must not keep old documents out of detection)
        load=load, busy=bool(load["busy"]) if load else None,
    )
    session.add(document)
    try:
        session.flush()
    except IntegrityError:  # the same document arrived concurrently
        session.rollback()
        found = _existing_document(session, batch.sha256)
        if found is None:
            raise
        return _duplicate(session, found)

    conf_ids = _configuration_ids(session, results, keys)
    ds_ids = _dataset_ids(session, batch.datasets, {r["dataset"] for r in results})
    # Tuples in RESULT_COLUMNS order: hundreds of rows per document, no per-row dicts.
    ids = (document.id, document.run_id, commit.id, machine.id, codec_set.id)
    rows = [
        (*ids, ds_ids[r["dataset"]], conf_ids[key],
         r.get("uncompressed_bytes"), r.get("compressed_bytes"), r.get("ratio"),
         bool(r.get("roundtrip_ok", True)), r.get("error"), r.get("dictionary_train_ms"),
         *_stats(r.get("compress_mbps")), *_stats(r.get("decompress_mbps")), *_counts(r))
        for r, key in zip(results, keys, strict=True)]
    try:
        _bulk_insert(session, rows)
    except (IntegrityError, psycopg.errors.ForeignKeyViolation) as refused:
        raise _StaleIds from refused  # the reference checks (migration 0010, SQLite's keys)
    _store_screen_points(session, document, rows)
    if settings.detection:  # the detection outbox (changes/detection/queue.py)
        from basketbench.changes.detection.queue import enqueue

        enqueue(session, document)
    if run is not None:
        session.execute(update(Run).where(Run.id == run.id).values(
            result_count=Run.result_count + len(rows),
            machine_id=run.machine_id or machine.id))
    session.commit()
    return IngestOut(document_id=document.id, results=len(rows), duplicate=False,
                     commit=commit.sha, machine_id=machine.id, run_id=document.run_id)


# The results columns ingest writes, with their PostgreSQL types for binary COPY
# (psycopg's C dumpers).
_SPEED_TYPES = ["float8"] * 6 + ["int4", "json"]
COPY_TYPES = {
    **dict.fromkeys(["document_id", "run_id", "commit_id", "machine_id", "codec_set_id",
                     "dataset_id", "configuration_id"], "int4"),
    "uncompressed_bytes": "int8", "compressed_bytes": "int8", "ratio": "float8",
    "roundtrip_ok": "bool", "error": "text", "dictionary_train_ms": "float8",
    **dict(zip([f"c_{k}" for k in STAT_KEYS], _SPEED_TYPES, strict=True)),
    **dict(zip([f"d_{k}" for k in STAT_KEYS], _SPEED_TYPES, strict=True)),
    **{c: "int8" if c.endswith("_instructions") else "float8" for c in COUNT_COLUMNS},
}
RESULT_COLUMNS = tuple(COPY_TYPES)


_SCREEN_COLUMNS = [RESULT_COLUMNS.index(c) for c in (
    "dataset_id", "configuration_id", "codec_set_id", "ratio", "compressed_bytes", "c_median",
    "d_median", "c_instructions_per_mb", "d_instructions_per_mb", "c_samples", "d_samples")]
_ROUNDTRIP_OK = RESULT_COLUMNS.index("roundtrip_ok")


def _store_screen_points(session: Session, document: ResultDocument,
                         rows: list[tuple[Any, ...]]) -> None:
    """What detection's screen reads of this document, packed into one row
    (changes/detection/points.py), in the same transaction: a pass reads its window's
    rows instead of the window's results."""
    from basketbench.changes.detection import points

    session.execute(insert(ScreenPoints), [points.row_of(
        document.id, document.machine_id, document.commit_id,
        [tuple(row[i] for i in _SCREEN_COLUMNS) for row in rows if row[_ROUNDTRIP_OK]])])


def _bulk_insert(session: Session, rows: list[tuple[Any, ...]]) -> None:
    """Binary COPY on PostgreSQL (several times faster than INSERT for hundreds of rows);
    executemany in batches elsewhere. Both run inside the session's transaction."""
    if not rows:
        return
    conn = session.connection()
    if conn.dialect.name != "postgresql":
        for start in range(0, len(rows), BATCH):
            session.execute(insert(Result), [dict(zip(RESULT_COLUMNS, row, strict=True))
                                             for row in rows[start:start + BATCH]])
        return
    # JSON columns go through orjson: registered once per connection (core/db.py).
    raw: Any = conn.connection.driver_connection
    # Under the statement deadline: a database that goes silent mid-COPY is cut off and
    # the request answers 503 (psycopg's OperationalError, web/errors.py), nothing stored.
    try:
        with dbguard.watched(conn.engine, conn.connection.dbapi_connection), \
                raw.cursor() as cur, cur.copy(
                f"COPY results ({', '.join(RESULT_COLUMNS)}) FROM STDIN (FORMAT BINARY)"
                ) as copy:
            copy.set_types([COPY_TYPES[c] for c in RESULT_COLUMNS])
            for row in rows:
                copy.write_row(row)
    except psycopg.OperationalError:
        # SQLAlchemy did not see this error: drop the connection ourselves (the pool would
        # otherwise try to roll back on a cut socket).
        conn.invalidate()
        raise


def ingest_harness(session: Session, settings: Settings, doc: Any, target: Target,
                   uploader: ApiToken | None = None) -> IngestOut:
    return store_batch(session, settings, harness_batch(doc, target), uploader)

