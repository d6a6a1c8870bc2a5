"""Every field the schema bounds is bounded on ingest too: the compiled screen (the fast
path) must not let through what the full JSON Schema rejects, or a bad value reaches the
database. A bad count or io block is a 422 naming the field."""

from __future__ import annotations

from typing import Any

import pytest
from bb_factories import document


@pytest.mark.parametrize(("field", "value"), [
    ("compress_instructions", "abc"),
    ("decompress_instructions", -1),
    ("compress_instructions_per_mb", "many"),
    ("decompress_estimated_cycles", 1.5),
    ("io", {"form": "bogus", "op": "write"}),
    ("io", "not an object"),
])
def test_a_bad_optional_result_field_is_a_422(client: Any, auth: dict[str, str], field: str,
                                              value: Any) -> None:
    doc = document()
    doc["results"][0][field] = value
    r = client.post("/api/v1/results", json=doc, headers=auth)
    assert r.status_code == 422, r.text
    assert field in r.text


def test_valid_counts_still_pass(client: Any, auth: dict[str, str]) -> None:
    doc = document()
    doc["results"][0].update(compress_instructions=123_456, compress_instructions_per_mb=1.5,
                             decompress_instructions=None)
    r = client.post("/api/v1/results", json=doc, headers=auth)
    assert r.status_code == 201, r.text
