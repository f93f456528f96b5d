"""The match tasks (the four match queues of jobs.queues, one per kind of match): thin wrappers
around the lease helper.

`run_match` may be delivered twice or die halfway: the claim and `Lease.record`
(armada_web.jobs.leases) make each match count once; `reap_matches` (beat) re-queues what a lost
worker or a lost message left behind and after the last attempt marks it `failed`. A worker
whose sandbox is down does not claim: it sends the task back to the queue a little later
(and its consumer stops taking more: armada_web.jobs.sandbox_watch). Every log line of the task
carries the match's id (armada_web.runtime.logs).
"""

from __future__ import annotations

import logging
from typing import Any

from celery import shared_task
from django.conf import settings

from armada_web.games.runner import sandbox_ready
from armada_web.jobs import leases, queues
from armada_web.matches import execution
from armada_web.matches.models import Match, MatchKind, MatchStatus
from armada_web.runtime import logs

log = logging.getLogger(__name__)
#: Seconds before a task handed back by a worker without a sandbox is delivered again.
HAND_BACK_S = 5


#: The queue of each kind of match (ranked matches: the matches queue).
QUEUE_ROLES = {MatchKind.CHALLENGE: queues.Role.CHALLENGES, MatchKind.FINALS: queues.Role.FINALS,
               MatchKind.EVENT: queues.Role.EVENTS}


def queue_for(kind: str) -> str:
    """The queue of a match of `kind`: each kind the site makes has its own (docs/arena.md, "Sharing the workers")."""
    return queues.name(QUEUE_ROLES.get(kind, queues.Role.MATCHES))  # type: ignore[call-overload]


def send(match_id: int, kind: str, countdown: float = 0) -> None:
    """Send `run_match` for a queued match. Safe to call twice: the task claims the row."""
    run_match.apply_async(args=[match_id], queue=queue_for(kind), countdown=countdown or None)


@shared_task(name=queues.Task.RUN_MATCH, acks_late=True, reject_on_worker_lost=True,
             ignore_result=True, time_limit=settings.ARMADA.match_time_limit_s + 120,
             soft_time_limit=settings.ARMADA.match_time_limit_s + 60)
def run_match(match_id: int) -> str:
    """Run one match (a no-op when it is not queued: delivered twice, or done already); its
    heartbeat beats while it plays. A worker whose sandbox is down hands the task back unclaimed."""
    row = Match.objects.filter(pk=match_id).values_list("game", "kind").first()
    if row is None:
        return "skipped"
    game, kind = row
    if not sandbox_ready():  # this host's engine is gone: leave the match to a worker that has one
        log.warning("match %s handed back: this worker's sandbox is unavailable", match_id)
        send(match_id, kind, countdown=HAND_BACK_S)
        return "handed back"
    lease = leases.claim(kind=execution.MATCH, job_id=match_id,
                         **execution.claim_fields(game, run_match.request.hostname))
    if lease is None:
        return "skipped"
    with logs.context(attempt=lease.attempt), lease.beating():
        try:
            status = execution.execute(lease=lease)
        except Exception as exc:  # anything unforeseen is the platform's failure, never a bot's loss
            log.exception("match %s failed unexpectedly", match_id)
            reason = f"{exc.__class__.__name__}: {exc}"
            return leases.retrying(lambda: execution.void(lease=lease, reason=reason))
    if status == MatchStatus.QUEUED:  # given back after a sandbox failure: another attempt
        send(match_id, kind, countdown=HAND_BACK_S)
    return status


logs.name_task(run_match.name, "match")


def _send(match: Match) -> None:
    send(match.pk, match.kind)


def reap(stuck_after_s: int | None = None) -> dict[str, Any]:
    """Re-queue matches a lost worker left `running` (or whose message was lost while `queued`);
    past the last attempt a stuck match is `failed`. See leases.reap."""
    return leases.reap(kind=execution.MATCH, send=_send, stuck_after_s=stuck_after_s)


@shared_task(name=queues.Task.REAP_MATCHES, ignore_result=True)
def reap_matches() -> dict[str, Any]:
    """Celery beat: see `reap`."""
    return reap()
