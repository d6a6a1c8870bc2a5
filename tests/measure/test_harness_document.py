"""Result-document validation (schema + the rules the schema cannot express)."""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from basketbench.measure.document.batch import parse_document
from basketbench.measure.document.contract import (
    DocumentError,
    load_document,
    load_schema,
    validate_document,
)


def stats(median: float) -> dict[str, Any]:
    return {
        "median": median,
        "min": median * 0.98,
        "max": median * 1.01,
        "mean": median,
        "stddev": median * 0.01,
        "cv": 0.01,
        "samples": [median * 0.98, median, median * 1.01],
    }


def result(**overrides: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "dataset": "hzz",
        "codec": "zstd",
        "setting": 505,
        "algorithm": 5,
        "level": 5,
        "preconditioner": "none",
        "dictionary_size": 0,
        "basket_size": 0,
        "mode": "basket",
        "threads": 1,
        "uncompressed_bytes": 645390,
        "compressed_bytes": 214362,
        "ratio": 645390 / 214362,
        "compress_mbps": stats(180.0),
        "decompress_mbps": stats(900.0),
        "roundtrip_ok": True,
        "error": None,
    }
    base.update(overrides)
    return base


def document() -> dict[str, Any]:
    return {
        "schema_version": "1",
        "tool": {"name": "rzbench", "version": "0.1.0"},
        "created_at": "2026-11-20T23:00:00Z",
        "backend": "rootcompat",
        "root_commit": None,
        "machine": {
            "hostname": "h",
            "arch": "x86_64",
            "cpu_model": "Some CPU",
            "isa": {"avx2": True},
            "cores_logical": 2,
            "kernel": "6.1",
            "compiler": "gcc 12",
            "libraries": {"zstd": "1.5.4"},
            "fingerprint_hash": "0123456789abcdef",
        },
        "parameters": {"min_samples": 9, "target_pass_ms": 100},
        "datasets": [
            {
                "name": "hzz",
                "source": "hzz.bbc",
                "bytes": 645390,
                "baskets": 57,
                "checksum": "xxh64:c3f446bbdeeba03d",
            }
        ],
        "results": [result()],
    }


def test_schema_is_the_repository_file() -> None:
    schema = load_schema()
    assert schema["$id"].endswith("harness-result-v1.schema.json")


def test_valid_document() -> None:
    assert validate_document(document()) == []


@pytest.mark.parametrize(
    ("mutate", "expected"),
    [
        (lambda d: d.pop("machine"), "$: 'machine' is a required property"),
        (
            lambda d: d["results"][0].update(ratio=-1),
            "$.results[0].ratio: -1 is less than the minimum of 0",
        ),
        (
            lambda d: d["results"][0].update(codec="brotli"),
            "$.results[0].codec: 'brotli' is not one of",
        ),
        (lambda d: d["results"][0]["compress_mbps"].pop("samples"), "$.results[0].compress_mbps"),
        (
            lambda d: d["results"][0].update(ratio=4.0),
            "$.results[0].ratio: 4.0 != uncompressed_bytes / compressed_bytes",
        ),
        (
            lambda d: d["results"][0].update(error="boom"),
            "$.results[0]: a failed result (error set) must have null speeds",
        ),
        (
            lambda d: d["results"][0].update(roundtrip_ok=False),
            "$.results[0]: roundtrip_ok is false but error is null",
        ),
        (
            lambda d: d["results"][0].update(dataset="other"),
            "$.results[0].dataset: 'other' is not among $.datasets",
        ),
        (
            lambda d: d["results"][0].update(setting=404),
            "$.results[0].setting: 404 != algorithm*100 + level",
        ),
    ],
)
def test_invalid_documents_name_the_path(mutate: Any, expected: str) -> None:
    doc = document()
    mutate(doc)
    errors = validate_document(doc)
    assert any(e.startswith(expected) for e in errors), errors


def test_failed_result_is_valid_when_consistent() -> None:
    doc = document()
    doc["results"].append(
        result(
            compress_mbps=None,
            decompress_mbps=None,
            roundtrip_ok=False,
            error="R__unzip: bad header",
        )
    )
    assert validate_document(doc) == []


def test_load_document(tmp_path: Path) -> None:
    good = tmp_path / "good.json"
    good.write_text(json.dumps(document()))
    assert load_document(good)["results"][0]["setting"] == 505
    bad = tmp_path / "bad.json"
    broken = copy.deepcopy(document())
    broken["results"][0]["ratio"] = 1.0
    bad.write_text(json.dumps(broken))
    with pytest.raises(DocumentError, match=r"\$\.results\[0\]\.ratio"):
        load_document(bad)
    (tmp_path / "x.json").write_text("{")
    with pytest.raises(DocumentError, match="not valid JSON"):
        load_document(tmp_path / "x.json")


def test_parse_document_types_the_parts_without_copying() -> None:
    doc = document()
    doc["context"] = {"commit": "a" * 40, "run_id": 7}
    doc["codecs"] = {"set": "host", "libraries": {"zstd": "1.5.4"}}
    parsed = parse_document(doc)
    assert parsed.document is doc and parsed.results is doc["results"]
    assert parsed.datasets is doc["datasets"] and parsed.machine is doc["machine"]
    assert parsed.created_at == datetime(2026, 11, 20, 23, 0, tzinfo=UTC)
    assert parsed.tool_label == "rzbench 0.1.0" and parsed.backend == "rootcompat"
    assert parsed.context["run_id"] == 7 and parsed.codecs is not None
    assert parsed.build is None and parsed.load is None and parsed.root_commit is None
    assert parse_document(document()).context == {}


def test_parse_document_lists_the_problems() -> None:
    doc = document()
    doc["results"][0]["ratio"] = 1.0
    with pytest.raises(DocumentError, match=r"upload: invalid result document") as raised:
        parse_document(doc, "upload")
    assert [e.split(":")[0] for e in raised.value.errors] == ["$.results[0].ratio"]
    with pytest.raises(DocumentError):
        parse_document([])
