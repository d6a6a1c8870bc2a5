"""Run commit-derived code sandboxed: the one door every such execution goes through.

    sandbox = Sandbox.for_settings(settings)
    sandbox.run(argv, workdir, limits, readable=[...], writable=[...]) -> CompletedProcess
    sandbox.run_logged(argv, log, deadline, workdir, readable=[...], writable=[...])
    sandbox.launcher(readable=[...])  # for the measurement library's runners

Whether the sandbox works here is checked (a trivial command run through it) until it
has worked once. When
it does not, every call raises SandboxUnavailable with the reason, unless the operator set
BASKETBENCH_SANDBOX=off (trusted repositories only).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

from basketbench_workers.config import WorkerSettings
from basketbench_workers.procs import Deadline, StageFailed, run_logged
from basketbench_workers.sandbox import command
from basketbench_workers.sandbox.policy import Limits, Policy

Launcher = Callable[[list[str], Sequence[Path]], list[str]]


class SandboxUnavailable(StageFailed):
    """No sandbox on this worker: commit code is refused rather than run unconfined."""


_works: set[tuple[object, ...]] = set()
_probe_lock = threading.Lock()


class Sandbox:
    def __init__(self, policy: Policy) -> None:
        self.policy = policy

    @classmethod
    def for_settings(cls, settings: WorkerSettings) -> Sandbox:
        return cls(Policy.from_settings(settings))

    @property
    def enabled(self) -> bool:
        return self.policy.mode != "off"

    def limits(self, cpu_seconds: float | None = None) -> Limits:
        if cpu_seconds is None:
            return self.policy.limits
        return self.policy.limits.with_cpu(cpu_seconds)

    # -- the command line -------------------------------------------------------------------

    def command(
        self,
        argv: Sequence[str | os.PathLike[str]],
        workdir: Path,
        limits: Limits | None = None,
        readable: Sequence[Path] = (),
        writable: Sequence[Path] = (),
    ) -> command.Command:
        program = [os.fspath(a) for a in argv]
        if not self.enabled:
            return command.unsandboxed(self.policy, program)
        self.check()
        self.prepare(writable)
        extra = [] if workdir in writable or workdir == Path("/") else [workdir]
        return command.build(self.policy, program, workdir, limits or self.policy.limits,
                             [*readable, *extra], writable)

    def check(self) -> None:
        """SandboxUnavailable when a trivial command cannot run sandboxed here."""
        if not self.enabled:
            return
        key = (os.geteuid(), self.policy.uid, self.policy.gid, shutil.which("bwrap"))
        with _probe_lock:
            reason = None if key in _works else self._probe()
            if reason is None:
                _works.add(key)  # a failure is probed again: it may have been passing
        if reason is not None:
            raise SandboxUnavailable(
                f"the sandbox for commit code does not work on this worker ({reason}); the "
                "worker refuses to build or run a commit unconfined. See docs/security.md "
                "(install bubblewrap; in a container: the compose file's cap_add and "
                "security_opt), or "
                "set BASKETBENCH_SANDBOX=off if every commit it builds is trusted."
            )

    def _probe(self) -> str | None:
        try:
            probe = command.build(self.policy, ["true"], Path("/"), self.policy.limits, (), ())
        except command.ToolMissing as exc:
            return str(exc)
        try:
            done = subprocess.run(probe.argv, capture_output=True, text=True, timeout=60,
                                  stdin=subprocess.DEVNULL)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"bwrap did not start: {exc}"
        if done.returncode != 0:
            message = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])
            return f"bwrap: {message[-1].removeprefix('bwrap: ')}"
        return None

    def prepare(self, writable: Sequence[Path]) -> None:
        """Writable dirs exist and belong to the sandbox user (a root worker's own files
        stay unwritable to it)."""
        for path in writable:
            path.mkdir(parents=True, exist_ok=True)
            if os.geteuid() == 0:
                _chown_tree(path, self.policy.uid, self.policy.gid)

    def reclaim(self, path: Path) -> None:
        """Give what the sandbox wrote back to the worker, before it goes into a cache."""
        if self.enabled and os.geteuid() == 0 and path.exists():
            _chown_tree(path, os.getuid(), os.getgid())

    def describe(self, limits: Limits | None = None) -> str:
        """The log line that says what the sandboxed commands of a stage may not do."""
        if not self.enabled:
            return ("sandbox: OFF (BASKETBENCH_SANDBOX=off, trusted repositories only): "
                    "commit code runs as the worker, without the worker's environment\n")
        who = (f"uid {self.policy.uid}" if os.geteuid() == 0
               else f"uid {self.policy.uid} in a user namespace")
        allowed = ", ".join(sorted(self.policy.environment()))
        return (f"sandbox: commit code runs as {who} without capabilities; no network (own "
                f"loopback only); its own PID namespace and /proc (no worker process "
                f"visible); no environment but {allowed}; a read-only view of the system "
                f"and its inputs, writable only its output dirs and a private /tmp; limits: "
                f"{(limits or self.policy.limits).describe()}\n")

    # -- running ------------------------------------------------------------------------------

    def run(
        self,
        argv: Sequence[str | os.PathLike[str]],
        workdir: Path,
        limits: Limits | None = None,
        readable: Sequence[Path] = (),
        writable: Sequence[Path] = (),
        timeout: float | None = None,
        input: str | None = None,
    ) -> subprocess.CompletedProcess[str]:
        """Run to completion, output captured (text). TimeoutExpired past `timeout`."""
        cmd = self.command(argv, workdir, limits, readable, writable)
        done = subprocess.run(cmd.argv, capture_output=True, text=True, errors="replace",
                              timeout=timeout, input=input,
                              stdin=None if input is not None else subprocess.DEVNULL)
        return subprocess.CompletedProcess(cmd.shown, done.returncode,
                                           self.policy.translate(done.stdout),
                                           self.policy.translate(done.stderr))

    def run_logged(
        self,
        argv: Sequence[str | os.PathLike[str]],
        log: Path,
        deadline: Deadline,
        workdir: Path,
        readable: Sequence[Path] = (),
        writable: Sequence[Path] = (),
        limits: Limits | None = None,
        on_stderr_line: Callable[[str], None] | None = None,
        ok_codes: tuple[int, ...] = (0,),
    ) -> int:
        """procs.run_logged, sandboxed: the log shows the program's own command line (with
        the sandbox's path names) and, when a limit killed it, which one."""
        limits = limits or self.limits(deadline.seconds)
        cmd = self.command(argv, workdir, limits, readable, writable)
        try:
            return run_logged(cmd.argv, log, deadline, on_stderr_line=on_stderr_line,
                              ok_codes=ok_codes, shown=cmd.shown)
        except StageFailed as exc:
            refused = self.refusal(exc.returncode, limits)
            if refused:
                with log.open("a") as fh:
                    fh.write(refused + "\n")
                raise StageFailed(f"{exc} ({refused})", exc.log_tail + refused + "\n") from exc
            raise

    def launcher(self, readable: Sequence[Path] = (), limits: Limits | None = None
                 ) -> Launcher:
        """For the measurement library: argv -> sandboxed argv, given the dirs it writes."""
        def wrap(argv: list[str], writable: Sequence[Path]) -> list[str]:
            workdir = writable[0] if writable else Path("/")
            return self.command(argv, workdir, limits, readable, writable).argv
        return wrap

    @staticmethod
    def refusal(returncode: int | None, limits: Limits) -> str:
        """What the kernel stopped, from a sandboxed command's exit status."""
        if returncode is None:
            return ""
        signum = -returncode if returncode < 0 else returncode - 128
        if signum == signal.SIGXCPU:
            return f"sandbox: stopped at its CPU limit of {limits.cpu_seconds} s"
        if signum == signal.SIGXFSZ:
            return (f"sandbox: refused a file larger than its limit of "
                    f"{limits.file_bytes >> 20} MiB")
        return ""


def _chown_tree(path: Path, uid: int, gid: int) -> None:
    """Everything under `path` to uid:gid. A top already owned is taken as done: concurrent
    compile jobs share an output dir, whose files their sandbox user creates itself."""
    if (path.lstat().st_uid, path.lstat().st_gid) == (uid, gid):
        return
    for base, dirs, files in os.walk(path):
        for name in [".", *dirs, *files]:
            target = os.path.join(base, name)
            try:
                st = os.lstat(target)
                if (st.st_uid, st.st_gid) != (uid, gid):
                    os.lchown(target, uid, gid)
            except FileNotFoundError:  # removed meanwhile (a compiler's temporary file)
                continue
