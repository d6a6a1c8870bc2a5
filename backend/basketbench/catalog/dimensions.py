"""Per-engine caches of rows that never change once written.

A configuration's identity fields, a dataset's name and a build's columns are immutable
(codec sets keep a cache of their own in results/codec_sets.py), so
compare and history look them up here instead of loading ORM objects on every request (building
hundreds of ORM objects cost more than the SQL). Per engine (core/engine_cache.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from basketbench.core.db import engine_of
from basketbench.core.engine_cache import PerEngine
from basketbench.models import Build, Configuration, Dataset
from basketbench.models.experiment import configuration_label
from basketbench.schemas.refs import ConfigurationOut

_configurations: PerEngine[dict[int, ConfigurationOut]] = PerEngine(dict)
_datasets: PerEngine[dict[int, str]] = PerEngine(dict)
_builds: PerEngine[dict[int, tuple[Any, ...]]] = PerEngine(dict)

_CONF_COLUMNS = (Configuration.id, Configuration.setting, Configuration.algorithm,
                 Configuration.codec, Configuration.level, Configuration.preconditioner,
                 Configuration.dictionary_size, Configuration.basket_size, Configuration.mode,
                 Configuration.threads)


def configurations(session: Session, ids: Iterable[int]) -> dict[int, ConfigurationOut]:
    cache = _configurations.of(engine_of(session))
    wanted = set(ids)
    missing = wanted - cache.keys()
    if missing:
        # All of them: the table is small (hundreds of rows) and one query is cheaper
        # than an IN list that changes every time.
        for row in session.execute(select(*_CONF_COLUMNS)).all():
            (cid, setting, algorithm, codec, level, pre, dsize, bsize, mode, threads) = tuple(row)
            cache[cid] = ConfigurationOut(
                id=cid, setting=setting, algorithm=algorithm, codec=codec, level=level,
                preconditioner=pre, dictionary_size=dsize, basket_size=bsize, mode=mode,
                threads=threads, label=configuration_label(codec, level, pre, dsize, bsize,
                                                           mode, threads))
    return {i: cache[i] for i in wanted if i in cache}


def dataset_names(session: Session, ids: Iterable[int]) -> dict[int, str]:
    cache = _datasets.of(engine_of(session))
    wanted = set(ids)
    if wanted - cache.keys():
        for did, name in session.execute(select(Dataset.id, Dataset.name)).all():
            cache[did] = name
    return {i: cache[i] for i in wanted if i in cache}


_BUILD_COLUMNS = (Build.id, Build.tool, Build.backend, Build.root_commit, Build.build_profile,
                  Build.build_profile_version, Build.harness_hash)


def builds(session: Session, ids: Iterable[int]) -> dict[int, tuple[Any, ...]]:
    """Each build's columns (results/provenance.py BUILD_COLUMNS' order) by id."""
    cache = _builds.of(engine_of(session))
    wanted = set(ids)
    if wanted - cache.keys():
        for bid, *columns in session.execute(select(*_BUILD_COLUMNS)).all():
            cache[bid] = tuple(columns)
    return {i: cache[i] for i in wanted if i in cache}
