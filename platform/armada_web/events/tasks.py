"""The events' beat task: thin, see events.periodic."""

from __future__ import annotations

from typing import Any

from celery import shared_task

from armada_web.events.periodic import tick
from armada_web.jobs.queues import Task


@shared_task(name=Task.EVENTS_TICK, ignore_result=True)
def events_tick() -> dict[str, Any]:
    """Events by their times, and their matches sent as the workers' share allows."""
    return tick()
