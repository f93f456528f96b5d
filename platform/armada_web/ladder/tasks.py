"""Celery beat tasks of the ladder: matchmaking (every few seconds), the league's and the ratings'
safety syncs."""

from __future__ import annotations

from celery import shared_task
from django.conf import settings

from armada_web.jobs import queues
from armada_web.jobs.queues import Task
from armada_web.ladder import playing
from armada_web.ladder.league import sync_league
from armada_web.ladder.matchmaking import fill_queue


@shared_task(name=Task.MATCHMAKING, ignore_result=True)
def matchmaking() -> int:
    """Top the ranked queue up (ladder/matchmaking.py); returns the matches made."""
    return len(fill_queue())


def top_up() -> None:
    """Ask for a matchmaking tick now (a ranked match ended: its worker is free) on the periodic
    queue, where beat's ticks run one at a time; dropped when not run within a tick, since beat's
    next one does the same. Without it, matches shorter than a tick left workers idle: at most
    2 matches a worker a tick (docs/operations.md, "Sizing a competition")."""
    seconds = settings.ARMADA.matchmaking_s
    if seconds:
        matchmaking.apply_async(queue=queues.default_queue(), expires=float(seconds))


@shared_task(name=Task.SYNC_LEAGUE, ignore_result=True)
def sync_league_task() -> dict[str, int]:
    """Bring the league table in line with the active Mothership races (usually nothing to do)."""
    return sync_league()


@shared_task(name=Task.REPAIR_PLAYING, ignore_result=True)
def repair_standing_task() -> int:
    """Re-derive which ratings are on the ladder from the playing versions (usually nothing to do)."""
    return playing.repair()
