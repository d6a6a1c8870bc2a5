"""Celery tasks of the workers."""

from basketbench_workers.tasks.bench import run_benchmark

__all__ = ["run_benchmark"]
