"""A small asyncio TCP proxy for fault injection, run in a thread of the test process.

Modes:
- ``pass``: forward both ways.
- ``refuse``: the listening socket is closed (connects get ECONNREFUSED) and every open
  connection is reset, like a server that went away.
- ``blackhole``: connections are accepted and kept, what clients send is read and dropped,
  nothing ever comes back (also on connections that were open before): a server or a
  network path that stops answering.
Going back to ``pass`` listens again on the same port; connections that were held in
``blackhole`` are closed then (as a real network partition's would be by then).

``arm(pattern, mode)`` switches to ``mode`` right after forwarding the first client bytes
that contain ``pattern`` (e.g. ``b"COPY results"``): a fault in the middle of a statement.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from typing import Literal

Mode = Literal["pass", "refuse", "blackhole"]


class FaultProxy:
    def __init__(self, target_host: str, target_port: int, host: str = "127.0.0.1") -> None:
        self.target = (target_host, target_port)
        self.host = host
        self.port = 0
        self.mode: Mode = "pass"
        self._armed: tuple[bytes, Mode] | None = None
        self._loop = asyncio.new_event_loop()
        self._server: asyncio.Server | None = None
        self._conns: set[tuple[asyncio.StreamWriter, asyncio.StreamWriter | None]] = set()
        self._thread = threading.Thread(target=self._loop.run_forever, name="fault-proxy",
                                        daemon=True)

    # --- control, from the test thread
    def start(self) -> FaultProxy:
        self._thread.start()
        self._call(self._listen())
        return self

    def stop(self) -> None:
        self._call(self._shutdown())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)

    def set_mode(self, mode: Mode) -> None:
        self._armed = None
        self._call(self._switch(mode))

    def arm(self, pattern: bytes, mode: Mode) -> None:
        self._armed = (pattern, mode)

    def _call(self, coro: object) -> None:
        asyncio.run_coroutine_threadsafe(coro, self._loop).result(timeout=10)  # type: ignore[arg-type]

    # --- inside the loop
    async def _listen(self) -> None:
        self._server = await asyncio.start_server(self._handle, self.host, self.port,
                                                  reuse_address=True)
        self.port = self._server.sockets[0].getsockname()[1]

    async def _close_listener(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 0.5)
            self._server = None

    def _drop_all(self) -> None:
        for client, upstream in list(self._conns):
            for writer in (client, upstream):
                if writer is not None:
                    with contextlib.suppress(Exception):
                        writer.transport.abort()
        self._conns.clear()

    async def _switch(self, mode: Mode) -> None:
        previous, self.mode = self.mode, mode
        if mode == "refuse":
            await self._close_listener()
            self._drop_all()
        elif mode == "pass":
            if previous == "blackhole":
                self._drop_all()
            if self._server is None:
                await self._listen()
        elif mode == "blackhole" and self._server is None:
            await self._listen()

    async def _shutdown(self) -> None:
        await self._close_listener()
        self._drop_all()
        others = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for task in others:
            task.cancel()
        await asyncio.gather(*others, return_exceptions=True)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        # Cancelled at stop(): end quietly (asyncio logs an error for a cancelled handler).
        with contextlib.suppress(asyncio.CancelledError):
            await self._serve(reader, writer)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.mode == "blackhole":
            entry: tuple[asyncio.StreamWriter, asyncio.StreamWriter | None] = (writer, None)
            self._conns.add(entry)
            await self._swallow(reader)
            return
        try:
            up_reader, up_writer = await asyncio.open_connection(*self.target)
        except OSError:
            writer.transport.abort()
            return
        entry = (writer, up_writer)
        self._conns.add(entry)
        await asyncio.gather(self._pipe(reader, up_writer, upstream=True),
                             self._pipe(up_reader, writer), return_exceptions=True)
        self._conns.discard(entry)
        for w in (writer, up_writer):
            with contextlib.suppress(Exception):
                w.close()

    async def _swallow(self, reader: asyncio.StreamReader) -> None:
        with contextlib.suppress(Exception):
            while await reader.read(65536):
                pass

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                    upstream: bool = False) -> None:
        try:
            while True:
                data = await reader.read(65536)
                if not data:
                    break
                if self.mode == "blackhole":
                    continue  # held: read and dropped, nothing forwarded
                writer.write(data)
                await writer.drain()
                armed = self._armed
                if upstream and armed is not None and armed[0] in data:
                    self._armed = None
                    await self._switch(armed[1])
        finally:
            with contextlib.suppress(Exception):
                writer.write_eof()
