"""The live Celery workers: which answer within a second and the queues each consumes.

Asked once per call through Celery's remote control (`inspect().active_queues()`, which waits the
whole ASK_S for answers); /metrics counts them per queue, the matchmaker counts the match workers.
Each answer is kept in the cache for RECENT_S: the status page shows the latest (`recent`), so no
visitor waits on the workers while the matchmaker asks every tick.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from celery import current_app
from django.core.cache import cache

from armada_web.jobs import queues as registry

log = logging.getLogger(__name__)
#: Seconds the workers have to answer.
ASK_S = 1.0
#: How long an answer is shown by `recent` (the matchmaker asks every ARMADA_MATCHMAKING_S).
RECENT_S = 30
RECENT_KEY = "armada:workers:recent"


@dataclass(frozen=True)
class Worker:
    """A worker that answered: its node name (`name@host`), its host and the queues it consumes."""

    name: str
    host: str
    queues: tuple[str, ...]


def live() -> list[Worker] | None:
    """The workers answering within ASK_S, by name; None when the broker cannot be reached."""
    try:
        replies: dict[str, Any] = current_app.control.inspect(timeout=ASK_S).active_queues() or {}
    except Exception as exc:  # the broker is down: no worker can be reached
        log.warning("could not ask the workers (%s)", exc)
        return None
    found = [Worker(name=name, host=name.partition("@")[2] or name,
                    queues=tuple(sorted(str(q.get("name", "")) for q in queues or [])))
             for name, queues in sorted(replies.items())]
    cache.set(RECENT_KEY, [(w.name, w.host, list(w.queues)) for w in found], RECENT_S)
    return found


def recent() -> list[Worker] | None:
    """The latest answer of `live` (at most RECENT_S old), else asks now."""
    kept = cache.get(RECENT_KEY)
    if isinstance(kept, list):
        return [Worker(name=name, host=host, queues=tuple(queues)) for name, host, queues in kept]
    return live()


def per_queue(workers: list[Worker]) -> dict[str, int]:
    """How many of `workers` consume each queue of the registry, by queue name (registry's order)."""
    return {name: sum(1 for w in workers if name in w.queues) for name in registry.names().values()}
