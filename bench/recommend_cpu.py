"""CPU time per request of POST /recommend and /recommend/groups at the largest bodies they
accept (issue 38: goal <= 0.2 CPU-s), in one process through the ASGI app: the process's
user+system CPU time around each request, median of 7. Writes one line per body shape.

    .venv/bin/python bench/recommend_cpu.py        # figures go to docs/perf/faults.md
"""

from __future__ import annotations

import json
import random
import resource
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from basketbench.app import create_app
from basketbench.core import migrate
from basketbench.core.config import Settings
from basketbench.recommend.schemas import GROUP_WEIGHT, MAX_CANDIDATES, MAX_GROUP_WORK
from fastapi.testclient import TestClient

SETTINGS = [a * 100 + level for a in (1, 2, 4, 5) for level in range(10)]
KEYS = [(s, p) for s in SETTINGS for p in ("none", "shuffle", "bitshuffle")]
assert len(KEYS) == MAX_CANDIDATES


def cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def groups_body(sizes_per_group: int) -> dict[str, Any]:
    """As many groups of ``sizes_per_group`` sizes as the work bound accepts."""
    rng = random.Random(1)
    n = MAX_GROUP_WORK // (sizes_per_group + GROUP_WEIGHT)
    speeds = [{"setting": s, "preconditioner": p, "compress_mb_s": rng.uniform(1, 500),
               "decompress_mb_s": rng.uniform(10, 2000)} for s, p in KEYS]
    groups = [{"key": f"b{g}", "raw_bytes": 10**6, "share": 1 / n, "sizes": [
        {"setting": s, "preconditioner": p, "compressed_bytes": rng.randint(10**5, 10**6)}
        for s, p in KEYS[:sizes_per_group]]} for g in range(n)]
    return {"groups": groups, "speeds": speeds}


def recommend_body() -> dict[str, Any]:
    rng = random.Random(2)
    return {"candidates": [
        {"setting": s, "preconditioner": p, "raw_bytes": 10**6,
         "compressed_bytes": rng.randint(10**5, 10**6), "compress_mb_s": rng.uniform(1, 500),
         "decompress_mb_s": rng.uniform(10, 2000)} for s, p in KEYS]}


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(database_url=f"sqlite:///{Path(tmp) / 'bb.db'}", dispatch="none",
                            frontend_dist=Path(tmp) / "none")
        migrate.upgrade(settings)
        shapes = [("/api/v1/recommend", "120 candidates", recommend_body())]
        shapes += [("/api/v1/recommend/groups", f"{k} sizes per group", groups_body(k))
                   for k in (1, 4, 22, 120)]
        with TestClient(create_app(settings)) as client:
            for url, what, body in shapes:
                raw = json.dumps(body).encode()
                times = []
                for _ in range(7):
                    start = cpu()
                    r = client.post(url, content=raw,
                                    headers={"Content-Type": "application/json"})
                    times.append(cpu() - start)
                    assert r.status_code == 200, r.text[:300]
                print(f"{url} {what}: {len(raw)} bytes, CPU-s per request median "
                      f"{statistics.median(times):.3f} (min {min(times):.3f}, "
                      f"max {max(times):.3f})")
    print("load:", Path("/proc/loadavg").read_text().strip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
