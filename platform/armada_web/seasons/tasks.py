"""The seasons' beat task: thin, see seasons.schedule."""

from __future__ import annotations

from typing import Any

from celery import shared_task

from armada_web.seasons.schedule import tick


@shared_task(name="armada_web.seasons.tasks.seasons_tick", ignore_result=True)
def seasons_tick() -> dict[str, Any]:
    """Seasons by their times and the finals played on (seasons/schedule.py)."""
    return tick()
