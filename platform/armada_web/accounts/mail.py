"""E-mails to users (Django's mail; `make up` uses the console backend): each is sent after the
transaction that caused it commits, at most once per user, topic and event (a SentMail row is
inserted first: a second attempt finds it and sends nothing), and only when the user has a
confirmed address (`User.email`: an address waiting for its link gets nothing, accounts.addresses)
and has not turned that topic off on the profile page.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.contrib.auth.models import User
from django.core.mail import send_mail
from django.db import IntegrityError, transaction

from armada_web.accounts.models import MailPreferences, SentMail

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
    """Mail `user_id` about `key` once the current transaction commits (at once outside one)."""
    if user_id is None or topic not in TOPICS:
        return
    transaction.on_commit(lambda: deliver(user_id=user_id, topic=topic, key=key, subject=subject, body=body),
                          robust=True)


def deliver(*, user_id: int, topic: str, key: str, subject: str, body: str) -> bool:
    """Send now if the user wants it and it was never sent; True when sent."""
    user = User.objects.filter(pk=user_id, is_active=True).first()
    if user is None or not user.email or not wants(user, topic):
        return False
    try:
        with transaction.atomic():
            SentMail.objects.create(user=user, topic=topic, key=key[:100])
    except IntegrityError:
        return False  # sent before: at most once
    try:
        send_mail(f"[Armada] {subject}", body, settings.DEFAULT_FROM_EMAIL, [user.email])
    except OSError as exc:  # the mail server is down: this one is lost (never twice), the site goes on
        log.warning("mail %s to user %s not sent: %s", key, user_id, exc)
        return False
    return True
