"""How the match workers are shared between the kinds of matches the site makes by itself
(docs/arena.md, "Sharing the workers").

Each kind has its own queue, and what decides its share is how many of its matches it keeps in
flight (queued or running), which the database counts:
- a season's finals come first: they claim the workers they need (the seasons app registers
  its claim here, `claim`), keep exactly that many matches in flight, and the match workers
  take the finals queue before any other (`armada_web.jobs.queue_order`), so that many workers play
  finals;
- ranked play (ladder.matchmaking) and events (events.matchmaking) each keep
  `target_depth(free workers)` in flight; the workers take the other queues round robin, so
  while both have matches waiting each gets every other free worker, and neither can starve
  the other.

`count_match_workers` asks Celery (jobs.workers) how many workers serve the ranked queue (1 s) and remembers the answer,
so a worker that finishes a match can ask `known_workers` without asking Celery (a busy solo
worker could not answer itself).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.conf import settings
from django.core.cache import cache

from armada_web.jobs import queues, workers

log = logging.getLogger(__name__)
#: The cache key of the latest count of live match workers.
WORKERS_KEY = "armada:match-workers"
WORKERS_TTL_S = 120

#: name -> function(live workers) -> the workers that kind needs now (registered from above).
_claims: dict[str, Callable[[int], int]] = {}


def claim(name: str, workers_needed: Callable[[int], int]) -> None:
    """Register a kind that takes its workers before ranked play and events (idempotent per name;
    `name` is the kind of match it makes, `MatchKind`'s value, which `waiting` reads)."""
    _claims[name] = workers_needed


def count_match_workers() -> int:
    """Workers serving the matches queue: the setting when given, else asked (Celery inspect, 1 s);
    the answer is remembered for `known_workers`."""
    if settings.ARMADA.match_workers > 0:
        return int(settings.ARMADA.match_workers)
    found = workers.live()
    if found is None:  # the broker is down: no match can be queued anyway
        return 0
    count = workers.per_queue(found)[queues.name(queues.Role.MATCHES)]
    cache.set(WORKERS_KEY, count, WORKERS_TTL_S)
    return count


def known_workers(*, unknown: int = 1) -> int:
    """The latest count `count_match_workers` found (the setting when given; `unknown` before any count)."""
    if settings.ARMADA.match_workers > 0:
        return int(settings.ARMADA.match_workers)
    value = cache.get(WORKERS_KEY)
    return int(value) if isinstance(value, int) else unknown


def reserved(workers: int) -> int:
    """The workers the registered kinds claim out of `workers` (never more than there are)."""
    return min(max(0, workers), sum(max(0, needed(workers)) for needed in _claims.values()))


def free(workers: int) -> int:
    """The workers left for ranked play and events."""
    return max(0, workers) - reserved(workers)


#: What a queued match that no claim made is told while the claims take every worker.
ALL_CLAIMED = ("every match worker plays a season's finals now, which come first: this match plays once "
               "they end or need fewer workers")


def waiting(*, kind: str, status: str) -> str:
    """Why a queued match of `kind` waits beyond its queue's turn: the claimed kinds (a season's
    finals; a claim is named by the kind of match it makes) take every live match worker, so no
    worker takes another queue; "" otherwise, and while the workers' count is not known (none
    counted within WORKERS_TTL_S): `known_workers`' default of 1 would say it of every site."""
    if status != "queued" or kind in _claims:
        return ""
    workers = known_workers(unknown=0)
    return ALL_CLAIMED if workers > 0 and free(workers) <= 0 else ""
