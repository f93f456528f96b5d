"""The match tasks (queues ARMADA_MATCHES_QUEUE, ARMADA_CHALLENGES_QUEUE, ARMADA_FINALS_QUEUE and
ARMADA_EVENTS_QUEUE): thin wrappers around the lease helper.

`run_match` may be delivered twice or die halfway: the claim and `Lease.record`
(armada_web.leases) make each match count once; `reap_matches` (beat) re-queues what a lost
worker or a lost message left behind and after the last attempt marks it `failed`.
"""

from __future__ import annotations

import logging
from typing import Any

from celery import shared_task
from django.conf import settings

from armada_web import leases
from armada_web.matches import execution
from armada_web.matches.models import Match, MatchKind

log = logging.getLogger(__name__)


def queue_for(kind: str) -> str:
    """The queue of a match of `kind`: each kind the site makes has its own (docs/arena.md, "Sharing the workers")."""
    config = settings.ARMADA
    queues = {MatchKind.CHALLENGE: config.challenges_queue, MatchKind.FINALS: config.finals_queue,
              MatchKind.EVENT: config.events_queue}
    return queues.get(kind, config.matches_queue)  # type: ignore[call-overload]


def send(match_id: int, kind: str) -> None:
    """Send `run_match` for a queued match. Safe to call twice: the task claims the row."""
    run_match.apply_async(args=[match_id], queue=queue_for(kind))


@shared_task(name="armada_web.matches.tasks.run_match", acks_late=True, reject_on_worker_lost=True,
             time_limit=settings.ARMADA.match_time_limit_s + 120,
             soft_time_limit=settings.ARMADA.match_time_limit_s + 60)
def run_match(match_id: int) -> str:
    """Run one match (a no-op when it is not queued: delivered twice, or done already)."""
    game = Match.objects.filter(pk=match_id).values_list("game", flat=True).first()
    lease = leases.claim(execution.MATCH, match_id, **execution.claim_fields(game or ""))
    if lease is None:
        return "skipped"
    try:
        return execution.execute(lease)
    except Exception as exc:  # anything unforeseen is the platform's failure, never a bot's loss
        log.exception("match %s failed unexpectedly", match_id)
        return execution.void(lease, f"{exc.__class__.__name__}: {exc}")


def _send(match: Match) -> None:
    send(match.pk, match.kind)


def reap(stuck_after_s: int | None = None) -> dict[str, Any]:
    """Re-queue matches a lost worker left `running` (or whose message was lost while `queued`);
    past the last attempt a stuck match is `failed`. See leases.reap."""
    return leases.reap(execution.MATCH, send=_send, stuck_after_s=stuck_after_s)


@shared_task(name="armada_web.matches.tasks.reap_matches")
def reap_matches() -> dict[str, Any]:
    """Celery beat: see `reap`."""
    return reap()
