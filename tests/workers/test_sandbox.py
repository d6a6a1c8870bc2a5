"""The sandbox of commit code (basketbench_workers/sandbox), with the real bubblewrap,
prlimit and setpriv: what a command inside can see, reach and write, its limits, and the
refusal when no sandbox can be made."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
from pathlib import Path

import pytest
from basketbench.measure.rzbench.runner import (
    BenchOptions,
    RzbenchNotFound,
    locate_rzbench,
    run_bench,
    run_sizes,
)
from basketbench_workers.config import WorkerSettings
from basketbench_workers.procs import Deadline, StageFailed
from basketbench_workers.sandbox import Limits, Policy, Sandbox, SandboxUnavailable

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap")

MiB = 1 << 20


@pytest.fixture
def sandbox(tmp_path: Path) -> Sandbox:
    return Sandbox(Policy(roots=((tmp_path, "/worker"),)))


def test_environment_is_an_allow_list(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BASKETBENCH_API_TOKEN", "s3cret-token")
    monkeypatch.setenv("SOME_PASSWORD", "hunter2")
    monkeypatch.setenv("LC_ALL", "C.UTF-8")
    monkeypatch.setenv("OPERATOR_CHOICE", "yes")
    settings = WorkerSettings(worker_dir=tmp_path, sandbox_env="OPERATOR_CHOICE")
    done = Sandbox.for_settings(settings).run(["env"], tmp_path)
    names = {line.split("=", 1)[0] for line in done.stdout.splitlines()}
    assert names == {"PATH", "HOME", "TMPDIR", "LANG", "LC_ALL", "OPERATOR_CHOICE", "PWD"}
    assert "LC_ALL=C.UTF-8" in done.stdout and "PWD=/worker\n" in done.stdout
    assert "s3cret" not in done.stdout and "hunter2" not in done.stdout


def test_no_worker_process_is_visible_and_pid_1_holds_nothing(
        sandbox: Sandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BASKETBENCH_API_TOKEN", "s3cret-token")
    script = ("id -u; ls /proc | grep -c '^[0-9]'; cat /proc/$PPID/environ /proc/1/environ "
              f"/proc/{os.getpid()}/environ; echo done")
    done = sandbox.run(["sh", "-c", script], tmp_path)
    uid, processes, *_ = done.stdout.split()
    assert int(uid) != os.geteuid() or os.geteuid() != 0
    assert int(processes) <= 4  # bwrap's init, sh, cat (and ls): nothing of the host
    assert "s3cret" not in done.stdout + done.stderr
    assert f"/proc/{os.getpid()}/environ: No such file" in done.stderr


def test_no_network_not_even_the_hosts_loopback(sandbox: Sandbox, tmp_path: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as server:
        server.settimeout(0.2)
        port = server.getsockname()[1]
        done = sandbox.run(["bash", "-c", f"exec 3<>/dev/tcp/127.0.0.1/{port} && echo open"],
                           tmp_path)
        assert "open" not in done.stdout and "Connection refused" in done.stderr
        with pytest.raises(TimeoutError):
            server.accept()


def test_writes_only_its_own_dirs(sandbox: Sandbox, tmp_path: Path) -> None:
    out, inputs = tmp_path / "out", tmp_path / "inputs"
    inputs.mkdir()
    (inputs / "source.c").write_text("int x;\n")
    outside = Path("/tmp") / f"bb-sandbox-{os.getpid()}-{tmp_path.name}"
    script = (f"cat source.c; echo built > ../out/obj; echo x > {outside}; "
              "echo x > source.c; echo x > /worker/escape; echo x > /usr/escape; pwd")
    done = sandbox.run(["sh", "-c", script], inputs, readable=[inputs], writable=[out])
    assert done.stdout.splitlines() == ["int x;", "/worker/inputs"]
    assert (out / "obj").read_text() == "built\n"
    assert not outside.exists()  # its /tmp is its own
    assert (inputs / "source.c").read_text() == "int x;\n"
    assert not (tmp_path / "escape").exists()
    assert done.stderr.count("Read-only file system") + done.stderr.count("Permission denied") \
        >= 3, done.stderr


def bomb(tmp_path: Path) -> Path:
    source = tmp_path / "bomb.c"
    source.write_text(
        "#include <signal.h>\n#include <stdio.h>\n#include <unistd.h>\n#include <errno.h>\n"
        "#include <string.h>\n#include <stdlib.h>\n"
        "int main(void) { pid_t kids[4096]; int n = 0, err = 0;\n"
        "  while (n < 4096) { pid_t p = fork(); if (p < 0) { err = errno; break; }\n"
        "    if (p == 0) { pause(); _exit(0); } kids[n++] = p; }\n"
        "  for (int i = 0; i < n; ++i) kill(kids[i], SIGKILL);\n"
        "  printf(\"%d %s\\n\", n, err ? strerror(err) : \"unbounded\");\n"
        "  void *big = malloc(512u << 20); printf(\"malloc %s\\n\", big ? \"ok\" : \"refused\");\n"
        "  return 0; }\n")
    binary = tmp_path / "bomb"
    subprocess.run(["cc", "-O1", "-o", str(binary), str(source)], check=True)
    return binary


def test_processes_and_memory_are_bounded(sandbox: Sandbox, tmp_path: Path) -> None:
    binary = bomb(tmp_path)
    limits = Limits(processes=64, memory_bytes=256 * MiB)
    done = sandbox.run([binary], tmp_path, limits, readable=[tmp_path])
    forked, reason = done.stdout.splitlines()[0].split(" ", 1)
    assert int(forked) < 64 and reason == "Resource temporarily unavailable"
    assert "malloc refused" in done.stdout


def test_a_limit_that_stops_a_command_is_named_in_the_log(sandbox: Sandbox,
                                                          tmp_path: Path) -> None:
    log = tmp_path / "run.log"
    with pytest.raises(StageFailed) as info:
        sandbox.run_logged(["sh", "-c", "head -c 3000000 /dev/zero > big"], log,
                           Deadline("build", 60), tmp_path / "out",
                           writable=[tmp_path / "out"], limits=Limits(file_bytes=MiB))
    assert "sandbox: refused a file larger than its limit of 1 MiB" in str(info.value)
    text = log.read_text()
    assert text.startswith("$ sh -c head -c 3000000 /dev/zero > big\n")
    assert "sandbox: refused a file larger" in text and str(tmp_path) not in text


def test_measurement_library_runs_through_the_launcher(sandbox: Sandbox,
                                                       tmp_path: Path) -> None:
    try:
        binary = locate_rzbench()
    except RzbenchNotFound:
        pytest.skip("needs rzbench (make harness-build or BASKETBENCH_RZBENCH)")
    launcher = sandbox.launcher(readable=[binary.parent])
    rows = run_sizes(synthetic=["event"], settings=[101], binary=binary, launcher=launcher)
    assert rows and rows[0]["branches"]
    out = tmp_path / "bench" / "result.json"
    out.parent.mkdir()
    options = BenchOptions(synthetic=["event"], settings=[101], min_samples=1, target_ms=1)
    code, _ = run_bench(options, out, binary=binary, launcher=launcher)
    assert code == 0 and json.loads(out.read_text())["results"]


def test_off_is_unconfined_but_still_without_the_environment(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BASKETBENCH_API_TOKEN", "s3cret-token")
    off = Sandbox(Policy(mode="off"))
    done = off.run(["sh", "-c", "env; id -u"], tmp_path)
    assert "s3cret" not in done.stdout
    assert done.stdout.split()[-1] == str(os.geteuid())
    assert "OFF" in off.describe()


def test_without_bubblewrap_commit_code_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("env", "prlimit", "setpriv", "true"):  # all but bwrap
        (bin_dir / name).symlink_to(shutil.which(name) or "/bin/false")
    monkeypatch.setenv("PATH", str(bin_dir))
    with pytest.raises(SandboxUnavailable, match="bwrap is not installed.*refuses"):
        Sandbox(Policy()).run(["true"], tmp_path)
