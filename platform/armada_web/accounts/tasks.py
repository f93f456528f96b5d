"""The accounts' task: beat's sending of the mails whose first send failed (accounts.mail)."""

from __future__ import annotations

from celery import shared_task

from armada_web.accounts.mail import send_pending
from armada_web.jobs import queues


@shared_task(name=queues.Task.SEND_MAIL, ignore_result=True)
def send_pending_mail() -> int:
    """Beat: send the pending mails (`mail.send_pending`); how many were sent."""
    return send_pending()
