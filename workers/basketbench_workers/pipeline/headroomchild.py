"""Child process of the headroom stage (headroomstage.measure_headroom): one run_headroom
call, its document written to the request's `out`. Exit 2: bad input (a missing layer or
corpus); 1: the measurement failed (a crash, a round trip that was not byte-exact) or could
not be sandboxed (childmain.py)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from basketbench.measure.headroom import HeadroomError, HeadroomInputError, run_headroom
from basketbench.measure.rzbench.runner import Launcher

from basketbench_workers.pipeline.childmain import child_main


def measure(request: dict[str, Any], launcher: Launcher | None,
            say: Callable[[str], None]) -> dict[str, Any]:
    # timed only: callgrind inside the sandbox is not part of the per-commit budget
    return run_headroom(Path(request["corpus"]), None, request["settings"],
                        layer=request["layer"], pairs=int(request["pairs"]),
                        target_ms=float(request["target_ms"]), instructions=False,
                        rzbench=Path(request["rzbench"]), launcher=launcher,
                        scratch=Path(request["scratch"]), say=say)


if __name__ == "__main__":
    sys.exit(child_main(sys.argv, "headroom", measure, (HeadroomInputError,),
                        (HeadroomError,)))
