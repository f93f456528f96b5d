"""The validation tasks (queue `validation`): claim a version, play its game, record the result.

`validate_version` is safe to deliver twice or to die halfway: it claims the row with a
conditional update, records only if its own attempt still holds the row, and the periodic
`reap_validations` re-queues what a dead worker left (after the last attempt: `error`).
"""

from __future__ import annotations

import logging
from datetime import timedelta

from celery import shared_task
from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from armada.referee.framing import one_line
from armada_web.bots import services, storage
from armada_web.bots.models import BotVersion, VersionStatus
from armada_web.bots.sandbox_run import PlatformFailure, validation_game

log = logging.getLogger(__name__)


def claim(version_id: int) -> BotVersion | None:
    """Take a pending version for this worker (pending -> validating), or None if someone else has it."""
    claimed = BotVersion.objects.filter(pk=version_id, status=VersionStatus.PENDING).update(
        status=VersionStatus.VALIDATING, attempts=F("attempts") + 1, started=timezone.now(), finished=None)
    if not claimed:
        return None
    return BotVersion.objects.select_related("bot").get(pk=version_id)


def _mine(version: BotVersion):  # type: ignore[no-untyped-def]
    """The row as long as this attempt still holds it."""
    return BotVersion.objects.filter(pk=version.pk, status=VersionStatus.VALIDATING, attempts=version.attempts)


def run_validation(version: BotVersion) -> str:
    """Validate a claimed version and record the outcome; returns the new status."""
    try:
        archive = storage.read_archive(version)
    except OSError as exc:
        return platform_failure(version, f"the archive could not be read from storage ({exc.__class__.__name__})")
    try:
        report = validation_game(version.bot.game, archive, version.bot.name, version.pk, seed=version.pk)
    except PlatformFailure as exc:
        return platform_failure(version, str(exc))
    ok = report.status == "ok"
    status = VersionStatus.VALID if ok else VersionStatus.INVALID
    detail = "" if ok else one_line(f"{report.status}: {report.detail}", 480)
    with transaction.atomic():
        updated = _mine(version).update(
            status=status, detail=detail, log=report.log, orders=report.orders,
            race_name=report.name[:40] if ok else "", engine_version=report.engine_version[:40],
            finished=timezone.now())
        if updated and ok:
            services.refresh_active(version.bot)
            if version.bot.game == "mothership":
                transaction.on_commit(update_league, robust=True)
    return status if updated else "superseded"


def update_league() -> None:
    """A Mothership version became valid: its race joins the league (the predecessor's leaves)."""
    from armada_web.ladder.league import sync_league

    sync_league()


def platform_failure(version: BotVersion, reason: str) -> str:
    """Try again later, or after the last attempt give status `error` (never the bot's fault)."""
    log.warning("validation of version %s failed (attempt %s): %s", version.pk, version.attempts, reason)
    if version.attempts >= settings.ARMADA_VALIDATION_ATTEMPTS:
        _mine(version).update(status=VersionStatus.ERROR, finished=timezone.now(),
                              detail=one_line(f"platform failure after {version.attempts} attempts: {reason}", 480))
        return VersionStatus.ERROR
    if _mine(version).update(status=VersionStatus.PENDING, queued=timezone.now(),
                             detail=one_line(f"retrying after a platform failure: {reason}", 480)):
        validate_version.apply_async(args=[version.pk], queue=settings.ARMADA_VALIDATION_QUEUE,
                                     countdown=settings.ARMADA_VALIDATION_RETRY_S)
    return VersionStatus.PENDING


@shared_task(name="armada_web.bots.validation.validate_version", acks_late=True,
             time_limit=900, soft_time_limit=840)
def validate_version(version_id: int) -> str:
    """Validate one version (a no-op when it is not pending: delivered twice, or done already)."""
    version = claim(version_id)
    if version is None:
        return "skipped"
    return run_validation(version)


def reap(stuck_after_s: int | None = None) -> dict[str, int]:
    """Re-queue versions a dead worker left `validating` (or whose message was lost while
    `pending`); past the last attempt a stuck version gets `error`. Returns counts."""
    stuck_s = settings.ARMADA_VALIDATION_STUCK_S if stuck_after_s is None else stuck_after_s
    cutoff = timezone.now() - timedelta(seconds=stuck_s)
    counts = {"requeued": 0, "errored": 0, "resent": 0}
    for version in BotVersion.objects.filter(status=VersionStatus.VALIDATING, started__lte=cutoff):
        if version.attempts >= settings.ARMADA_VALIDATION_ATTEMPTS:
            if _mine(version).update(
                    status=VersionStatus.ERROR, finished=timezone.now(),
                    detail=f"platform failure: validation did not finish in {version.attempts} attempts "
                           "(the worker was lost); not your bot's fault"):
                counts["errored"] += 1
        elif _mine(version).update(status=VersionStatus.PENDING, queued=timezone.now(),
                                   detail="re-queued: the worker validating it was lost"):
            services.queue_validation(version.pk)
            counts["requeued"] += 1
    for version in BotVersion.objects.filter(status=VersionStatus.PENDING, queued__lte=cutoff):
        if BotVersion.objects.filter(pk=version.pk, status=VersionStatus.PENDING).update(queued=timezone.now()):
            services.queue_validation(version.pk)
            counts["resent"] += 1
    return counts


@shared_task(name="armada_web.bots.validation.reap_validations")
def reap_validations() -> dict[str, int]:
    """Celery beat: see `reap`."""
    return reap()
