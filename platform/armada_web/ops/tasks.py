"""Operator tasks for Celery beat: the container sweeper."""

from __future__ import annotations

from celery import shared_task
from django.conf import settings

from armada_sandbox import sweep, sweep_folders
from armada_web.jobs.queues import Task


@shared_task(name=Task.SWEEP_CONTAINERS, ignore_result=True)
def sweep_containers() -> int:
    """Remove the bot containers and work folders dead workers left behind (a dead holder's at once,
    others once older than the longest match); returns how many containers."""
    removed = len(sweep(max_age_s=settings.ARMADA.match_time_limit_s + 300))
    sweep_folders()
    return removed
