"""Recommendations without a database: the cost model and ranking (ranking), per-branch
size aggregation (branch_sizes), per-group answers (groups) and the advise pipeline
that measures a file and ranks its settings (advisor)."""
