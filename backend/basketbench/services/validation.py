"""The one place that validates a harness result document on ingest.

The rules live in ``basketbench.harness.document.validate_document`` (JSON Schema plus
the rules a schema cannot express) when the harness package provides it; otherwise
JSON Schema (draft 2020-12) against the same schema file plus ``_semantic_fallback``.

jsonschema walks a large document slowly (milliseconds per result), too slow for bulk
ingest, so a compiled validator (fastjsonschema, same schema file) screens first: a
document it accepts only gets the cheap semantic rules; a document it rejects goes
through the full validator, which lists every reason.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from basketbench.schemas import result_schema


@lru_cache
def _full_validator() -> Callable[[Any], list[str]]:
    try:
        from basketbench.harness.document import validate_document

        return validate_document
    except ImportError:
        pass
    from jsonschema import Draft202012Validator

    validator = Draft202012Validator(
        result_schema(), format_checker=Draft202012Validator.FORMAT_CHECKER)

    def validate(doc: Any) -> list[str]:
        reasons = []
        for err in sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path)):
            path = "/".join(str(p) for p in err.absolute_path) or "(document)"
            reasons.append(f"{path}: {err.message}")
        return reasons or _semantic_fallback(doc)

    return validate


@lru_cache
def _semantic_validator() -> Callable[[Any], list[str]] | None:
    """The harness's schema-independent rules, if it exposes them separately."""
    try:
        from basketbench.harness import document
    except ImportError:
        return _semantic_fallback
    rules = getattr(document, "_semantic_errors", None)
    return rules if callable(rules) else None


@lru_cache
def _fast_validator() -> Callable[[Any], Any] | None:
    try:
        import fastjsonschema
    except ImportError:
        return None
    schema = copy.deepcopy(result_schema())
    # Nothing in this schema differs between draft-07 and 2020-12 ($defs are plain refs).
    schema["$schema"] = "http://json-schema.org/draft-07/schema#"
    schema.pop("$id", None)
    validate: Callable[[Any], Any] = fastjsonschema.compile(schema)
    return validate


def validate_result_document(doc: Any) -> list[str]:
    """Every reason the document is unacceptable; empty when it can be stored."""
    fast, semantic = _fast_validator(), _semantic_validator()
    if fast is not None and semantic is not None:
        try:
            fast(doc)
        except Exception:  # JsonSchemaValueException: let the full validator explain
            return list(_full_validator()(doc))
        return list(semantic(doc))
    return list(_full_validator()(doc))


def _semantic_fallback(doc: Any) -> list[str]:
    """The rules the schema cannot express, when the harness package is absent."""
    reasons: list[str] = []
    names = {d["name"] for d in doc.get("datasets", [])}
    for i, res in enumerate(doc.get("results", [])):
        if res["dataset"] not in names:
            reasons.append(f"results/{i}/dataset: {res['dataset']!r} is not in datasets")
        if res.get("error") is None and not res.get("roundtrip_ok", True):
            reasons.append(f"results/{i}: roundtrip_ok is false but error is null")
    return reasons
