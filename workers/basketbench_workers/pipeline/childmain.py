"""The shared body of the measuring children (abchild, arenachild, headroomchild): each runs
one measurement of the measure library in a process group of its own, so that its stage's
time limit holds (stages run them through abstage.run_child).

The request file names the document's `out`, and `sandbox` when a commit's code takes part
(its rzbench runs through the worker's sandbox, seeing only those folders). Exit codes: 0 the
document is at `out` (written whole: a `.partial` renamed); 2 bad input; 1 the measurement
failed or could not be sandboxed. The reason is one line of the run's log, never a traceback."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from basketbench.measure.rzbench.runner import Launcher

from basketbench_workers.config import WorkerSettings
from basketbench_workers.sandbox import Sandbox, SandboxUnavailable

Measure = Callable[[dict[str, Any], Launcher | None, Callable[[str], None]], dict[str, Any]]


def child_main(argv: list[str], prefix: str, measure: Measure,
               input_errors: tuple[type[Exception], ...],
               failures: tuple[type[Exception], ...]) -> int:
    """Reads the request (argv[1]), measures, writes the document; the exit code above.
    `prefix` starts every log line ("ab", "arena", "headroom")."""
    request = json.loads(Path(argv[1]).read_text())

    def say(message: str) -> None:
        print(f"{prefix}: {message}", flush=True)

    failing: tuple[type[Exception], ...] = (*failures, SandboxUnavailable)
    try:
        launcher = None
        if request.get("sandbox") is not None:
            launcher = Sandbox.for_settings(WorkerSettings()).launcher(
                readable=[Path(p) for p in request["sandbox"]])
        doc = measure(request, launcher, say)
    except input_errors as exc:
        say(f"bad input: {exc}")
        return 2
    except failing as exc:
        say(f"failed: {exc}")
        return 1
    partial = Path(request["out"] + ".partial")
    partial.write_text(json.dumps(doc))
    partial.replace(request["out"])
    return 0
