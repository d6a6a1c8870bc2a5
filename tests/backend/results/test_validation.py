"""The fast ingest screen never accepts what the JSON Schema rejects."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

from basketbench.measure.document.schema import result_schema
from basketbench.measure.document.screen import passes_screen
from basketbench.measure.document.validation import validate_result_document
from bb_factories import document
from jsonschema import Draft202012Validator

SCHEMA = Draft202012Validator(result_schema())
BAD_VALUES: list[Any] = [None, "x", -1, 1.5, True, [], {}, 10**6, 0]


def paths(obj: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield (*prefix, k)
            yield from paths(v, (*prefix, k))
    elif isinstance(obj, list) and obj:
        yield (*prefix, 0)
        yield from paths(obj[0], (*prefix, 0))


def mutate(doc: dict[str, Any], path: tuple[Any, ...], value: Any, delete: bool) -> Any:
    out = copy.deepcopy(doc)
    parent = out
    for p in path[:-1]:
        parent = parent[p]
    if delete:
        del parent[path[-1]]
    else:
        parent[path[-1]] = value
    return out


def test_screen_accepts_good_documents():
    assert passes_screen(document())
    assert passes_screen(document(commit=None, machine=None, tag=None))


def test_screen_is_never_more_lenient_than_the_schema():
    base = document()
    base["results"] = base["results"][:1]
    checked = 0
    for path in paths(base):
        variants = [mutate(base, path, None, delete=True)]
        variants += [mutate(base, path, v, delete=False) for v in BAD_VALUES]
        for doc in variants:
            if passes_screen(doc):
                assert SCHEMA.is_valid(doc), f"screen accepted an invalid document at {path}"
            checked += 1
    extra = copy.deepcopy(base)
    extra["unexpected"] = 1
    assert not passes_screen(extra) and not SCHEMA.is_valid(extra)
    assert checked > 500


def test_rejected_documents_get_the_full_reasons():
    doc = document()
    doc["results"][0]["threads"] = 0
    reasons = validate_result_document(doc)
    assert reasons and any("threads" in r for r in reasons)
