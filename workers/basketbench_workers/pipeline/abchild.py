"""Child process of the A/B stage (abstage.measure): one run_ab call, its document written to
the request's `out`. Exit 2: bad input (a missing layer, an unknown release); 1: the
measurement failed (a crash, a round trip that was not byte-exact)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from basketbench.measure.ab import ABError, ABInputError, run_ab

from basketbench_workers.config import WorkerSettings
from basketbench_workers.sandbox import Sandbox, SandboxUnavailable


def main(argv: list[str]) -> int:
    request = json.loads(Path(argv[1]).read_text())

    def say(message: str) -> None:
        print(message, flush=True)

    launcher = None
    if request.get("sandbox") is not None:  # a commit's code: rzbench runs sandboxed
        launcher = Sandbox.for_settings(WorkerSettings()).launcher(
            readable=[Path(p) for p in request["sandbox"]])
    try:
        doc = run_ab(request["a"], request["b"], Path(request["corpus"]),
                     request["settings"], pairs=int(request["pairs"]),
                     target_ms=float(request["target_ms"]), rzbench=Path(request["rzbench"]),
                     say=say, launcher=launcher, scratch=Path(request["scratch"]))
    except ABInputError as exc:
        print(f"ab: bad input: {exc}", flush=True)
        return 2
    except (ABError, SandboxUnavailable) as exc:
        print(f"ab: failed: {exc}", flush=True)
        return 1
    partial = Path(request["out"] + ".partial")
    partial.write_text(json.dumps(doc))
    partial.replace(request["out"])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
