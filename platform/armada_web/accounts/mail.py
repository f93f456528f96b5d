"""E-mails to users (Django's mail; `make up` uses the console backend), one per user, topic and
event, only to a confirmed address (`User.email`: an address waiting for its link gets nothing,
accounts.addresses) of a user who has not turned that topic off on the profile page.

An outbox: `notify` writes the mail (a SentMail row, pending) in the transaction of the event it
tells, so it exists exactly when the event does, and sends it after the commit; a mail whose send
failed (the mail server down, the process killed first) stays pending and beat's
`send_pending_mail` sends it, up to MAX_ATTEMPTS refusals. A row is marked sent in the transaction
that sent it: only a process killed between the mail server's answer and that commit sends one twice.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.contrib.auth.models import User
from django.core.mail import send_mail
from django.db import IntegrityError, transaction
from django.utils import timezone

from armada_web.accounts.models import MailPreferences, MailStatus, SentMail

log = logging.getLogger(__name__)

#: topic -> what the profile page calls it (the MailPreferences field of the same name).
TOPICS = {
    "version_failed": "a version of my (or my team's) bot is invalid or in error",
    "benched": "a bot of mine or my team's is benched (too many faults in a row)",
    "season_results": "a season my (or my team's) bot entered has its final results",
}


def preferences(user: User) -> MailPreferences:
    """The user's mail preferences (every topic on until turned off)."""
    prefs, _created = MailPreferences.objects.get_or_create(user=user)
    return prefs


def wants(user: User, topic: str) -> bool:
    prefs = MailPreferences.objects.filter(user=user).first()
    return prefs is None or bool(getattr(prefs, topic))


def notify(*, user_id: int | None, topic: str, key: str, subject: str, body: str) -> None:
    """Write the mail to `user_id` about `key` now (in the current transaction) and send it once
    that commits (at once outside a transaction)."""
    mail_id = queue_mail(user_id=user_id, topic=topic, key=key, subject=subject, body=body)
    if mail_id is not None:
        transaction.on_commit(lambda: send_queued(mail_id=mail_id), robust=True)


def queue_mail(*, user_id: int | None, topic: str, key: str, subject: str, body: str) -> int | None:
    """The pending mail's id, or None: an unknown topic or user, no confirmed address, the topic
    turned off, or a mail about `key` written before (one per event)."""
    if user_id is None or topic not in TOPICS:
        return None
    user = User.objects.filter(pk=user_id, is_active=True).first()
    if user is None or not user.email or not wants(user, topic):
        return None
    try:
        with transaction.atomic():
            row = SentMail.objects.create(user=user, topic=topic, key=key[:100], subject=subject[:200], body=body,
                                          status=MailStatus.PENDING, made=timezone.now())
    except IntegrityError:
        return None  # written before: one per event
    return row.pk


#: Refusals of the mail server after which a mail is given up (beat tries again every MAIL_EVERY_S).
MAX_ATTEMPTS = 10


def send_queued(*, mail_id: int) -> bool:
    """Send a pending mail now (True when sent): marked sent in the same transaction, so a second
    call sends nothing; a refusal of the mail server leaves it pending for beat (failed after
    MAX_ATTEMPTS)."""
    with transaction.atomic():
        row = (SentMail.objects.select_for_update(skip_locked=True, of=("self",)).select_related("user")
               .filter(pk=mail_id, status=MailStatus.PENDING).first())
        if row is None:  # sent, given up, or being sent by another process now
            return False
        if not row.user.is_active or not row.user.email:
            row.status, row.sent = MailStatus.SKIPPED, timezone.now()
            row.save(update_fields=["status", "sent"])
            return False
        try:
            send_mail(f"[Armada] {row.subject}", row.body, settings.DEFAULT_FROM_EMAIL, [row.user.email])
        except OSError as exc:  # the mail server is down: beat tries again
            row.attempts += 1
            if row.attempts >= MAX_ATTEMPTS:
                row.status, row.sent = MailStatus.FAILED, timezone.now()
            row.save(update_fields=["attempts", "status", "sent"])
            log.warning("mail %s to user %s not sent (%s refusals): %s", row.key, row.user_id, row.attempts, exc)
            return False
        row.status, row.sent = MailStatus.SENT, timezone.now()
        row.save(update_fields=["status", "sent"])
    return True


def deliver(*, user_id: int, topic: str, key: str, subject: str, body: str) -> bool:
    """Write and send a mail now, outside any event's transaction; True when sent."""
    mail_id = queue_mail(user_id=user_id, topic=topic, key=key, subject=subject, body=body)
    return mail_id is not None and send_queued(mail_id=mail_id)


#: Seconds between beat's sends of the pending mails, and how old a pending mail must be to be
#: taken (younger ones are being sent after their commit).
MAIL_EVERY_S = 60


def send_pending(*, limit: int = 200) -> int:
    """Send the pending mails older than MAIL_EVERY_S, oldest first (beat); how many were sent."""
    since = timezone.now() - timedelta(seconds=MAIL_EVERY_S)
    ids = list(SentMail.objects.filter(status=MailStatus.PENDING, made__lte=since)
               .order_by("made", "pk").values_list("pk", flat=True)[:limit])
    return sum(send_queued(mail_id=mail_id) for mail_id in ids)
