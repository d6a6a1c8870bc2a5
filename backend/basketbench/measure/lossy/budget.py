"""Precision budgets: the fewest bytes each column can take while its errors stay within the
budget of its class ("relative error below 1e-4 on momenta").

A budget is `CLASS:rel=X` or `CLASS:abs=X`, CLASS being a named class (momenta, energies,
angles, all) or a glob over column names (`Muon_*`). The first budget whose class matches a
column applies; columns without a budget stay `full`.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from typing import Any


def _suffixes(*names: str) -> tuple[str, ...]:
    # NanoAOD and HZZ name columns Muon_pt; xAOD (PHYSLITE) names fields AnalysisMuonsAuxDyn.pt
    return tuple(f"*{sep}{name}" for name in names for sep in ("_", "."))


CLASSES = {
    "momenta": _suffixes("P[xyz]", "p[xyz]", "pt", "Pt", "E", "e", "mass", "m"),
    "angles": _suffixes("eta", "phi", "Eta", "Phi"),
    "all": ("*",),
}


class BudgetError(ValueError):
    """A budget that cannot be parsed (the message shows the expected form)."""


@dataclass(frozen=True)
class Budget:
    name: str
    patterns: tuple[str, ...]
    bound: str  # rel | abs
    limit: float

    def matches(self, column: str) -> bool:
        return any(fnmatch.fnmatchcase(column, p) for p in self.patterns)

    def allows(self, result: dict[str, Any]) -> bool:
        key = "max_rel_error" if self.bound == "rel" else "max_abs_error"
        return float(result[key]) <= self.limit

    @property
    def text(self) -> str:
        return f"{self.name}:{self.bound}={self.limit:g}"


def parse_budget(text: str) -> Budget:
    name, sep, rule = text.partition(":")
    bound, eq, value = rule.partition("=")
    try:
        limit = float(value)
    except ValueError:
        limit = -1.0
    if not (sep and eq and name and bound in ("rel", "abs") and limit >= 0):
        raise BudgetError(f"budget {text!r}: expected CLASS:rel=X or CLASS:abs=X, CLASS one of "
                          f"{', '.join(CLASSES)} or a glob of column names, X >= 0")
    return Budget(name, CLASSES.get(name, (name,)), bound, limit)


def recommend(results: list[dict[str, Any]], budgets: list[Budget], setting: int
              ) -> list[dict[str, Any]]:
    """Per column under a budget: the representation with the fewest compressed bytes at
    `setting` whose errors the budget allows, and what it saves against `full`."""
    by_column: dict[str, list[dict[str, Any]]] = {}
    for r in results:
        if r["setting"] == setting:
            by_column.setdefault(r["column"], []).append(r)
    answers = []
    for column, rows in by_column.items():
        budget = next((b for b in budgets if b.matches(column)), None)
        if budget is None:
            continue
        full = next(r for r in rows if r["representation"] == "full")
        allowed = [r for r in rows if budget.allows(r)]
        best = min(allowed, key=lambda r: (r["compressed_bytes"], -r["bits"]))
        answers.append({
            "column": column, "budget": budget.text, "setting": setting,
            "representation": best["representation"], "bits": best["bits"],
            "compressed_bytes": best["compressed_bytes"],
            "full_bytes": full["compressed_bytes"],
            "saved_bytes": full["compressed_bytes"] - best["compressed_bytes"],
            "max_rel_error": best["max_rel_error"], "max_abs_error": best["max_abs_error"],
        })
    return answers
