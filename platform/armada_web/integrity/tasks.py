"""The integrity task (the periodic queue, jobs.queues): thin, see integrity.checks."""

from __future__ import annotations

from celery import shared_task

from armada_web.integrity.checks import run_checks
from armada_web.jobs import queues
from armada_web.seasons.models import Season


@shared_task(name=queues.Task.INTEGRITY_CHECKS, ignore_result=True)
def integrity_checks(season_id: int) -> int:
    """Run every check for a season (sent when it closes); returns the findings (0: no such season)."""
    season = Season.objects.filter(pk=season_id).first()
    return 0 if season is None else len(run_checks(season=season))


def queue_checks(season_id: int) -> None:
    """Send the checks of a season to the periodic queue."""
    integrity_checks.apply_async(args=[season_id], queue=queues.name(queues.Role.PERIODIC))
