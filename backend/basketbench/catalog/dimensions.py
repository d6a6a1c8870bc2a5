"""Per-engine caches of rows that never change once written.

A configuration's identity fields, a dataset's name and a build's columns are immutable
(codec sets keep a cache of their own in results/codec_sets.py), so
compare and history look them up here instead of loading ORM objects on every request (building
hundreds of ORM objects cost more than the SQL). Per engine, a miss reading the whole
table (core/engine_cache.py ``WrittenOnce``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from basketbench.core.engine_cache import WrittenOnce
from basketbench.models import Build, Configuration, Dataset
from basketbench.models.experiment import configuration_label
from basketbench.schemas.refs import ConfigurationOut

_CONF_COLUMNS = (Configuration.id, Configuration.setting, Configuration.algorithm,
                 Configuration.codec, Configuration.level, Configuration.preconditioner,
                 Configuration.dictionary_size, Configuration.basket_size, Configuration.mode,
                 Configuration.threads)


def _all_configurations(session: Session) -> Iterator[tuple[int, ConfigurationOut]]:
    for row in session.execute(select(*_CONF_COLUMNS)).all():
        (cid, setting, algorithm, codec, level, pre, dsize, bsize, mode, threads) = tuple(row)
        yield cid, ConfigurationOut(
            id=cid, setting=setting, algorithm=algorithm, codec=codec, level=level,
            preconditioner=pre, dictionary_size=dsize, basket_size=bsize, mode=mode,
            threads=threads, label=configuration_label(codec, level, pre, dsize, bsize,
                                                       mode, threads))


_BUILD_COLUMNS = (Build.id, Build.tool, Build.backend, Build.root_commit, Build.build_profile,
                  Build.build_profile_version, Build.harness_hash)

_configurations = WrittenOnce(_all_configurations)
_datasets: WrittenOnce[int, str] = WrittenOnce(
    lambda session: [(did, name) for did, name in session.execute(
        select(Dataset.id, Dataset.name))])
_builds: WrittenOnce[int, tuple[Any, ...]] = WrittenOnce(
    lambda session: ((bid, tuple(columns))
                     for bid, *columns in session.execute(select(*_BUILD_COLUMNS))))


def configurations(session: Session, ids: Iterable[int]) -> dict[int, ConfigurationOut]:
    return _configurations.lookup(session, ids)


def dataset_names(session: Session, ids: Iterable[int]) -> dict[int, str]:
    return _datasets.lookup(session, ids)


def builds(session: Session, ids: Iterable[int]) -> dict[int, tuple[Any, ...]]:
    """Each build's columns (results/provenance.py BUILD_COLUMNS' order) by id."""
    return _builds.lookup(session, ids)
