"""What a sandboxed command may use: its limits, its environment, and where paths appear.

Commit-derived code (compilers over a commit's sources, the rzbench linked from them) sees
the host's paths under neutral names (`/worker/...`, `/codecs/...`), so neither its output
nor the run log it ends up in names where the worker keeps its files.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from basketbench_workers.config import WorkerSettings

MiB = 1 << 20
# The only variables a sandboxed command inherits (their values, when the worker has them):
# an allow-list, so a secret the worker is given later can never reach commit code.
ENV_ALLOWED = ("CC", "CXX", "LANG", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "LC_NUMERIC", "TZ",
               "SOURCE_DATE_EPOCH")
# PATH inside: the system directories, nothing of the worker's (no virtualenv, no ~/bin).
SANDBOX_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


@dataclass(frozen=True)
class Limits:
    """Per sandboxed command. Time is the caller's deadline; the rest the kernel enforces."""

    cpu_seconds: int = 3600  # RLIMIT_CPU of each process (SIGXCPU, then SIGKILL)
    memory_bytes: int = 4096 * MiB  # RLIMIT_AS of each process
    processes: int = 256  # RLIMIT_NPROC of the sandbox user: bounds a fork bomb
    file_bytes: int = 4096 * MiB  # RLIMIT_FSIZE: largest file it may write (SIGXFSZ)
    tmp_bytes: int = 1024 * MiB  # size of its private /tmp (tmpfs)

    def with_cpu(self, seconds: float) -> Limits:
        return replace(self, cpu_seconds=max(1, int(seconds) + 1))

    def describe(self) -> str:
        return (f"cpu {self.cpu_seconds} s, memory {self.memory_bytes // MiB} MiB, "
                f"{self.processes} processes, files up to {self.file_bytes // MiB} MiB, "
                f"/tmp {self.tmp_bytes // MiB} MiB")


@dataclass(frozen=True)
class Policy:
    mode: str = "required"  # "required": refuse to run without a sandbox; "off": trusted setups
    uid: int = 65534  # the unprivileged user commands run as (when the worker is root)
    gid: int = 65534
    limits: Limits = field(default_factory=Limits)
    env: tuple[tuple[str, str], ...] = ()  # passed through (allow-listed names only)
    # Host directory -> the name it has inside; longest first.
    roots: tuple[tuple[Path, str], ...] = ()
    extra_readable: tuple[Path, ...] = ()

    @classmethod
    def from_settings(cls, settings: WorkerSettings) -> Policy:
        names = ENV_ALLOWED + tuple(n.strip() for n in settings.sandbox_env.split(",")
                                    if n.strip())
        env = tuple((n, os.environ[n]) for n in dict.fromkeys(names) if n in os.environ)
        roots = [(settings.worker_dir, "/worker"), (settings.codec_cache, "/codecs"),
                 (settings.harness_source, "/harness")]
        if settings.data_root is not None:
            roots.append((settings.data_root, "/data"))
        limits = Limits(
            memory_bytes=settings.sandbox_memory_mb * MiB,
            processes=settings.sandbox_processes,
            file_bytes=settings.sandbox_file_mb * MiB,
            tmp_bytes=settings.sandbox_tmp_mb * MiB,
        )
        extra = tuple(Path(p) for p in settings.sandbox_readable.split(os.pathsep) if p)
        return cls(
            mode=settings.sandbox, uid=settings.sandbox_uid, gid=settings.sandbox_gid,
            limits=limits, env=env, roots=_longest_first(roots), extra_readable=extra,
        )

    def environment(self) -> dict[str, str]:
        return {"PATH": SANDBOX_PATH, "HOME": "/tmp", "TMPDIR": "/tmp", "LANG": "C.UTF-8",
                **dict(self.env)}

    def inside(self, host: Path | str) -> str:
        """Where `host` appears in the sandbox (itself when no root holds it)."""
        text = os.path.abspath(host)
        for root, name in self.roots:
            base = os.path.abspath(root)
            if text == base:
                return name
            if text.startswith(base + "/"):
                return name + text[len(base):]
        return text

    def translate(self, text: str) -> str:
        """`text` (an argument, a log line) with every host root replaced by its inside name."""
        for root, name in self.roots:
            text = re.sub(re.escape(os.path.abspath(root)) + r"(?=/|$|[^\w.+-])", name, text)
        return text


def _longest_first(roots: list[tuple[Path, str]]) -> tuple[tuple[Path, str], ...]:
    resolved = [(Path(os.path.abspath(r)), n) for r, n in roots]
    return tuple(sorted(resolved, key=lambda rn: len(str(rn[0])), reverse=True))
