"""Seasons by their times (Celery beat, `seasons.tasks.seasons_tick`, every ARMADA_SEASONS_TICK_S).

Each tick: an upcoming season whose `opens` has passed opens; an open one whose `closes` has
passed closes (its entries frozen) and, closed, begins its finals at once (a league game
finishes there, its league being the result); one in its finals whose `ends` has passed
finishes with the standings as they are. Then each season in its finals gets its share of the
live match workers (`finals.workers_needed`, from what is left and the time to `ends`; the
count is the one matchmaking last asked Celery for, `matches.capacity.known_workers`) and moves
on (`services.play_on`). Every step is a service with its own state check, so a tick
repeated or run beside a command changes nothing twice.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from django.utils import timezone

from armada_web.matches.capacity import known_workers
from armada_web.seasons import finals, services
from armada_web.seasons.models import Season, SeasonState
from armada_web.web.errors import DomainError

log = logging.getLogger(__name__)


def _step(season: Season, now: datetime) -> str | None:
    """The one transition `season` is due for at `now`, done; its name, or None."""
    if season.state == SeasonState.UPCOMING and season.opens <= now:
        services.open_season(season=season)
        return "opened"
    if season.state == SeasonState.OPEN and season.closes <= now:
        services.close_season(season=season, now=now)
        return "closed"
    if season.state == SeasonState.CLOSED and season.closes <= now and season.ends > now:
        # The settings' plan, at the time the organiser set: started even if it would run past the
        # end (the organiser's refusal, `season finals` without --past-end, is for a plan chosen by hand).
        services.start_finals(season=season, now=now, past_end=True)
        return "finals"
    if season.state in (SeasonState.CLOSED, SeasonState.FINALS) and season.ends <= now:
        services.finish_season(season=season, now=now)
        return "finished"
    return None


def tick(now: datetime | None = None, workers: int | None = None) -> dict[str, Any]:
    """Move every season along by its times, then play the finals on; returns what it did."""
    now = now or timezone.now()
    done: dict[str, list[str]] = {}
    for season in Season.objects.exclude(state=SeasonState.FINISHED).order_by("id"):
        for _ in range(4):  # upcoming -> open -> closed -> finals (or finished) in one tick if overdue
            try:
                step = _step(season, now)
            except DomainError as exc:  # changed meanwhile by a command or the admin
                log.info("season %s: %s", season.slug, exc)
                break
            except Exception:  # a fault of this season's must not hold up the others'
                log.exception("season %s: its %s step failed; the next tick tries again", season.slug, season.state)
                break
            if step is None:
                break
            done.setdefault(step, []).append(season.slug)
            season.refresh_from_db()
    in_finals = list(Season.objects.filter(state=SeasonState.FINALS))
    if in_finals:
        count = known_workers() if workers is None else workers
        for season in in_finals:
            try:
                Season.objects.filter(pk=season.pk).update(finals_workers=finals.workers_needed(season, count, now))
                if services.play_on(season_id=season.pk, now=now):
                    done.setdefault("finished", []).append(season.slug)
            except Exception:
                log.exception("season %s: its finals did not move on; the next tick tries again", season.slug)
    return done
