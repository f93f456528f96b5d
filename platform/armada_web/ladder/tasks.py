"""Celery beat tasks of the ladder: matchmaking (every few seconds) and the league's safety sync."""

from __future__ import annotations

from celery import shared_task

from armada_web.ladder.league import sync_league
from armada_web.ladder.matchmaking import fill_queue


@shared_task(name="armada_web.ladder.tasks.matchmaking", ignore_result=True)
def matchmaking() -> int:
    """Top the ranked queue up (ladder/matchmaking.py); returns the matches made."""
    return len(fill_queue())


@shared_task(name="armada_web.ladder.tasks.sync_league_task", ignore_result=True)
def sync_league_task() -> dict[str, int]:
    """Bring the league table in line with the active Mothership races (usually nothing to do)."""
    return sync_league()
