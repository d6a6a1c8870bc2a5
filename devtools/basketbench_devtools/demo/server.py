"""The API the demo talks to: `basketbench serve` as a child process of the demo (its port
checked first, its output in the demo's server log), waited for until healthy, and
stopped with the demo, by Ctrl-C, SIGTERM or the demo's own death."""

from __future__ import annotations

import contextlib
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from basketbench_devtools.demo.console import DemoError, say


def port_is_free(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        # As uvicorn binds: a port whose old connections linger in TIME_WAIT is free.
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError:
            return False
    return True


def ensure_port_free(host: str, port: int) -> None:
    if not port_is_free(host, port):
        raise DemoError(f"port {port} on {host} is in use (another `basketbench demo` or serve?); "
                        "stop it or choose another with --port")


def stop_on_sigterm() -> None:
    """SIGTERM (e.g. to `make demo`, which passes it on) ends the demo like Ctrl-C: the run
    is marked failed and the API stopped, never left serving."""

    def interrupt(_signum: int, _frame: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupt)


def _die_with_parent() -> None:
    """In the API child (Linux): SIGTERM when the demo process dies, even by SIGKILL."""
    if sys.platform.startswith("linux"):
        import ctypes

        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


class Server:
    """`basketbench serve` as a child process, its output in a log file."""

    def __init__(self, env: dict[str, str], host: str, port: int, log: Path) -> None:
        self.url = f"http://{host}:{port}"
        self.log = log
        self._log_fh = log.open("ab")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "basketbench.cli", "serve", "--host", host, "--port", str(port)],
            env=env, stdout=self._log_fh, stderr=subprocess.STDOUT,
            start_new_session=True,  # Ctrl-C reaches it through us, in order
            preexec_fn=_die_with_parent,
        )

    def wait_healthy(self, timeout: float = 90.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise DemoError(f"the API exited ({self.proc.returncode}):\n{self.log_tail()}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{self.url}/api/v1/health", timeout=2).status_code == 200:
                    return
            time.sleep(0.3)
        raise DemoError(f"the API did not answer within {timeout:.0f} s:\n{self.log_tail()}")

    def log_tail(self, lines: int = 30) -> str:
        self._log_fh.flush()
        text = self.log.read_text(errors="replace").splitlines()
        return "\n".join(text[-lines:])

    def keep_serving(self) -> None:
        """Until Ctrl-C or SIGTERM; an API that stops by itself is an error."""
        say("serving; Ctrl-C to stop")
        with contextlib.suppress(KeyboardInterrupt):
            self.proc.wait()
        if self.proc.returncode not in (None, 0, -signal.SIGINT):
            raise DemoError(f"the API stopped ({self.proc.returncode}):\n{self.log_tail()}")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log_fh.close()


def serves_dashboard(url: str) -> bool:
    with contextlib.suppress(httpx.HTTPError):
        response = httpx.get(f"{url}/", timeout=5)
        return response.status_code == 200 and "text/html" in response.headers.get(
            "content-type", ""
        )
    return False
