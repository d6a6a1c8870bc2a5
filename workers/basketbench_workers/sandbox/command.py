"""The command line that runs one program sandboxed, built from Debian's tools only:

  env -i <allowed variables>            coreutils: nothing of the worker's environment
  prlimit --cpu --as --nproc --fsize    util-linux: the kernel's per-process limits
  bwrap --unshare-{pid,net,ipc,uts}     bubblewrap: a new PID namespace with its own /proc
        --ro-bind <system dirs and        (the worker's processes are not there), a network
        what it may read> --bind <what    namespace holding only its own loopback, a root of
        it may write> --tmpfs /tmp        nothing but the listed binds, a small private /tmp
  [setpriv --reuid --regid ...]         util-linux: from root to the unprivileged sandbox user,
                                          no capabilities, no_new_privs
  <program>

A root worker (a host install) runs bwrap with its own privileges and drops to the sandbox
user inside; a worker that is not root (the container image) lets bwrap make a user
namespace, where the program runs as the sandbox uid without any capability.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from basketbench_workers.sandbox.policy import Limits, Policy

# System directories every program needs (compilers, the C library, cmake, valgrind);
# each bound read-only, or recreated as the symlink it is (merged /usr).
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")


class ToolMissing(Exception):
    pass


def tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise ToolMissing(f"{name} is not installed (or not on the worker's PATH)")
    return found


@dataclass(frozen=True)
class Command:
    argv: list[str]  # what to execute (the whole chain)
    shown: list[str]  # the program's own arguments as it sees them (for the log)


def build(
    policy: Policy,
    program: Sequence[str],
    workdir: Path,
    limits: Limits,
    readable: Sequence[Path],
    writable: Sequence[Path],
) -> Command:
    inner = [policy.translate(str(a)) for a in program]
    environment = [f"{k}={v}" for k, v in policy.environment().items()]
    argv = [tool("env"), "-i", *environment]
    argv += [
        tool("prlimit"),
        f"--cpu={limits.cpu_seconds}",
        f"--as={limits.memory_bytes}",
        f"--nproc={limits.processes}",
        f"--fsize={limits.file_bytes}",
        "--core=0",
        "--",
    ]
    root = os.geteuid() == 0
    argv += [tool("bwrap"), "--die-with-parent", "--new-session", "--unshare-pid",
             "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
    if not root:
        argv += ["--unshare-user", "--uid", str(policy.uid), "--gid", str(policy.gid),
                 "--cap-drop", "ALL"]
    for path in SYSTEM_DIRS:
        if os.path.islink(path):
            argv += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            argv += ["--ro-bind", path, path]
    argv += ["--ro-bind-try", "/sys", "/sys", "--proc", "/proc", "--dev", "/dev",
             "--perms", "1777", "--size", str(limits.tmp_bytes), "--tmpfs", "/tmp"]
    argv += _binds(policy, [*policy.extra_readable, *readable], writable)
    argv += ["--remount-ro", "/", "--chdir", policy.inside(workdir), "--"]
    if root:
        argv += [tool("setpriv"), f"--reuid={policy.uid}", f"--regid={policy.gid}",
                 "--clear-groups", "--inh-caps=-all", "--bounding-set=-all",
                 "--no-new-privs", "--"]
    return Command(argv + inner, inner)


def unsandboxed(policy: Policy, program: Sequence[str]) -> Command:
    """BASKETBENCH_SANDBOX=off (trusted repositories only): still no worker environment."""
    environment = [f"{k}={v}" for k, v in policy.environment().items()]
    inner = [str(a) for a in program]
    return Command([tool("env"), "-i", *environment, *inner], inner)


def _binds(policy: Policy, readable: Sequence[Path], writable: Sequence[Path]) -> list[str]:
    """Parents before children, so a writable dir inside a readable tree stays writable."""
    wanted: dict[str, tuple[str, str]] = {}
    for path, option in [*((p, "--ro-bind") for p in readable),
                         *((p, "--bind") for p in writable)]:
        host = os.path.abspath(path)
        wanted[policy.inside(host)] = (option, host)  # writable wins over readable
    args: list[str] = []
    # The dirs leading to each bind, made traversable (bwrap would copy the host's modes: a
    # 0700 parent of the worker's would hide the bind from the sandbox user).
    for parent in sorted(_parents(wanted), key=lambda p: (p.count("/"), p)):
        args += ["--perms", "0755", "--dir", parent]
    for inside in sorted(wanted, key=lambda p: (p.count("/"), p)):
        option, host = wanted[inside]
        args += [option, host, inside]
    return args


def _parents(binds: dict[str, tuple[str, str]]) -> set[str]:
    """Ancestors of the bind targets that no bind or system dir provides."""
    covered = [*binds, *SYSTEM_DIRS]
    parents: set[str] = set()
    for inside in binds:
        for parent in Path(inside).parents:
            text = str(parent)
            if text in ("/", "/tmp") or any(text == c or text.startswith(c.rstrip("/") + "/")
                                            for c in covered):
                continue
            parents.add(text)
    return parents
