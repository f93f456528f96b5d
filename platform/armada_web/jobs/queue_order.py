"""The order in which a Celery worker takes its queues (the Redis transport's `queue_order_strategy`).

A match worker serves `finals,challenges,events,matches`. kombu's default takes the non-empty
queues round robin (the queue it just took from moves to the end); `FinalsFirst` keeps the
finals queue (`Role.FINALS`) in front of all the others for good and takes the others
round robin behind it. So a season's finals match waiting is the next one any match worker
plays, while challenges, events and ranked matches share the rest in turn and none can starve
another (docs/arena.md, "Sharing the workers"). How many finals matches wait is decided in the
database (`matches.capacity`): exactly as many as the workers the finals claim.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kombu.utils.scheduling import round_robin_cycle

from armada_web.jobs.queues import Role, name


class FinalsFirst(round_robin_cycle):  # type: ignore[misc]
    """Round robin over the queues, with the finals queue always first."""

    def __init__(self, it: Any = None) -> None:
        super().__init__([])
        self.first = {name(Role.FINALS)}
        self.update(it or [])

    def update(self, it: Iterable[str]) -> None:
        queues = list(it)
        self.items[:] = [q for q in queues if q in self.first] + [q for q in queues if q not in self.first]

    def rotate(self, last_used: str) -> str:
        if last_used not in self.first:
            super().rotate(last_used)
        return last_used
