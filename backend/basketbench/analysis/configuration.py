"""Which configuration a request names: one by id or by its fields (history), or every
configuration with the fields but the setting (tradeoff)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from basketbench.catalog import dimensions as dimcache
from basketbench.core.errors import BadRequest, NotFound
from basketbench.models import Configuration
from basketbench.schemas.refs import ConfigurationOut


@dataclass
class ConfigSelector:
    """A configuration by id or by its fields (setting is needed for history)."""

    configuration_id: int | None = None
    setting: int | None = None
    codec: str | None = None
    preconditioner: str = "none"
    dictionary_size: int = 0
    basket_size: int = 0
    mode: str = "basket"
    threads: int = 1

    def clauses(self, with_setting: bool = True) -> list[Any]:
        out = [Configuration.preconditioner == self.preconditioner,
               Configuration.dictionary_size == self.dictionary_size,
               Configuration.basket_size == self.basket_size,
               Configuration.mode == self.mode, Configuration.threads == self.threads]
        if with_setting and self.setting is not None:
            out.append(Configuration.setting == self.setting)
        if self.codec is not None:
            out.append(Configuration.codec == self.codec)
        return out

    def matches(self, conf: ConfigurationOut) -> bool:
        """``clauses(with_setting=False)`` applied to a configuration already loaded (the
        per-process cache), not in SQL."""
        return (conf.preconditioner == self.preconditioner
                and conf.dictionary_size == self.dictionary_size
                and conf.basket_size == self.basket_size and conf.mode == self.mode
                and conf.threads == self.threads
                and (self.codec is None or conf.codec == self.codec))


@lru_cache(maxsize=2)
def _configuration_columns(with_codec: bool) -> tuple[Any, Any]:
    """ConfigSelector.clauses() with a setting, as parameters (built once): the first and
    the second configuration matching, as two scalar subqueries that ride on another
    lookup's row (history's machine and dataset: one round trip for the three)."""
    fields = ["setting", "preconditioner", "dictionary_size", "basket_size", "mode", "threads"]
    if with_codec:
        fields.append("codec")
    matching = (select(Configuration.id)
                .where(*(getattr(Configuration, f) == bindparam(f) for f in fields))
                .order_by(Configuration.id))
    return (matching.limit(1).scalar_subquery().label("first_configuration"),
            matching.offset(1).limit(1).scalar_subquery().label("second_configuration"))


def configuration_lookup(sel: ConfigSelector) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """The scalar subqueries (and their parameters) resolve_configuration needs for a
    selector naming its fields; none for one naming an id (the per-process cache has it)
    or naming neither (a 400)."""
    if sel.configuration_id is not None or sel.setting is None:
        return (), {}
    params = {"setting": sel.setting, "codec": sel.codec, "preconditioner": sel.preconditioner,
              "dictionary_size": sel.dictionary_size, "basket_size": sel.basket_size,
              "mode": sel.mode, "threads": sel.threads}
    return _configuration_columns(sel.codec is not None), params


def resolve_configuration(session: Session, sel: ConfigSelector,
                          found: tuple[Any, ...] = ()) -> ConfigurationOut:
    """The one configuration ``sel`` names, as columns (no ORM object): history's. ``found``
    are the values of configuration_lookup's subqueries, read with another lookup."""
    if sel.configuration_id is not None:
        by_id = dimcache.configurations(session, [sel.configuration_id])
        if sel.configuration_id not in by_id:
            raise NotFound(f"unknown configuration {sel.configuration_id}")
        return by_id[sel.configuration_id]
    if sel.setting is None:
        raise BadRequest("give configuration_id or setting")
    ids = [i for i in found if i is not None]
    if not ids:
        raise NotFound("no configuration matches these fields")
    if len(ids) > 1:
        raise BadRequest("several configurations match; give codec or configuration_id", ids)
    return dimcache.configurations(session, ids)[ids[0]]
