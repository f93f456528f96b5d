"""The seasons' beat task: thin, see seasons.periodic."""

from __future__ import annotations

from typing import Any

from celery import shared_task

from armada_web.jobs.queues import Task
from armada_web.seasons.periodic import tick


@shared_task(name=Task.SEASONS_TICK, ignore_result=True)
def seasons_tick() -> dict[str, Any]:
    """Seasons by their times and the finals played on (seasons/periodic.py)."""
    return tick()
