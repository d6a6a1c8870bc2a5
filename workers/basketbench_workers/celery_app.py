"""The Celery application of the workers (Redis broker, one queue per hardware tag)."""

from __future__ import annotations

from celery import Celery

from basketbench_workers.config import get_settings

TASK_NAME = "basketbench.run_benchmark"


def make_app() -> Celery:
    settings = get_settings()
    app = Celery(
        "basketbench_workers",
        broker=settings.broker_url or "redis://127.0.0.1:6379/0",
        include=["basketbench_workers.tasks"],
    )
    app.conf.update(
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,  # one run at a time; nothing reserved while measuring
        worker_concurrency=1,
        task_ignore_result=True,
        task_serializer="json",
        accept_content=["json"],
        # Redis redelivers an unacked message after visibility_timeout: tied to the run's
        # hard limit (config.effective_visibility_timeout); a duplicate is dropped anyway
        # by the claim (generation), so it is a safety net, not the recovery path.
        broker_transport_options={
            "visibility_timeout": settings.effective_visibility_timeout,
            "unacked_restore_interval": settings.unacked_restore_interval,
            "unacked_restore_throttle": settings.unacked_restore_throttle,
        },
        broker_connection_retry_on_startup=True,
        # Hard limit per task; each stage has its own, tighter deadline (procs.Deadline).
        task_time_limit=settings.run_time_limit,
        worker_hijack_root_logger=False,
        worker_send_task_events=False,
    )
    return app


app = make_app()
