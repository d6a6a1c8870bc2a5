"""Guards on what a request costs that do not depend on the machine's speed: the SQL
statements it runs (counted with SQLAlchemy's ``before_cursor_execute`` event) and the
plans PostgreSQL chooses for them (``EXPLAIN (FORMAT JSON)``). The tests in this folder
hold the expected figures; these helpers only measure and describe what they found, so a
failure names the endpoint, the statement and the plan node."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Engine, event

# Tables too large to read whole on a request: a sequential scan over either is a defect.
BIG_TABLES = ("results", "result_documents")


@dataclass
class Statement:
    sql: str
    params: Any

    def short(self, width: int = 160) -> str:
        flat = re.sub(r"\s+", " ", self.sql).strip()
        return flat if len(flat) <= width else flat[:width - 3] + "..."


@dataclass
class StatementLog:
    """Every statement any engine of this process executes while the block runs (the
    app's main engine and its side pool alike). Use it only where no background thread
    of the app runs SQL (dispatch none, detection off), so the log is the request's."""

    statements: list[Statement] = field(default_factory=list)

    def _on(self, _conn: Any, _cursor: Any, statement: str, parameters: Any,
            _context: Any, executemany: bool) -> None:
        self.statements.append(Statement(statement, parameters))

    def __enter__(self) -> StatementLog:
        event.listen(Engine, "before_cursor_execute", self._on)
        return self

    def __exit__(self, *_exc: object) -> None:
        event.remove(Engine, "before_cursor_execute", self._on)

    def __len__(self) -> int:
        return len(self.statements)

    def listing(self) -> str:
        return "\n".join(f"  {i + 1}. {s.short()}" for i, s in enumerate(self.statements))


def count_problem(name: str, expected: int, log: StatementLog) -> str | None:
    """None when ``name`` ran ``expected`` statements, else a message naming it and
    listing what it ran."""
    if len(log) == expected:
        return None
    return (f"{name}: {len(log)} SQL statements, expected {expected} (update the table "
            f"only for a reason; each statement is a round trip):\n{log.listing()}")


def plan_nodes(plan: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield plan
    for child in plan.get("Plans", ()):
        yield from plan_nodes(child)


# Nodes that hand rows on as they come: below a Limit through only these, a scan stops once
# the Limit has its rows (a Sort, Hash or Aggregate reads all its input first).
_STREAMING = frozenset({"Limit", "Nested Loop", "Index Scan", "Index Only Scan", "Result",
                        "Subquery Scan", "Memoize"})


def _limited_scans(plan: dict[str, Any], under_limit: bool = False
                   ) -> Iterator[tuple[dict[str, Any], bool]]:
    """Every node with whether a Limit above it bounds what it reads (streaming path only)."""
    kind = plan.get("Node Type", "")
    bounded = kind == "Limit" or (under_limit and kind in _STREAMING)
    yield plan, under_limit and kind in _STREAMING
    for i, child in enumerate(plan.get("Plans", ())):
        # of a nested loop, only the outer side stops early; the inner side is scanned per row
        yield from _limited_scans(child, bounded and (kind != "Nested Loop" or i == 0))


def explain(dbapi_conn: Any, statement: Statement) -> dict[str, Any]:
    """The plan PostgreSQL chooses for the statement with its parameters (not run)."""
    with dbapi_conn.cursor() as cur:
        cur.execute("EXPLAIN (FORMAT JSON) " + statement.sql, statement.params)
        raw = cur.fetchone()[0]
    doc = raw if isinstance(raw, list) else json.loads(raw)
    return dict(doc[0]["Plan"])


def leading_columns(dbapi_conn: Any) -> dict[str, str]:
    """index name -> its first column, for the indexes of the big tables."""
    rows = dbapi_conn.execute(
        "SELECT i.relname, a.attname FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid "
        "JOIN pg_class t ON t.oid = x.indrelid JOIN pg_attribute a ON a.attrelid = t.oid "
        "AND a.attnum = x.indkey[0] WHERE t.relname = ANY(%s)", (list(BIG_TABLES),))
    return dict(rows.fetchall())


def whole_reads(plan: dict[str, Any], leading: dict[str, str],
                tables: tuple[str, ...] = BIG_TABLES) -> list[str]:
    """The plan's reads of a big table from end to end, described: sequential scans, and
    index scans without a condition on the index's first column (a walk through the
    whole index, which a dropped index can turn another index's scan into)."""
    found = []
    for node, limited in _limited_scans(plan):
        table = node.get("Relation Name")
        if table not in tables:
            continue
        kind = node.get("Node Type")
        if kind == "Seq Scan":
            found.append(f"Seq Scan on {table}"
                         + (f" (filter {node['Filter']})" if "Filter" in node else ""))
        elif kind in ("Index Scan", "Index Only Scan"):
            index, cond = node.get("Index Name", ""), node.get("Index Cond", "")
            first = leading.get(index)
            # in index order under a Limit (the newest N documents): N rows, not the index
            if limited:
                continue
            if first is not None and not re.search(rf"\b{first}\s*(=|<|>|IS\b)", cond):
                found.append(f"{kind} using {index} on {table} without a condition on its "
                             f"first column {first} (index cond {cond or 'none'})")
    return found


# Planner costs either side of PostgreSQL's defaults (a server tuned for SSDs or for
# spinning disks, a smaller or larger cache, cheaper or dearer rows). A plan that is the
# cheapest by a hair flips between machines on a slightly different sample of the tables'
# statistics: one did on a CI run (the listing's join of result_documents by id alone,
# 189 against ~190 for a sequential scan). Checked under these too, such a plan fails on
# every machine rather than on some.
NEARBY_COSTS = (("random_page_cost", "2"), ("random_page_cost", "6"),
                ("cpu_tuple_cost", "0.005"), ("cpu_tuple_cost", "0.02"),
                ("effective_cache_size", "64MB"), ("effective_cache_size", "16GB"))


def plan_problems(name: str, dbapi_conn: Any, log: StatementLog,
                  nearby: bool = False) -> list[str]:
    """Every read of a big table from end to end (whole_reads) in the plans of the
    statements ``name`` ran, each naming the endpoint, the statement and the node; with
    ``nearby``, also in the plans chosen under each of NEARBY_COSTS (named with it).
    Needs an autocommit connection (the settings are set and reset on it)."""
    problems = _problems(name, dbapi_conn, log, "")
    for setting, value in NEARBY_COSTS if nearby else ():
        dbapi_conn.execute(f"SET {setting} = '{value}'")
        try:
            problems += _problems(name, dbapi_conn, log, f" (with {setting} = {value})")
        finally:
            dbapi_conn.execute(f"RESET {setting}")
    return problems


def _problems(name: str, dbapi_conn: Any, log: StatementLog, under: str) -> list[str]:
    problems = []
    leading = leading_columns(dbapi_conn)
    for i, statement in enumerate(log.statements, 1):
        if not statement.sql.lstrip().upper().startswith(("SELECT", "WITH")):
            continue
        for node in whole_reads(explain(dbapi_conn, statement), leading):
            problems.append(f"{name}: statement {i} plans a {node}{under}: "
                            f"{statement.short()}")
    return problems
