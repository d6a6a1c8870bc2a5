"""The rules of rzbench result documents (harness-result-v1.schema.json, beside this file).

One place for both `basketbench run` and the backend's ingest: the JSON Schema check plus
the rules the schema cannot express (ratio arithmetic, errors vs speeds, results naming
known datasets), DocumentError, and load_document for files. The backend reaches them
through parse_document (batch.py), which runs the faster ingest check (validation.py).
"""

from __future__ import annotations

import itertools
import json
import math
import re
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from basketbench.measure.document.limits import MAX_LISTED, MAX_MESSAGE, MAX_RESULTS
from basketbench.measure.document.schema import result_schema
from basketbench.measure.document.screen import result_passes_screen

# rzbench prints doubles with enough digits that this only catches real mistakes.
RATIO_REL_TOLERANCE = 1e-6
# RFC 3339 date-time, as rzbench writes it (`2026-11-23T05:41:07Z`, offsets allowed).
_DATE_TIME = re.compile(
    r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")


class DocumentError(ValueError):
    """A result document that is not valid; `errors` lists its problems (at most
    MAX_LISTED, then a line counting the rest)."""

    def __init__(self, source: str, errors: list[str]) -> None:
        self.errors = errors
        shown = "\n  ".join(errors)
        super().__init__(f"{source}: invalid result document:\n  {shown}")


def load_schema() -> dict[str, Any]:
    return result_schema()


@lru_cache
def _validator() -> Draft202012Validator:
    return Draft202012Validator(load_schema(), format_checker=Draft202012Validator.FORMAT_CHECKER)


def json_path(parts: Any) -> str:
    """Render a jsonschema path deque as `$.results[3].ratio`."""
    out = "$"
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def _message(error: ValidationError) -> str:
    text = f"{json_path(error.absolute_path)}: {error.message}"
    return text if len(text) <= MAX_MESSAGE else f"{text[:MAX_MESSAGE]}..."


def _schema_errors(doc: Any, limit: int) -> list[str]:
    """The first ``limit`` schema problems, in the schema's (document) order. jsonschema
    yields them lazily: nothing past the limit is ever built (sorting them all took
    3.6 GB for 50 000 empty results)."""
    return [_message(e) for e in itertools.islice(_validator().iter_errors(doc), limit)]


def too_many_results(doc: Any) -> list[str]:
    """The result-count limit, checked before anything else looks at the results."""
    results = doc.get("results") if isinstance(doc, dict) else None
    if isinstance(results, list) and len(results) > MAX_RESULTS:
        return [f"$.results: {len(results)} results, more than the {MAX_RESULTS} one "
                "document may hold; split it"]
    return []


def parse_created_at(value: str) -> datetime:
    """``created_at`` as an aware datetime (``Z``, lower case and a space separator allowed,
    as RFC 3339 permits); ValueError when it is not one."""
    return datetime.fromisoformat(value.upper().replace("Z", "+00:00").replace(" ", "T"))


def created_at_errors(doc: dict[str, Any]) -> list[str]:
    """`created_at` is an RFC 3339 date-time (jsonschema checks `format` only when an
    optional package is installed; this rule always holds)."""
    value = doc.get("created_at")
    if not isinstance(value, str):
        return []  # the schema's type rule reports it
    if _DATE_TIME.match(value):
        try:
            parse_created_at(value)
            return []
        except ValueError:
            pass
    return [f"$.created_at: {value[:40]!r} is not an RFC 3339 date-time "
            "(e.g. 2026-11-23T05:41:07Z)"]


def semantic_errors(doc: dict[str, Any]) -> list[str]:
    """The rules beyond the schema; `doc` must already satisfy the schema."""
    errors: list[str] = created_at_errors(doc)
    names = {d["name"] for d in doc["datasets"]}
    if len(names) != len(doc["datasets"]):
        errors.append("$.datasets: dataset names are not unique")
    for i, result in enumerate(doc["results"]):
        where = f"$.results[{i}]"
        if result["dataset"] not in names:
            errors.append(f"{where}.dataset: {result['dataset']!r} is not among $.datasets")
        failed = result["error"] is not None
        if failed and (
            result["compress_mbps"] is not None or result["decompress_mbps"] is not None
        ):
            errors.append(f"{where}: a failed result (error set) must have null speeds")
        # end-to-end I/O measures one direction: write MB/s or read MB/s
        needed = {"io-write": ("compress_mbps",), "io-read": ("decompress_mbps",)}.get(
            result["mode"], ("compress_mbps", "decompress_mbps"))
        if not failed and any(result[key] is None for key in needed):
            errors.append(f"{where}: a successful result needs {' and '.join(needed)}")
        if not failed and not result["roundtrip_ok"]:
            errors.append(f"{where}: roundtrip_ok is false but error is null")
        compressed = result["compressed_bytes"]
        if compressed > 0 and not failed:
            expected = result["uncompressed_bytes"] / compressed
            if not math.isclose(result["ratio"], expected, rel_tol=RATIO_REL_TOLERANCE):
                errors.append(
                    f"{where}.ratio: {result['ratio']} != uncompressed_bytes / compressed_bytes "
                    f"= {expected:.9g}"
                )
        if (
            result["setting"] != 0
            and result["setting"] != result["algorithm"] * 100 + result["level"]
        ):
            errors.append(f"{where}.setting: {result['setting']} != algorithm*100 + level")
        for key in ("compress_mbps", "decompress_mbps"):
            stats = result[key]
            if stats is not None and not stats["min"] <= stats["median"] * (1 + 1e-9):
                errors.append(f"{where}.{key}: min {stats['min']} > median {stats['median']}")
    return errors


def capped(errors: list[str], limit: int = MAX_LISTED) -> list[str]:
    """At most ``limit`` problems, then one line counting the ones left out."""
    if len(errors) <= limit:
        return errors
    return [*errors[:limit], f"... and {len(errors) - limit} more problems not listed"]


def invalid_result_count(doc: dict[str, Any]) -> int:
    """How many results break the schema, by the compiled screen (a few us per result)."""
    return sum(not result_passes_screen(r) for r in doc.get("results") or ())


def validate_document(doc: Any, limit: int = MAX_LISTED) -> list[str]:
    """The problems of `doc` as `<JSON path>: <message>`, at most ``limit`` of them plus a
    last line counting the rest; empty when it is valid. Time and memory are linear in the
    document's size whatever it holds."""
    errors = too_many_results(doc)
    if errors:
        return errors
    errors = _schema_errors(doc, limit + 1)
    if len(errors) > limit:
        results = doc.get("results") if isinstance(doc, dict) else None
        total = len(results) if isinstance(results, list) else 0
        bad = invalid_result_count(doc) if total else 0
        return [*errors[:limit], f"... listing stopped at {limit} problems; "
                f"{bad} of {total} results are invalid"]
    if errors:  # the semantic rules assume the schema's shape
        return errors
    return capped(semantic_errors(doc), limit)



def load_document(path: str | Path) -> dict[str, Any]:
    """Read and validate a result document; raise DocumentError listing the problems."""
    path = Path(path)
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise DocumentError(str(path), [f"cannot read: {exc.strerror or exc}"]) from exc
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DocumentError(str(path), [f"not valid JSON: {exc}"]) from exc
    errors = validate_document(doc)
    if errors:
        raise DocumentError(str(path), errors)
    result: dict[str, Any] = doc
    return result
