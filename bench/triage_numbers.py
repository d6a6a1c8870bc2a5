"""The numbers of docs/perf/changes.md#triage-at-scale, read from a seeded API:

    cd frontend && node e2e/serve.mjs --commits 300     # prints {"url": ...}
    .venv/bin/python -m bench.triage_numbers http://127.0.0.1:PORT

For the release pair of tests/e2e/seed.py's release machine: rows and JSON bytes of compare's
old answer (every metric, one page) and of the dashboard's (merged, decided, 100 a page), and
where the ZSTD-5 size change of one dataset lands in each order; and the changes inbox as
rows against summary lines."""

from __future__ import annotations

import json
import sys
import urllib.request
from typing import Any


def get(base: str, path: str) -> tuple[Any, int]:
    with urllib.request.urlopen(base + "/api/v1" + path, timeout=300) as answer:
        body = answer.read()
    return json.loads(body), len(body)


def main(base: str, machine: str = "xeon-02", dataset: str = "uproot-HZZ") -> None:
    releases = [c["sha"] for c in get(base, "/commits?q=(release)&limit=10")[0]["items"]][::-1]
    q = f"/compare?base_commit={releases[0]}&head_commit={releases[1]}&machine={machine}"
    old, old_bytes = get(base, q)
    new, new_bytes = get(base, q + "&merged=true&order=decided&limit=100")
    every, _ = get(base, q + "&merged=true&order=decided&limit=10000")

    def target(r: dict[str, Any]) -> bool:
        return (r["dataset"] == dataset and r["configuration"]["setting"] == 505
                and r["metric"] == "compressed_bytes")

    # the old page sorted by signed delta (its default), significant only or not
    by_delta = sorted(old["rows"], key=lambda r: (r["delta_pct"] is None, r["delta_pct"] or 0))
    significant = [r for r in by_delta if r["significant"]]
    changes, _ = get(base, "/changes?limit=1")
    lines, _ = get(base, "/changes/summary?limit=1")
    print(json.dumps({
        "pair": [r[:12] for r in releases], "machine": machine,
        "old_rows": len(old["rows"]), "old_bytes": old_bytes,
        "new_rows_page": len(new["rows"]), "new_total": new["total"], "new_bytes": new_bytes,
        "counts_old": {"regressions": sum(r["regression"] for r in old["rows"]),
                       "improvements": sum(r["significant"] and not r["regression"]
                                           for r in old["rows"])},
        "counts_new": new["counts"], "rule_note": new["rule"]["note"],
        "target_old_position": next(i for i, r in enumerate(by_delta, 1) if target(r)),
        "target_old_significant_position": next(
            (i for i, r in enumerate(significant, 1) if target(r)), None),
        "old_significant_rows": len(significant),
        "target_new_position": next(i for i, r in enumerate(every["rows"], 1) if target(r)),
        "target": next(r for r in every["rows"] if target(r)),
        "changes_rows": changes["total"], "summary_lines": lines["total"],
        "summary_changes": lines["changes"],
    }, indent=1))


if __name__ == "__main__":
    main(*sys.argv[1:])
