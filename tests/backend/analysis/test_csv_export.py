"""Issue 22: CSV exports answer their real status (the query runs before the status line),
end a stream that fails later with the documented marker, and neutralise formula cells."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from typing import Any

import pytest
from basketbench.web import listing
from basketbench.web.listing import CSV_ERROR_MARKER, csv_cell
from bb_factories import document


def test_out_of_range_parameter_is_400_not_a_cut_200(client, auth):
    r = client.get("/api/v1/results?format=csv&setting=100000000000001", headers=auth)
    json_variant = client.get("/api/v1/results?setting=100000000000001", headers=auth)
    assert json_variant.status_code == 400
    assert r.status_code == 400, r.text
    assert r.json()["error"]["code"] == "bad_request"


def test_failure_after_the_first_chunk_ends_with_the_marker(client, auth, monkeypatch):
    doc = document(datasets=("nanoaod", "physlite"))
    assert client.post("/api/v1/results", json=doc, headers=auth).status_code == 201
    monkeypatch.setattr(listing, "STREAM_CHUNK", 2)
    real = listing._flatten
    calls = {"n": 0}

    def flaky(prefix: str, value: Any, out: dict[str, Any]) -> None:
        if prefix == "":  # one call per row
            calls["n"] += 1
            if calls["n"] == 3:  # the second chunk
                raise RuntimeError("connection lost")
        real(prefix, value, out)

    monkeypatch.setattr(listing, "_flatten", flaky)
    r = client.get("/api/v1/results?format=csv", headers=auth)
    assert r.status_code == 200
    lines = r.text.splitlines()
    assert lines[-1] == f"{CSV_ERROR_MARKER}: export incomplete (RuntimeError); retry"
    assert len(lines) == 1 + 2 + 1  # header, the first chunk's rows, the marker


def test_a_complete_export_has_no_marker(client, auth):
    assert client.post("/api/v1/results", json=document(), headers=auth).status_code == 201
    r = client.get("/api/v1/results?format=csv", headers=auth)
    assert r.status_code == 200 and CSV_ERROR_MARKER not in r.text
    rows = list(csv.DictReader(io.StringIO(r.text)))
    assert len(rows) == len(document()["results"])


@pytest.mark.parametrize(("text", "cell"), [
    ("=HYPERLINK(\"http://x\")", "'=HYPERLINK(\"http://x\")"), ("+1", "'+1"),
    ("-2+3", "'-2+3"), ("@SUM(A1)", "'@SUM(A1)"), ("\tx", "'\tx"), ("\rx", "'\rx"),
    ("zstd", "zstd"), ("", ""), ("a=b", "a=b")])
def test_formula_cells_get_a_leading_quote(text: str, cell: str) -> None:
    assert csv_cell(text) == cell


def test_exported_formula_text_is_neutralised(client, auth):
    doc = document()
    doc["results"][0].update(error="=cmd|' /C calc'!A0", roundtrip_ok=False,
                             compress_mbps=None, decompress_mbps=None)
    assert client.post("/api/v1/results", json=doc, headers=auth).status_code == 201, doc
    rows = _rows(client.get("/api/v1/results?format=csv", headers=auth).text)
    errors = [r["error"] for r in rows if r["error"]]
    assert errors == ["'=cmd|' /C calc'!A0"]
    # numbers stay numbers, negative or not
    assert all(not r["ratio"].startswith("'") for r in rows)


def _rows(text: str) -> Iterator[dict[str, str]]:
    return csv.DictReader(io.StringIO(text))
