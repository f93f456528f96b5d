"""The validation tasks (queue ARMADA_VALIDATION_QUEUE): thin wrappers around the lease helper.

`validate_version` may be delivered twice or die halfway: the claim and `Lease.record`
(armada_web.leases) make each version's validation count once; `reap_validations` (beat)
takes back what a lost worker or a lost message left behind.
"""

from __future__ import annotations

from typing import Any

from celery import shared_task
from django.conf import settings

from armada_web import leases
from armada_web.bots import validation
from armada_web.bots.models import VersionStatus


def queue_validation(version_id: int, countdown: float = 0) -> None:
    """Send the validation task (on its own queue). Safe to call twice: the task claims the row."""
    validate_version.apply_async(args=[version_id], queue=settings.ARMADA.validation_queue, countdown=countdown)


@shared_task(name="armada_web.bots.tasks.validate_version", acks_late=True, time_limit=900, soft_time_limit=840)
def validate_version(version_id: int) -> str:
    """Validate one version (a no-op when it is not pending: delivered twice, or done already)."""
    lease = leases.claim(validation.VALIDATION, version_id)
    if lease is None:
        return "skipped"
    status = validation.run(lease)
    if status == VersionStatus.PENDING:  # given back after a platform failure: try again a little later
        queue_validation(version_id, countdown=settings.ARMADA.validation_retry_s)
    return status


def _send(version: Any) -> None:
    queue_validation(version.pk)


def reap(stuck_after_s: int | None = None) -> dict[str, int]:
    """Re-queue validations a lost worker left (or whose message was lost); see leases.reap."""
    return leases.reap(validation.VALIDATION, send=_send, stuck_after_s=stuck_after_s, given_up=validation.given_up)


@shared_task(name="armada_web.bots.tasks.reap_validations")
def reap_validations() -> dict[str, int]:
    """Celery beat: see `reap`."""
    return reap()
