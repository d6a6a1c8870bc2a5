"""Instruction-count figures (recorded in docs/perf/instructions.md):

    # Spearman rank correlation of instructions (and estimated cycles) per MB against the
    # median MB/s over the settings of a counted document (`basketbench run --instructions`)
    .venv/bin/python -m bench.instruction_counts F.json
    # the counts' spread: N counted runs of the same binary and arguments, with the load of each
    .venv/bin/python -m bench.instruction_counts --spread 5
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

from basketbench.measure.rzbench.counting import count_results
from basketbench.measure.rzbench.runner import BenchOptions, locate_rzbench
from scipy.stats import spearmanr


def correlations(doc: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"load": doc.get("load", {}).get("start"), "operations": {}}
    for op in ("compress", "decompress"):
        pairs = [
            (r[f"{op}_instructions_per_mb"], r[f"{op}_mbps"]["median"],
             r[f"{op}_estimated_cycles_per_mb"])
            for r in doc["results"]
            if r["setting"] != 0 and r.get(f"{op}_instructions_per_mb") and r[f"{op}_mbps"]
        ]
        ipmb, mbps, cpmb = zip(*pairs, strict=True)
        # More instructions per MB = slower: the expected correlation is negative.
        rho_i = spearmanr(ipmb, mbps).statistic
        rho_c = spearmanr(cpmb, mbps).statistic
        out["operations"][op] = {"settings": len(pairs), "rho_instructions_vs_mbps": rho_i,
                                 "rho_cycles_vs_mbps": rho_c}
    return out


def spread(runs: int) -> list[dict[str, Any]]:
    """Counted runs of memcpy + ZLIB-1, LZMA-7, LZ4-4, ZSTD-5 on `event`, one line each."""
    args = BenchOptions(synthetic=["event"], settings=[101, 207, 404, 505], min_samples=1,
                        target_ms=0).arguments()
    out = []
    for _ in range(runs):
        load1 = float(Path("/proc/loadavg").read_text().split()[0])
        started = time.monotonic()
        doc, counts = count_results(locate_rzbench(), args)
        out.append({"load1": load1, "seconds": time.monotonic() - started, "counts": {
            f"{r['setting']}:{op}": counts[(i, op)].instructions
            for i, r in enumerate(doc["results"]) for op in ("compress", "decompress")}})
        print(json.dumps(out[-1]), flush=True)
    return out


def main() -> None:
    if sys.argv[1] == "--spread":
        spread(int(sys.argv[2]))
        return
    doc = json.loads(Path(sys.argv[1]).read_text())
    print(json.dumps(correlations(doc), indent=2))


if __name__ == "__main__":
    main()
