"""Child process of the arena stage (arenastage.measure): one run_arena call, its document
written to the request's `out`. Exit 2: bad input (a missing file or layer, an unknown
candidate); 1: the measurement failed or could not be sandboxed (childmain.py)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from basketbench.measure.arena import ArenaError, ArenaInputError, run_arena
from basketbench.measure.rzbench.runner import Launcher

from basketbench_workers.pipeline.childmain import child_main


def measure(request: dict[str, Any], launcher: Launcher | None,
            say: Callable[[str], None]) -> dict[str, Any]:
    # ROOT's reference layer is a commit's code: the launcher runs it sandboxed
    return run_arena(Path(request["file"]), candidates=request["candidates"],
                     rzbench=Path(request["rzbench"]), reference_layer=request["reference"],
                     pairs=int(request["pairs"]), shape_pairs=int(request["shape_pairs"]),
                     target_ms=float(request["target_ms"]), cache=Path(request["cache"]),
                     say=say, launcher=launcher, scratch=Path(request["scratch"]))


if __name__ == "__main__":
    sys.exit(child_main(sys.argv, "arena", measure, (ArenaInputError,), (ArenaError,)))
