"""Child process of the arena stage (arenastage.measure): one run_arena call, its document
written to the request's `out`. Exit 2: bad input (a missing file or layer, an unknown
candidate); 1: the measurement failed or could not be sandboxed."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from basketbench.measure.arena import ArenaError, ArenaInputError, run_arena

from basketbench_workers.config import WorkerSettings
from basketbench_workers.sandbox import Sandbox, SandboxUnavailable


def main(argv: list[str]) -> int:
    request = json.loads(Path(argv[1]).read_text())

    def say(message: str) -> None:
        print(f"arena: {message}", flush=True)

    launcher = None
    if request.get("sandbox") is not None:  # ROOT's reference layer is a commit's code
        try:
            launcher = Sandbox.for_settings(WorkerSettings()).launcher(
                readable=[Path(p) for p in request["sandbox"]])
        except SandboxUnavailable as exc:
            print(f"arena: failed: {exc}", flush=True)
            return 1
    try:
        doc = run_arena(Path(request["file"]), candidates=request["candidates"],
                        rzbench=Path(request["rzbench"]), reference_layer=request["reference"],
                        pairs=int(request["pairs"]), shape_pairs=int(request["shape_pairs"]),
                        target_ms=float(request["target_ms"]), cache=Path(request["cache"]),
                        say=say, launcher=launcher, scratch=Path(request["scratch"]))
    except ArenaInputError as exc:
        print(f"arena: bad input: {exc}", flush=True)
        return 2
    except (ArenaError, SandboxUnavailable) as exc:
        print(f"arena: failed: {exc}", flush=True)
        return 1
    partial = Path(request["out"] + ".partial")
    partial.write_text(json.dumps(doc))
    partial.replace(request["out"])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
