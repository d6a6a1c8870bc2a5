"""Issue 23's figures from a counted document (`basketbench run --instructions --json F`):
Spearman rank correlation of instructions per MB against the median MB/s over the settings, per
operation, and the machine's load around the timed run.

    .venv/bin/python -m bench.instruction_counts F.json      # record in docs/perf/instructions.md
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

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


def main() -> None:
    doc = json.loads(Path(sys.argv[1]).read_text())
    print(json.dumps(correlations(doc), indent=2))


if __name__ == "__main__":
    main()
