"""Child process of the A/B stage (abstage.measure): one run_ab call, its document written to
the request's `out`. Exit 2: bad input (a missing layer, an unknown release); 1: the
measurement failed (a crash, a round trip that was not byte-exact) or could not be
sandboxed (childmain.py)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from basketbench.measure.ab import ABError, ABInputError, run_ab
from basketbench.measure.rzbench.runner import Launcher

from basketbench_workers.pipeline.childmain import child_main


def measure(request: dict[str, Any], launcher: Launcher | None,
            say: Callable[[str], None]) -> dict[str, Any]:
    return run_ab(request["a"], request["b"], Path(request["corpus"]), request["settings"],
                  pairs=int(request["pairs"]), target_ms=float(request["target_ms"]),
                  rzbench=Path(request["rzbench"]), say=say, launcher=launcher,
                  scratch=Path(request["scratch"]))


if __name__ == "__main__":
    sys.exit(child_main(sys.argv, "ab", measure, (ABInputError,), (ABError,)))
