"""The one place that validates a harness result document on ingest.

The rules live in ``basketbench.harness.document.validate_document`` (JSON Schema plus
the rules a schema cannot express) when the harness package provides it; otherwise
JSON Schema (draft 2020-12) against the same schema file plus ``_semantic_fallback``.

jsonschema needs ~60 us per result, too slow for bulk ingest, so a compiled pydantic
screen (schemas/harness_screen.py, at least as strict as the schema) goes first: a
document it accepts only gets the cheap semantic rules; a document it rejects goes
through the full validator, which decides and lists every reason.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

from basketbench.schemas import result_schema
from basketbench.schemas.harness_screen import passes_screen


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
    rules = getattr(document, "semantic_errors", None) or getattr(
        document, "_semantic_errors", None)
    return rules if callable(rules) else None


def validate_result_document(doc: Any) -> list[str]:
    """Every reason the document is unacceptable; empty when it can be stored."""
    semantic = _semantic_validator()
    if semantic is not None and passes_screen(doc):
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
