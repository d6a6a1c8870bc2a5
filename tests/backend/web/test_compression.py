"""web/compression.py: gzip by ISA-L, as clients see it."""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Iterator

import pytest
from basketbench.web.compression import GZipMiddleware
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.testclient import TestClient

BIG = ("history point, " * 20 + "\n") * 400  # ~120 kB
CHUNKS = [f"row {i}," + "x" * 2000 + "\n" for i in range(50)]


def _app() -> Starlette:
    def chunks() -> Iterator[str]:
        yield from CHUNKS

    routes = [
        Route("/big", lambda r: PlainTextResponse(BIG)),
        Route("/small", lambda r: PlainTextResponse("ok")),
        Route("/stream", lambda r: StreamingResponse(chunks(), media_type="text/csv")),
        Route("/encoded", lambda r: Response(gzip.compress(BIG.encode()),
                                             headers={"Content-Encoding": "gzip"},
                                             media_type="text/plain")),
        Route("/png", lambda r: Response(BIG.encode(), media_type="image/png")),
    ]
    return Starlette(routes=routes, middleware=[])


@pytest.fixture
def client() -> TestClient:
    app = _app()
    app.add_middleware(GZipMiddleware, minimum_size=1024)
    return TestClient(app)


def raw(client: TestClient, path: str, accept: str) -> tuple[dict[str, str], bytes]:
    with client.stream("GET", path, headers={"Accept-Encoding": accept}) as r:
        assert r.status_code == 200
        return dict(r.headers), b"".join(r.iter_raw())


def test_a_large_answer_is_gzip_any_client_reads(client: TestClient) -> None:
    headers, body = raw(client, "/big", "gzip, deflate, br")
    assert headers["content-encoding"] == "gzip"
    assert headers["vary"] == "Accept-Encoding"
    assert int(headers["content-length"]) == len(body)
    assert gzip.decompress(body).decode() == BIG  # the standard library's reader
    assert len(body) < len(BIG) / 10


def test_small_refused_and_already_encoded_answers_are_left_alone(client: TestClient) -> None:
    headers, body = raw(client, "/small", "gzip")
    assert "content-encoding" not in headers and body == b"ok"
    headers, body = raw(client, "/big", "br, gzip;q=0")
    assert "content-encoding" not in headers and body.decode() == BIG
    headers, body = raw(client, "/big", "identity")
    assert "content-encoding" not in headers and body.decode() == BIG
    headers, body = raw(client, "/encoded", "gzip")
    assert headers["content-encoding"] == "gzip" and gzip.decompress(body).decode() == BIG
    headers, body = raw(client, "/png", "gzip")
    assert "content-encoding" not in headers and body.decode() == BIG


def test_a_stream_is_compressed_chunk_by_chunk(client: TestClient) -> None:
    """Each chunk is flushed: the client can decode every chunk as it arrives."""
    with client.stream("GET", "/stream", headers={"Accept-Encoding": "gzip"}) as r:
        assert r.headers["content-encoding"] == "gzip"
        assert "content-length" not in r.headers
        inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
        seen = []
        for part in r.iter_raw():
            seen.append(inflate.decompress(part).decode())
        assert inflate.eof
    assert "".join(seen) == "".join(CHUNKS)
    # one decodable piece per chunk the application sent (plus the gzip trailer)
    assert sum(1 for s in seen if s) == len(CHUNKS)
