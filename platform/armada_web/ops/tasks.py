"""Operator tasks for Celery beat: the container sweeper."""

from __future__ import annotations

from celery import shared_task
from django.conf import settings

from armada_sandbox import sweep


@shared_task(name="armada_web.ops.tasks.sweep_containers")
def sweep_containers() -> int:
    """Remove bot containers left behind by dead workers (older than the longest match); returns how many."""
    return len(sweep(max_age_s=settings.ARMADA.match_time_limit_s + 300))
