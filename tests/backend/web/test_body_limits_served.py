"""Issue 13: the body limit holds on the real server while the body is still arriving."""

from __future__ import annotations

import select
import socket
import time
from urllib.parse import urlparse

import pytest

pytestmark = pytest.mark.integration


def test_chunked_webhook_body_is_cut_off_at_25_mb(api_server):
    """A signed-looking, chunked (no Content-Length) 300 MB upload: the API answers 413 after
    reading at most 25 MB, and the client sees it while it is still sending."""
    url = urlparse(api_server.url)
    chunk = b" " * (1 << 20)
    sent = 0
    reply = b""
    with socket.create_connection((url.hostname, url.port), timeout=60) as sock:
        sock.sendall(b"POST /api/v1/webhooks/github HTTP/1.1\r\nHost: x\r\n"
                     b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
                     b"X-GitHub-Event: push\r\nX-GitHub-Delivery: big-1\r\n"
                     b"X-Hub-Signature-256: sha256=" + b"0" * 64 + b"\r\n\r\n")
        deadline = time.monotonic() + 120
        while sent < 300 and time.monotonic() < deadline:
            readable, _, _ = select.select([sock], [], [], 0)
            if readable:
                break
            try:
                sock.sendall(b"%x\r\n" % len(chunk) + chunk + b"\r\n")
            except (BrokenPipeError, ConnectionResetError):
                break
            sent += 1
        sock.settimeout(30)
        try:
            while b"\r\n\r\n" not in reply:
                part = sock.recv(65536)
                if not part:
                    break
                reply += part
        except (ConnectionResetError, TimeoutError):
            pass
    assert reply.startswith(b"HTTP/1.1 413"), reply[:200]
    assert sent < 300, "the API read the whole 300 MB"
