"""Celery beat tasks of the ladder: matchmaking (every few seconds), the league's and the ratings'
safety syncs."""

from __future__ import annotations

from celery import shared_task
from django.conf import settings
from django.core.cache import cache

from armada_web.jobs import queues
from armada_web.jobs.queues import Task
from armada_web.ladder import playing
from armada_web.ladder.league import sync_league
from armada_web.ladder.matchmaking import fill_queue
from armada_web.matches.capacity import known_workers
from armada_web.web.locks import one_at_a_time

#: Cache keys: a tick running (several periodic workers never fill at once), a top-up asked for.
TICK_LOCK, ASKED = "armada:matchmaking:tick", "armada:matchmaking:asked"
#: Seconds a tick may hold the lock (a tick takes milliseconds; a killed one frees it by then).
TICK_LOCK_S = 60
#: At most one top-up asked for a second, however many ranked matches end in it.
ASK_EVERY_S = 1


@shared_task(name=Task.MATCHMAKING, ignore_result=True)
def matchmaking(fresh: bool = True) -> int:
    """Top the ranked queue up (ladder/matchmaking.py); returns the matches made (0 while another
    tick runs: it fills the same queue). `fresh`: count the match workers (beat's ticks); a top-up
    uses the latest count instead of asking the workers again."""
    with one_at_a_time(TICK_LOCK, TICK_LOCK_S) as mine:
        return len(fill_queue(workers=None if fresh else known_workers())) if mine else 0


def top_up() -> None:
    """Ask for a matchmaking tick now (a ranked match ended: its worker is free) on the periodic
    queue, at most one a second, dropped when not run within a tick (beat's next one does the
    same). Without it, matches shorter than a tick left workers idle: at most 2 matches a worker
    a tick (docs/operations.md, "Sizing a competition"). Not with eager tasks, where the tick
    would play its matches inline and top up again from inside them."""
    seconds = settings.ARMADA.matchmaking_s
    if not seconds or settings.CELERY_TASK_ALWAYS_EAGER or not cache.add(ASKED, 1, ASK_EVERY_S):
        return
    matchmaking.apply_async(kwargs={"fresh": False}, queue=queues.default_queue(), expires=float(seconds))


@shared_task(name=Task.SYNC_LEAGUE, ignore_result=True)
def sync_league_task() -> dict[str, int]:
    """Bring the league table in line with the active Mothership races (usually nothing to do)."""
    return sync_league()


@shared_task(name=Task.REPAIR_PLAYING, ignore_result=True)
def repair_standing_task() -> int:
    """Re-derive which ratings are on the ladder from the playing versions (usually nothing to do)."""
    return playing.repair()
