"""The live Celery workers: which answer within a second and the queues each consumes.

Asked once per call through Celery's remote control (`inspect().active_queues()`); the status
page lists them, /metrics counts them per queue, the matchmaker counts the match workers.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from celery import current_app

from armada_web.jobs import queues as registry

log = logging.getLogger(__name__)
#: Seconds the workers have to answer.
ASK_S = 1.0


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
    return [Worker(name=name, host=name.partition("@")[2] or name,
                   queues=tuple(sorted(str(q.get("name", "")) for q in queues or [])))
            for name, queues in sorted(replies.items())]


def per_queue(workers: list[Worker]) -> dict[str, int]:
    """How many of `workers` consume each queue of the registry, by queue name (registry's order)."""
    return {name: sum(1 for w in workers if name in w.queues) for name in registry.names().values()}
