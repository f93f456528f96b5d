"""E-mails to users (Django's mail; `make up` uses the console backend), one per user, topic and
event, only to a confirmed address (`User.email`: an address waiting for its link gets nothing,
accounts.addresses) of a user who has not turned that topic off on the profile page.

An outbox: `notify` writes the mail (a SentMail row, pending) in the transaction of the event it
tells, so it exists exactly when the event does, and sends it after the commit; a mail whose send
failed (the mail server down, the process killed first) stays pending and beat's
`send_pending_mail` sends it, for GIVE_UP_S after its event. A mail is taken (`sending`) by a
conditional update before it is sent and marked sent after: only a process killed between the mail
server's answer and that mark sends one twice (the mark is tried again while the database does not
answer).
"""

from __future__ import annotations

import logging
import smtplib
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import timedelta

from django.conf import settings
from django.contrib.auth.models import User
from django.core.cache import cache
from django.core.mail import send_mail
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from armada_web.accounts.models import MailPreferences, MailStatus, SentMail
from armada_web.jobs.leases import retrying
from armada_web.web.locks import one_at_a_time

log = logging.getLogger(__name__)

#: topic -> what the profile page calls it (the MailPreferences field of the same name).
TOPICS = {
    "version_failed": "a version of my (or my team's) bot is invalid or in error",
    "benched": "a bot of mine or my team's is benched (too many faults in a row)",
    "season_results": "a season my (or my team's) bot entered has its final results",
}


#: Mails no preference turns off, to the account's confirmed address: the organisers' decisions on
#: what it entered (a disqualification and its reason), which it must not miss.
DECISIONS = ("disqualified",)


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
    if mail_id is not None and _SENT_HERE.get():
        transaction.on_commit(lambda: _send_unless_down(mail_id), robust=True)


#: The cache key a refusal of the mail server sets for MAIL_EVERY_S: meanwhile mails are left to
#: beat, so a season's results to a hundred members do not wait EMAIL_TIMEOUT each in the worker
#: that recorded them.
SERVER_DOWN = "mail:server-down"


#: False while the mails written are left to beat (`left_to_beat`).
_SENT_HERE: ContextVar[bool] = ContextVar("armada_mail_sent_here", default=True)


@contextmanager
def left_to_beat() -> Iterator[None]:
    """Within it, the mails written are not sent by this process after the commit but by beat's next
    `send_pending` (in one to two minutes): an organiser's command (`manage.py season finish`) says
    its one line, not every member's mail (the console backend, `make up`'s, writes mails to the
    output of the process that sends them: the workers' logs)."""
    token = _SENT_HERE.set(False)
    try:
        yield
    finally:
        _SENT_HERE.reset(token)


def _send_unless_down(mail_id: int) -> None:
    if cache.get(SERVER_DOWN) is None:
        send_queued(mail_id=mail_id)


#: A notice no preference turns off, to an address of its own (`queue_notice`): the old address of
#: an account whose address changed (accounts.addresses).
NOTICES = ("address_changed", "address_change_asked")


def queue_notice(*, user: User, address: str, topic: str, key: str, subject: str, body: str) -> None:
    """Write a notice to `address` about `key` now (in the current transaction), sent once that
    commits and, failing that, by beat, as every mail; one per user, topic and key."""
    if topic not in NOTICES:
        raise ValueError(f"unknown notice {topic!r}")
    mail_id = _write(user=user, address=address, topic=topic, key=key, subject=subject, body=body)
    if mail_id is not None and _SENT_HERE.get():
        transaction.on_commit(lambda: _send_unless_down(mail_id), robust=True)


def queue_mail(*, user_id: int | None, topic: str, key: str, subject: str, body: str) -> int | None:
    """The pending mail's id, or None: an unknown topic or user, no confirmed address, the topic
    turned off (a decision is never), or a mail about `key` written before (one per event)."""
    if user_id is None or (topic not in TOPICS and topic not in DECISIONS):
        return None
    user = User.objects.filter(pk=user_id, is_active=True).first()
    if user is None or not user.email or (topic in TOPICS and not wants(user, topic)):
        return None
    return _write(user=user, address="", topic=topic, key=key, subject=subject, body=body)


def _write(*, user: User, address: str, topic: str, key: str, subject: str, body: str) -> int | None:
    """The new pending mail's id; None when one about `key` was written before (one per event)."""
    try:
        with transaction.atomic():
            row = SentMail.objects.create(user=user, topic=topic, key=key[:100], address=address, subject=subject[:200],
                                          body=body, status=MailStatus.PENDING, made=timezone.now())
    except IntegrityError:
        return None
    return row.pk


#: Seconds after its event a mail the mail server keeps refusing is given up (beat tries it every
#: MAIL_EVERY_S meanwhile).
GIVE_UP_S = 24 * 3600
#: Seconds a mail may stay `sending`: past it, its sender died mid-send and beat sends it again.
STUCK_S = 600


#: SMTP replies that refuse one mailbox (no such user, not local, bad name), not the sender or the relay.
MAILBOX_CODES = (550, 551, 553)


def mailbox_refused(exc: Exception) -> bool:
    """Did the mail server refuse this mail's address alone (the server is up, other mails go)? Not a
    policy refusal of every mail (5.7.x: relay access denied, authentication required), which is the
    server refusing, as when it is down."""
    if not isinstance(exc, smtplib.SMTPRecipientsRefused) or not exc.recipients:
        return False
    return all(code in MAILBOX_CODES and not bytes(message).lstrip().startswith(b"5.7")
               for code, message in exc.recipients.values())


def send_queued(*, mail_id: int) -> str:
    """Send a pending mail now: "sent", "refused" (the mail server failed: pending again, or failed
    past GIVE_UP_S), "bounced" (the server is up but refused this address: the same, and the other
    mails go on), "skipped" (the account was closed or lost its address meanwhile) or "taken"
    (not pending: sent, given up, or being sent by another process).

    Taken by a conditional update and sent outside any transaction: no lock is held while the
    mail server answers (SQLite's write lock is the whole database's)."""
    now = timezone.now()
    if not SentMail.objects.filter(pk=mail_id, status=MailStatus.PENDING).update(status=MailStatus.SENDING,
                                                                                claimed=now):
        return "taken"
    row = SentMail.objects.select_related("user").get(pk=mail_id)
    mine = SentMail.objects.filter(pk=mail_id, status=MailStatus.SENDING, claimed=now)
    to = row.address or row.user.email
    if not to or not (row.user.is_active or row.address):
        mine.update(status=MailStatus.SKIPPED, sent=timezone.now())
        return "skipped"
    try:
        send_mail(f"[Armada] {row.subject}", row.body, settings.DEFAULT_FROM_EMAIL, [to])
    except Exception as exc:  # the mail server down, or this mail refused (smtplib): beat tries again
        given_up = row.made is not None and timezone.now() - row.made > timedelta(seconds=GIVE_UP_S)
        mine.update(status=MailStatus.FAILED if given_up else MailStatus.PENDING, attempts=F("attempts") + 1,
                    sent=timezone.now() if given_up else None)
        log.warning("mail %s to user %s not sent%s: %s", row.key, row.user_id, " (given up)" if given_up else "",
                    exc)
        if mailbox_refused(exc):  # this address alone (550 no such user): the server is up
            return "bounced"
        cache.set(SERVER_DOWN, 1, MAIL_EVERY_S)
        return "refused"
    # Tried again while the database does not answer (a restart, a dropped connection): left `sending`,
    # the mail the server has taken would be sent again by beat STUCK_S later.
    retrying(lambda: mine.update(status=MailStatus.SENT, sent=timezone.now(), attempts=F("attempts") + 1),
             what=f"the database (marking mail {mail_id} sent)")
    return "sent"


def deliver(*, user_id: int, topic: str, key: str, subject: str, body: str) -> bool:
    """Write and send a mail now, outside any event's transaction; True when sent."""
    mail_id = queue_mail(user_id=user_id, topic=topic, key=key, subject=subject, body=body)
    return mail_id is not None and send_queued(mail_id=mail_id) == "sent"


#: Seconds between beat's sends of the pending mails, and how old a pending mail must be to be
#: taken (younger ones are being sent after their commit).
MAIL_EVERY_S = 60
#: Seconds one run of `send_pending` goes on sending (the rest waits for the next run).
BATCH_S = 45
#: The cache key one run of `send_pending` holds: one run at a time.
SENDING_LOCK = "mail:send-pending"


def send_pending(*, limit: int = 200) -> int:
    """Beat: send the pending mails older than MAIL_EVERY_S, those never tried first, then the
    oldest first, for at most BATCH_S seconds, stopping at the first the mail server refuses (it
    is down: the next run tries again; one it refuses for its address alone is passed over,
    "bounced"), after giving back those stuck `sending` past STUCK_S; how many were sent. One run
    at a time. (Bounced mails are tried every run for GIVE_UP_S: oldest first alone, enough of them
    would take each run's `limit` and BATCH_S, and hold up every other mail as one did before.)"""
    with one_at_a_time(SENDING_LOCK, STUCK_S) as mine:
        return _send_pending(limit) if mine else 0


def _send_pending(limit: int) -> int:
    """`send_pending`'s run, under its lock."""
    now = timezone.now()
    SentMail.objects.filter(status=MailStatus.SENDING, claimed__lte=now - timedelta(seconds=STUCK_S)).update(
        status=MailStatus.PENDING)
    ids = list(SentMail.objects.filter(status=MailStatus.PENDING, made__lte=now - timedelta(seconds=MAIL_EVERY_S))
               .order_by("attempts", "made", "pk").values_list("pk", flat=True)[:limit])
    sent = 0
    for mail_id in ids:
        if (timezone.now() - now).total_seconds() > BATCH_S:
            break
        outcome = send_queued(mail_id=mail_id)
        if outcome == "refused":
            break
        sent += outcome == "sent"
    return sent
