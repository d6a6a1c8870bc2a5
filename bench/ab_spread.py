"""The spread of an interleaved A/B ratio against the spread of absolute MB/s from separate runs,
at a given machine load (issue 32; record: docs/perf/ab.md).

    .venv/bin/python -m bench.ab_spread --corpus /tmp/hzz.bbc --runs 5 --busy 4 \\
        --records /tmp/ab-spread.jsonl

Starts `--busy N` busy loops beside the measurement (killed at the end), then `--runs` times:
one separate `rzbench bench` process of the host layer (its median MB/s per setting and
direction), and one `rzbench ab --a host --b host` process (its median ratio and interval). The
spread of the absolute medians across the separate runs is what comparing two runs measured at
different times is exposed to; the spread of the A/B medians is what an interleaved comparison
is. Each run appends a record (with the load average) to `--records`; a Markdown table is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from basketbench.measure.rzbench.runner import locate_rzbench


def busy_loops(n: int) -> list[subprocess.Popen[bytes]]:
    """n processes spinning on a core each (the issue's `while :; do :; done`)."""
    return [subprocess.Popen(["sh", "-c", "while :; do :; done"], start_new_session=True)
            for _ in range(n)]


def stop(procs: list[subprocess.Popen[bytes]]) -> None:
    for p in procs:
        os.killpg(p.pid, signal.SIGKILL)  # each loop is its own session: only it is killed
        p.wait()


def one_bench(rzbench: Path, corpus: Path, settings: str) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "bench.json"
        subprocess.run([str(rzbench), "bench", "--corpus", str(corpus), "--settings", settings,
                        "--no-memcpy", "--quiet", "--json", str(out)], check=True)
        doc = json.loads(out.read_text())
    return {f"{r['setting']} {d}": r[f"{d}_mbps"]["median"] for r in doc["results"]
            for d in ("compress", "decompress")}


def one_ab(rzbench: Path, corpus: Path, settings: str, pairs: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "ab.json"
        subprocess.run([str(rzbench), "ab", "--a", "host", "--b", "host", "--corpus", str(corpus),
                        "--settings", settings, "--pairs", str(pairs), "--json", str(out)],
                       check=True)
        doc = json.loads(out.read_text())
    return {f"{r['setting']} {d}": r[d]["summary"] for r in doc["results"]
            for d in ("compress", "decompress")} | {"_interference": doc["interference"]}


def spread(values: list[float]) -> tuple[float, float]:
    """(max - min) / median and the coefficient of variation, in %."""
    mid = statistics.median(values)
    cv = statistics.stdev(values) / statistics.mean(values) if len(values) > 1 else 0.0
    return 100 * (max(values) - min(values)) / mid, 100 * cv


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--settings", default="101,201")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--pairs", type=int, default=31)
    parser.add_argument("--busy", type=int, default=0, help="busy loops beside the runs")
    parser.add_argument("--records", type=Path)
    args = parser.parse_args()
    rzbench = locate_rzbench()
    loops = busy_loops(args.busy)
    loads: list[float] = []
    benches: list[dict[str, float]] = []
    abs_: list[dict[str, Any]] = []
    try:
        time.sleep(5 if args.busy else 0)
        for _ in range(args.runs):
            loads.append(os.getloadavg()[0])
            benches.append(one_bench(rzbench, args.corpus, args.settings))
            abs_.append(one_ab(rzbench, args.corpus, args.settings, args.pairs))
            loads.append(os.getloadavg()[0])
            if args.records:
                with args.records.open("a") as fh:
                    fh.write(json.dumps({"busy": args.busy, "load": loads[-2:],
                                         "bench": benches[-1], "ab": abs_[-1]}) + "\n")
    finally:
        stop(loops)
    print(f"busy loops {args.busy}, load average {min(loads):.1f}-{max(loads):.1f}, "
          f"{args.runs} runs\n")
    print("| setting, direction | separate runs: median MB/s, range / median, CV "
          "| A/B host/host: median ratios, range, CV | typical 95 % interval |")
    print("|---|---|---|---|")
    for key in benches[0]:
        mbps = [b[key] for b in benches]
        ratios = [a[key]["ratio"] for a in abs_ if a[key]["ratio"] is not None]
        widths = [(a[key]["ci_high"] - a[key]["ci_low"]) / 2 for a in abs_
                  if a[key]["ratio"] is not None]
        r_m, c_m = spread(mbps)
        r_a, c_a = spread(ratios) if ratios else (float("nan"), float("nan"))
        nan = float("nan")
        mid_ratio = statistics.median(ratios) if ratios else nan
        half = 100 * statistics.median(widths) if widths else nan
        print(f"| {key} | {statistics.median(mbps):.1f} MB/s, {r_m:.1f} %, {c_m:.1f} % "
              f"| {mid_ratio:.4f}, {r_a:.2f} %, {c_a:.2f} % | +-{half:.2f} % |")
    disturbed = [a["_interference"]["disturbed_fraction"] for a in abs_]
    print(f"\nA/B disturbed repetitions: {min(disturbed):.0%}-{max(disturbed):.0%}")


if __name__ == "__main__":
    main()
