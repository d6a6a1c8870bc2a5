"""Validation of rzbench result documents (schemas/harness-result-v1.schema.json).

One place for both `basketbench run` and the backend's ingest: the JSON
Schema check plus the rules the schema cannot express (ratio arithmetic,
errors vs speeds, results naming known datasets).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from basketbench.schemas import result_schema

# rzbench prints doubles with enough digits that this only catches real mistakes.
RATIO_REL_TOLERANCE = 1e-6


class DocumentError(ValueError):
    """A result document that is not valid; `errors` lists every problem found."""

    def __init__(self, source: str, errors: list[str]) -> None:
        self.errors = errors
        shown = "\n  ".join(errors[:20])
        more = f"\n  ... and {len(errors) - 20} more" if len(errors) > 20 else ""
        super().__init__(f"{source}: invalid result document:\n  {shown}{more}")


def load_schema() -> dict[str, Any]:
    return result_schema()


def _validator() -> Draft202012Validator:
    return Draft202012Validator(load_schema(), format_checker=Draft202012Validator.FORMAT_CHECKER)


def json_path(parts: Any) -> str:
    """Render a jsonschema path deque as `$.results[3].ratio`."""
    out = "$"
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def _schema_errors(doc: Any) -> list[str]:
    errors: list[ValidationError] = sorted(
        _validator().iter_errors(doc), key=lambda e: [str(p) for p in e.absolute_path]
    )
    return [f"{json_path(e.absolute_path)}: {e.message}" for e in errors]


def semantic_errors(doc: dict[str, Any]) -> list[str]:
    """The rules beyond the schema; `doc` must already satisfy the schema."""
    errors: list[str] = []
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


def validate_document(doc: Any) -> list[str]:
    """Every problem of `doc` as `<JSON path>: <message>`; empty when it is valid."""
    errors = _schema_errors(doc)
    if errors:  # the semantic rules assume the schema's shape
        return errors
    return semantic_errors(doc)


# The backend's ingest looked this up by its first, private name.
_semantic_errors = semantic_errors


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
