"""Celery beat tasks of the ladder: matchmaking (every few seconds) and the league's safety sync."""

from __future__ import annotations

from celery import shared_task


@shared_task(name="armada_web.ladder.tasks.matchmaking", ignore_result=True)
def matchmaking() -> int:
    """Top the ranked queue up (ladder/matchmaker.py); returns the matches made."""
    from armada_web.ladder.matchmaker import fill_queue

    return len(fill_queue())


@shared_task(name="armada_web.ladder.tasks.sync_league_task", ignore_result=True)
def sync_league_task() -> dict[str, int]:
    """Bring the league table in line with the active Mothership races (usually nothing to do)."""
    from armada_web.ladder.league import sync_league

    return sync_league()
