"""Events by their times (Celery beat, `events.tasks.events_tick`, every ARMADA_SEASONS_TICK_S).

Each tick: an open event whose `starts` has passed begins; a running one whose `ends` has passed,
or a round robin whose games are all played, finishes; then the events' matches are sent as the
workers' share allows (`matchmaking.fill`). Every step is a service with its own state check, so
a tick repeated or run beside a command changes nothing twice.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from django.utils import timezone

from armada_web.events import matchmaking, services
from armada_web.events.models import Event, EventState
from armada_web.matches.capacity import known_workers
from armada_web.web.errors import DomainError

log = logging.getLogger(__name__)


def tick(now: datetime | None = None, workers: int | None = None) -> dict[str, Any]:
    """Beat: start events at `starts`, finish them at `ends` or when all is played, then `fill`."""
    now = now or timezone.now()
    done: dict[str, list[str]] = {}
    for event in Event.objects.exclude(state=EventState.FINISHED).order_by("id"):
        try:
            if (event.ends is not None and event.ends <= now) or (event.state == EventState.RUNNING \
                    and matchmaking.all_played(event)):
                if services.finish(event=event, now=now):
                    done.setdefault("finished", []).append(event.slug)
            elif event.state == EventState.OPEN and event.starts is not None and event.starts <= now:
                services.begin(event=event, now=now)
                done.setdefault("started", []).append(event.slug)
        except DomainError as exc:  # too few entries to start at its time: it waits for its owner
            log.info("event %s: %s", event.slug, exc)
        except Exception:  # a fault of this event's must not hold up the others'
            log.exception("event %s: its step failed; the next tick tries again", event.slug)
    count = known_workers() if workers is None else workers
    done["sent"] = [str(matchmaking.fill(workers=count, now=now))]
    return done
