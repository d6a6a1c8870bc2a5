"""Finding and running the C++ harness `rzbench` (command line: docs/RZBENCH_CLI.md)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from basketbench.measure.paths import repo_root

ENV_VAR = "BASKETBENCH_RZBENCH"
SYNTHETIC_DATASETS = ("event", "nanoaod-offsets", "tfloat", "tsmall", "tlarge", "random", "zeros")
MODES = ("basket", "rac-sequential", "rac-random")
PRECONDITIONERS = ("none", "shuffle", "bitshuffle")

# rzbench exit codes
EXIT_OK = 0
EXIT_RESULT_FAILED = 1
EXIT_USAGE = 2


class RzbenchNotFound(FileNotFoundError):
    pass


class RzbenchError(RuntimeError):
    """rzbench failed; `exit_code` is its exit code (negative: killed by that signal)."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def default_rzbench_path() -> Path:
    return repo_root() / "bench-harness" / "build" / "rzbench"


def locate_rzbench() -> Path:
    """$BASKETBENCH_RZBENCH, else the checkout's build, else `rzbench` on PATH."""
    configured = os.environ.get(ENV_VAR)
    if configured:
        path = Path(configured)
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise RzbenchNotFound(
                f"{ENV_VAR}={configured} is not an executable file: run `make setup` "
                "(or `make harness-build`) to build rzbench, or point the variable at it"
            )
        return path
    built = default_rzbench_path()
    if built.is_file() and os.access(built, os.X_OK):
        return built
    on_path = shutil.which("rzbench")
    if on_path:
        return Path(on_path)
    raise RzbenchNotFound(
        f"rzbench not found at {built}: run `make setup` (or `make harness-build`) to build it, "
        f"or set {ENV_VAR} to its path"
    )


@dataclass
class BenchOptions:
    """The dimensions and measurement knobs of one `rzbench bench` run."""

    corpora: list[Path] = field(default_factory=list)
    synthetic: list[str] = field(default_factory=list)
    settings: list[int] = field(default_factory=lambda: [101, 404, 505])
    preconditioners: list[str] = field(default_factory=lambda: ["none"])
    dictionary_sizes: list[int] = field(default_factory=lambda: [0])
    basket_sizes: list[int] = field(default_factory=lambda: [0])
    modes: list[str] = field(default_factory=lambda: ["basket"])
    threads: list[int] = field(default_factory=lambda: [1])
    min_samples: int = 9
    target_ms: float = 100.0
    memcpy: bool = True
    root_commit: str | None = None
    context: dict[str, Any] = field(default_factory=dict)

    def arguments(self) -> list[str]:
        def joined(values: Sequence[object]) -> str:
            return ",".join(str(v) for v in values)

        args: list[str] = []
        for corpus in self.corpora:
            args += ["--corpus", str(corpus)]
        if self.synthetic or not self.corpora:
            args += ["--synthetic", joined(self.synthetic or ["all"])]
        args += [
            "--settings",
            joined(self.settings),
            "--preconditioners",
            joined(self.preconditioners),
            "--dictionary-sizes",
            joined(self.dictionary_sizes),
            "--basket-sizes",
            joined(self.basket_sizes),
            "--modes",
            joined(self.modes),
            "--threads",
            joined(self.threads),
            "--min-samples",
            str(self.min_samples),
            "--target-ms",
            f"{self.target_ms:g}",
            "--memcpy" if self.memcpy else "--no-memcpy",
        ]
        if self.root_commit:
            args += ["--root-commit", self.root_commit]
        if self.context:
            args += ["--context-json", json.dumps(self.context)]
        return args


ProgressCallback = Callable[[int, int], None]
# argv, the directories the command writes -> the argv to execute instead (a worker runs
# commit-built rzbench sandboxed this way; the library itself knows nothing of sandboxes).
Launcher = Callable[[list[str], Sequence[Path]], list[str]]


def _exit_description(code: int) -> str:
    if code < 0:
        return f"rzbench was killed by signal {-code}"
    return f"rzbench exited with code {code} and no message"


def _run(
    binary: Path,
    args: list[str],
    progress: ProgressCallback | None = None,
    timeout: float | None = None,
    launcher: Launcher | None = None,
    writes: Sequence[Path] = (),
) -> tuple[int, str]:
    """Run rzbench; return (exit code, stderr without progress lines)."""
    argv = [str(binary), *args]
    with subprocess.Popen(
        launcher(argv, writes) if launcher else argv,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        errors="replace",
    ) as proc:
        assert proc.stderr is not None
        messages: list[str] = []
        try:
            for line in proc.stderr:
                parts = line.split()
                if (
                    len(parts) == 3
                    and parts[0] == "progress"
                    and parts[1].isdigit()
                    and parts[2].isdigit()
                ):
                    if progress:
                        progress(int(parts[1]), int(parts[2]))
                else:
                    messages.append(line.rstrip("\n"))
            code = proc.wait(timeout=timeout)
        except BaseException:
            proc.kill()
            raise
    return code, "\n".join(messages).strip()


def run_bench(
    options: BenchOptions,
    json_out: Path,
    *,
    csv_out: Path | None = None,
    markdown_out: Path | None = None,
    binary: Path | None = None,
    progress: ProgressCallback | None = None,
    timeout: float | None = None,
    launcher: Launcher | None = None,
) -> tuple[int, str]:
    """Run `rzbench bench`, writing the result document to json_out.

    Returns (exit code, stderr). Exit 1 still writes the document (a result
    failed); exit 2 and other codes raise RzbenchError. With a `launcher`, the directories
    of the output files are the ones the command may write.
    """
    binary = binary or locate_rzbench()
    args = ["bench", *options.arguments(), "--json", str(json_out), "--quiet"]
    if csv_out:
        args += ["--csv", str(csv_out)]
    if markdown_out:
        args += ["--markdown", str(markdown_out)]
    if progress:
        args.append("--progress")
    writes = sorted({p.parent for p in (json_out, csv_out, markdown_out) if p is not None})
    code, stderr = _run(binary, args, progress, timeout, launcher, writes)
    if code not in (EXIT_OK, EXIT_RESULT_FAILED) or not json_out.is_file():
        raise RzbenchError(stderr or _exit_description(code), code)
    return code, stderr


def run_verify(
    corpus: Path, *, binary: Path | None = None, timeout: float | None = None
) -> tuple[int, dict[str, Any]]:
    """Run `rzbench verify` on a corpus; return (exit code, its JSON report)."""
    binary = binary or locate_rzbench()
    with tempfile.TemporaryDirectory(prefix="rzbench-verify-") as tmp:
        out = Path(tmp) / "verify.json"
        code, stderr = _run(
            binary, ["verify", "--corpus", str(corpus), "--json", str(out)], timeout=timeout
        )
        if not out.is_file():
            raise RzbenchError(stderr or _exit_description(code), code)
        report: dict[str, Any] = json.loads(out.read_text())
    return code, report


def run_sizes(
    *,
    corpora: Sequence[Path] = (),
    synthetic: Sequence[str] = (),
    settings: Sequence[int] = (101, 505),
    preconditioners: Sequence[str] = ("none",),
    binary: Path | None = None,
    progress: ProgressCallback | None = None,
    timeout: float | None = None,
    launcher: Launcher | None = None,
) -> list[dict[str, Any]]:
    """Run `rzbench sizes`: exact compressed bytes per branch and setting, per dataset."""
    binary = binary or locate_rzbench()
    args = ["sizes"]
    for corpus in corpora:
        args += ["--corpus", str(corpus)]
    if synthetic:
        args += ["--synthetic", ",".join(synthetic)]
    args += ["--settings", ",".join(str(s) for s in settings)]
    args += ["--preconditioners", ",".join(preconditioners)]
    with tempfile.TemporaryDirectory(prefix="rzbench-sizes-") as tmp:
        out = Path(tmp) / "sizes.json"
        code, stderr = _run(
            binary,
            [*args, "--json", str(out), *(["--progress"] if progress else [])],
            progress,
            timeout,
            launcher,
            [Path(tmp)],
        )
        if code != EXIT_OK or not out.is_file():
            raise RzbenchError(stderr or _exit_description(code), code)
        datasets: list[dict[str, Any]] = json.loads(out.read_text())["datasets"]
    return datasets
