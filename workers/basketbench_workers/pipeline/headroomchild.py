"""Child process of the headroom stage (headroomstage.measure_headroom): one run_headroom
call, its document written to the request's `out`. Exit 2: bad input (a missing layer or
corpus); 1: the measurement failed (a crash, a round trip that was not byte-exact)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from basketbench.measure.headroom import HeadroomError, HeadroomInputError, run_headroom

from basketbench_workers.config import WorkerSettings
from basketbench_workers.sandbox import Sandbox, SandboxUnavailable


def main(argv: list[str]) -> int:
    request = json.loads(Path(argv[1]).read_text())

    def say(message: str) -> None:
        print(f"headroom: {message}", flush=True)

    launcher = None
    if request.get("sandbox") is not None:  # a commit's code: rzbench runs sandboxed
        launcher = Sandbox.for_settings(WorkerSettings()).launcher(
            readable=[Path(p) for p in request["sandbox"]])
    try:
        # timed only: callgrind inside the sandbox is not part of the per-commit budget
        doc = run_headroom(Path(request["corpus"]), None, request["settings"],
                           layer=request["layer"], pairs=int(request["pairs"]),
                           target_ms=float(request["target_ms"]), instructions=False,
                           rzbench=Path(request["rzbench"]), launcher=launcher,
                           scratch=Path(request["scratch"]), say=say)
    except HeadroomInputError as exc:
        print(f"headroom: bad input: {exc}", flush=True)
        return 2
    except (HeadroomError, SandboxUnavailable) as exc:
        print(f"headroom: failed: {exc}", flush=True)
        return 1
    partial = Path(request["out"] + ".partial")
    partial.write_text(json.dumps(doc))
    partial.replace(request["out"])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
