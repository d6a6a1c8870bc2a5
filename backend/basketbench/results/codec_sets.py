"""Codec sets of result documents: find or create, and describe them for the API.

A document's top-level ``codecs`` (set name, ROOT release, the library versions the codec
layer reported at run time) names its set; a document without one was measured with the
host's libraries, those of its machine fingerprint.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from typing import Any

import orjson
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from basketbench.core.engine_cache import WrittenOnce
from basketbench.measure.document.screen import Codecs
from basketbench.models import CodecSet

HOST = "host"
BUILTIN = "builtin"
LEGACY = "legacy"  # the series of results stored before codec sets existed

# A codec set never changes once written: compare and history read them from a per-engine
# cache (a handful of rows) instead of loading ORM objects on every request.
_by_id: WrittenOnce[int, dict[str, Any]] = WrittenOnce(
    lambda session: ((row.id, codec_set_out(row))
                     for row in session.scalars(select(CodecSet))))  # a handful of rows


def codec_set_key(name: str, root_version: str | None, libraries: dict[str, str]) -> str:
    canonical = orjson.dumps([name, root_version, libraries], option=orjson.OPT_SORT_KEYS)
    return hashlib.sha256(canonical).hexdigest()


def series_key(name: str, key: str, root_version: str | None = None) -> str:
    """ROOT's own codecs -- builtin (the commit pins them) or a release's bundled copies
    (root-6.40.00, ...) -- are one series whose versions vary per point; any other set is
    one series per exact versions (a host upgrade is a new series)."""
    return BUILTIN if name == BUILTIN or root_version else key


def series_keys(session: Session, ids: Iterable[int | None]) -> dict[int | None, str]:
    """The series key of each codec set id (None: the legacy series). Analysis and
    detection both group results by it, so a plot and its changes show one series."""
    wanted = set(ids)
    out: dict[int | None, str] = {None: LEGACY} if None in wanted else {}
    known = cached_codec_sets(session, (i for i in wanted if i is not None))
    out.update({set_id: row["series_key"] for set_id, row in known.items()})
    return out


def measured_codecs(codecs: Codecs | None, host_libraries: Mapping[str, object] | None,
                    ) -> tuple[str, str | None, dict[str, str]]:
    """(set, ROOT release, library versions) a document measured with: its ``codecs``,
    else the host's libraries (its machine fingerprint's)."""
    if codecs is not None:
        libraries = codecs.get("libraries") or {}
        return (str(codecs["set"]), codecs.get("root_version"),
                {str(k): str(v) for k, v in libraries.items()})
    return host_codecs(host_libraries)


def host_codecs(libraries: Mapping[str, object] | None) -> tuple[str, None, dict[str, str]]:
    """The host set: the library versions a machine fingerprint lists."""
    return HOST, None, {str(k): str(v) for k, v in (libraries or {}).items()}


def ensure_codec_set(session: Session, name: str, root_version: str | None,
                     libraries: dict[str, str]) -> CodecSet:
    key = codec_set_key(name, root_version, libraries)
    found = session.scalar(select(CodecSet).where(CodecSet.key == key))
    if found is not None:
        return found
    row = CodecSet(key=key, name=name, root_version=root_version, libraries=libraries,
                   series_key=series_key(name, key, root_version))
    try:
        with session.begin_nested():
            session.add(row)
            session.flush()
    except IntegrityError:  # created concurrently
        found = session.scalar(select(CodecSet).where(CodecSet.key == key))
        if found is None:
            raise
        return found
    return row


def codec_set_out(row: CodecSet) -> dict[str, Any]:
    """Shaped like schemas.refs.CodecSetOut."""
    return {"id": row.id, "set": row.name, "root_version": row.root_version,
            "libraries": dict(row.libraries or {}), "series_key": row.series_key}


def describe(session: Session, ids: set[int]) -> dict[int, dict[str, Any]]:
    return cached_codec_sets(session, ids) if ids else {}


def series_ids(session: Session, key_or_name: str) -> list[int]:
    """The codec set ids of one series, given a series key or a set name (a set name that
    has several series of exact versions means all of them; callers narrow it)."""
    rows = session.scalars(select(CodecSet.id).where(
        (CodecSet.series_key == key_or_name) | (CodecSet.name == key_or_name)))
    return list(rows)


def machine_codec_sets(session: Session, machine_id: int) -> list[dict[str, Any]]:
    """The codec sets a machine measured with: documents, results, newest commit; newest
    first. From the small documents table."""
    from sqlalchemy import func

    from basketbench.models import Commit, ResultDocument

    rows = session.execute(
        select(ResultDocument.codec_set_id, func.count(), func.sum(ResultDocument.result_count),
               func.max(Commit.order))
        .join(Commit, Commit.id == ResultDocument.commit_id)
        .where(ResultDocument.machine_id == machine_id, ResultDocument.codec_set_id.isnot(None))
        .group_by(ResultDocument.codec_set_id)).all()
    sets = describe(session, {r[0] for r in rows if r[0] is not None})
    out = [{**sets[r[0]], "documents": int(r[1]), "results": int(r[2] or 0),
            "latest_order": int(r[3] or 0)} for r in rows if r[0] in sets]
    return sorted(out, key=lambda s: -s["latest_order"])


def cached_codec_sets(session: Session, ids: Iterable[int]) -> dict[int, dict[str, Any]]:
    """Codec sets by id, shaped like schemas.refs.CodecSetOut (shared: do not modify)."""
    return _by_id.lookup(session, ids)
