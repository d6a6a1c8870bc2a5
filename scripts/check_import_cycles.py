"""No module of backend/, workers/ or devtools/ may reach itself through imports (`make lint`).

import-linter's contracts (pyproject.toml) say which package may import which; this
says that no two modules import each other, directly or through others, counting imports
made inside functions too (a lazy import hides a circle; it does not remove it).
Exit 1 and the circles when there are any."""

from __future__ import annotations

import sys
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("basketbench", "basketbench_workers", "basketbench_devtools")


def circles(graph: grimp.ImportGraph) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for start in sorted(graph.modules):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.find_modules_directly_imported_by(start))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph.find_modules_directly_imported_by(nxt)))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def main() -> int:
    sys.path[:0] = [str(ROOT / "backend"), str(ROOT / "workers"), str(ROOT / "devtools")]
    graph = grimp.build_graph(*PACKAGES, cache_dir=None)
    found = circles(graph)
    for component in found:
        print("import circle: " + " <-> ".join(component))
    print(f"{len(graph.modules)} modules, {len(found)} import circles")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
