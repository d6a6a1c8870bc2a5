"""Celery tasks of the workers."""

from basketbench_workers.tasks.bench import run_benchmark
from basketbench_workers.tasks.bisect import bisect_range

__all__ = ["bisect_range", "run_benchmark"]
