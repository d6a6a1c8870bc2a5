"""Subprocesses with a deadline, a log file and no orphans.

Children get PR_SET_PDEATHSIG so a worker killed with SIGKILL does not leave a
compiler or an rzbench behind that would disturb the next measurement.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import time
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path

_PR_SET_PDEATHSIG = 1


class StageFailed(Exception):
    """A stage of a run failed for a reason a retry will not fix; `log_tail` is shown by the API."""

    def __init__(self, message: str, log_tail: str = "", returncode: int | None = None) -> None:
        super().__init__(message)
        self.log_tail = log_tail
        self.returncode = returncode  # of the command that failed, when one did


class StageTimeout(StageFailed):
    pass


def _die_with_parent() -> None:  # pragma: no cover - runs in the child
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except OSError:
        pass


def tail(path: Path, lines: int = 60) -> str:
    try:
        with path.open(errors="replace") as fh:
            return "".join(deque(fh, maxlen=lines))
    except OSError:
        return ""


class Deadline:
    """The time left of one stage."""

    def __init__(self, stage: str, seconds: float) -> None:
        self.stage = stage
        self.seconds = seconds
        self.end = time.monotonic() + seconds

    def remaining(self) -> float:
        left = self.end - time.monotonic()
        if left <= 0:
            raise StageTimeout(
                f"stage '{self.stage}' exceeded its time limit of {self.seconds:.0f} s"
            )
        return left


def run_logged(
    cmd: Sequence[str | os.PathLike[str]],
    log: Path,
    deadline: Deadline,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    on_stderr_line: Callable[[str], None] | None = None,
    ok_codes: tuple[int, ...] = (0,),
    shown: Sequence[str] | None = None,
) -> int:
    """Run `cmd`, appending its output to `log`; StageFailed with the log tail if it fails.

    `shown` is what the log names as the command (a sandboxed program's own arguments
    rather than the sandbox's command line)."""
    args = [os.fspath(c) for c in cmd]
    shown = list(shown) if shown is not None else args
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("a") as fh:
        fh.write("$ " + " ".join(shown) + "\n")
        fh.flush()
        proc = subprocess.Popen(
            args,
            cwd=cwd,
            env=env,
            stdout=fh,
            stderr=subprocess.PIPE if on_stderr_line else subprocess.STDOUT,
            text=True,
            preexec_fn=_die_with_parent,
        )
        try:
            if on_stderr_line is not None and proc.stderr is not None:
                # Line-wise so progress reaches the API while the harness runs.
                for line in proc.stderr:
                    fh.write(line)
                    fh.flush()
                    on_stderr_line(line)
                    if time.monotonic() > deadline.end:
                        break
            rc = proc.wait(timeout=max(deadline.end - time.monotonic(), 0.01))
        except subprocess.TimeoutExpired:
            rc = None
        if rc is None or (proc.poll() is None):
            proc.kill()
            proc.wait()
            fh.write(f"killed: stage '{deadline.stage}' time limit {deadline.seconds:.0f} s\n")
            fh.flush()
            raise StageTimeout(
                f"stage '{deadline.stage}' exceeded its time limit of {deadline.seconds:.0f} s",
                tail(log),
            )
    if rc not in ok_codes:
        raise StageFailed(
            f"command failed with exit code {rc}: {' '.join(shown[:3])} ...", tail(log), rc
        )
    return rc


def capture(
    cmd: Sequence[str | os.PathLike[str]], cwd: Path | None = None, timeout: float = 60
) -> str:
    """Output of a short command (git plumbing, compiler version); CalledProcessError on failure."""
    return subprocess.run(
        [os.fspath(c) for c in cmd],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
        timeout=timeout,
        preexec_fn=_die_with_parent,
    ).stdout
