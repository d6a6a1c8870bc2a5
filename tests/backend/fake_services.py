"""A local HTTP server on 127.0.0.1 standing in for Slack/Mattermost and GitHub's REST
API: scripted answers per route (errors, rate limits), every request recorded."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Answer = tuple[int, dict[str, str], Any]


@dataclass
class Received:
    method: str
    path: str
    headers: dict[str, str]
    body: Any


@dataclass
class FakeServer:
    url: str = ""
    received: list[Received] = field(default_factory=list)
    # (method, path regex) -> answers in order; the last one repeats
    script: dict[tuple[str, str], list[Answer | Callable[[], Answer]]] = field(
        default_factory=dict)

    def on(self, method: str, pattern: str, *answers: Answer | Callable[[], Answer]) -> None:
        self.script[(method, pattern)] = list(answers)

    def calls(self, method: str, pattern: str) -> list[Received]:
        return [r for r in self.received if r.method == method and re.fullmatch(pattern, r.path)]

    def answer(self, method: str, path: str) -> Answer:
        for (m, pattern), answers in self.script.items():
            if m == method and re.fullmatch(pattern, path):
                nxt = answers.pop(0) if len(answers) > 1 else answers[0]
                return nxt() if callable(nxt) else nxt
        return 404, {}, {"message": "Not Found"}


@contextmanager
def fake_server() -> Iterator[FakeServer]:
    state = FakeServer()

    class Handler(BaseHTTPRequestHandler):
        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw) if raw else None
            except ValueError:
                body = raw.decode(errors="replace")
            state.received.append(Received(self.command, self.path, dict(self.headers), body))
            status, headers, payload = state.answer(self.command, self.path)
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for k, v in headers.items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PATCH = _serve

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
