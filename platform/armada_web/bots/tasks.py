"""The validation tasks (the validation queue, jobs.queues): thin wrappers around the lease helper.

`validate_version` may be delivered twice or die halfway: the claim and `Lease.record`
(armada_web.jobs.leases) make each version's validation count once; `reap_validations` (beat)
takes back what a lost worker or a lost message left behind. A worker whose sandbox is down
does not claim: it sends the task back a little later (armada_web.jobs.sandbox_watch stops its
consumer). Every log line of the task carries the version's id (armada_web.runtime.logs).
"""

from __future__ import annotations

from typing import Any

from celery import shared_task
from django.conf import settings

from armada_web.bots import validation
from armada_web.bots.models import VersionStatus
from armada_web.games.runner import sandbox_ready
from armada_web.jobs import leases, queues
from armada_web.runtime import logs

#: Seconds before a task handed back by a worker without a sandbox is delivered again.
HAND_BACK_S = 5


def queue_validation(version_id: int, countdown: float = 0) -> None:
    """Send the validation task (on its own queue). Safe to call twice: the task claims the row."""
    validate_version.apply_async(args=[version_id], queue=queues.name(queues.Role.VALIDATION), countdown=countdown)


@shared_task(name=queues.Task.VALIDATE_VERSION, acks_late=True, reject_on_worker_lost=True,
             ignore_result=True, time_limit=900, soft_time_limit=840)
def validate_version(version_id: int) -> str:
    """Validate one pending version: the fairest one waiting (`validation.claim_next`), usually this
    one; a no-op when none is (delivered twice, or done already). Its heartbeat beats meanwhile.
    A worker whose sandbox is down hands the task back unclaimed."""
    if not sandbox_ready():  # this host's engine is gone: leave the version to a worker that has one
        queue_validation(version_id, countdown=HAND_BACK_S)
        return "handed back"
    lease = validation.claim_next(preferred=version_id)
    if lease is None:
        return "skipped"
    with logs.context(attempt=lease.attempt, version=lease.job_id), lease.beating():
        status = validation.run(lease)
    if status == VersionStatus.PENDING:  # given back after a platform failure: try again a little later
        queue_validation(lease.job_id, countdown=settings.ARMADA.validation_retry_s)
    return status


logs.name_task(validate_version.name, "version")


def _send(version: Any) -> None:
    queue_validation(version.pk)


def reap(stuck_after_s: int | None = None) -> dict[str, int]:
    """Re-queue validations a lost worker left (or whose message was lost); see leases.reap."""
    return leases.reap(kind=validation.VALIDATION, send=_send, stuck_after_s=stuck_after_s)


@shared_task(name=queues.Task.REAP_VALIDATIONS, ignore_result=True)
def reap_validations() -> dict[str, int]:
    """Celery beat: see `reap`."""
    return reap()
