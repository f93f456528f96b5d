"""The events' beat task: thin, see events.scheduling."""

from __future__ import annotations

from typing import Any

from celery import shared_task

from armada_web.events.scheduling import tick


@shared_task(name="armada_web.events.tasks.events_tick", ignore_result=True)
def events_tick() -> dict[str, Any]:
    """Events by their times, and their matches sent as the workers' share allows."""
    return tick()
