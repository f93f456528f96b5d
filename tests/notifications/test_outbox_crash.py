"""The outbox's mark after a send (accounts.mail.send_queued): a review found that a database that
did not answer for a moment after the mail server took the mail (a restart, a dropped connection)
left the row `sending`, and beat's `send_pending` sent the mail a second time STUCK_S later. The
mark is now tried again while the database is unreachable, as a job's record is."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core import mail
from django.db import OperationalError
from django.db.models import QuerySet
from django.utils import timezone


@pytest.mark.django_db(transaction=True)
def test_a_database_blip_after_the_send_does_not_send_the_mail_twice(make_user, monkeypatch):
    from armada_web.accounts import mail as mails
    from armada_web.accounts.models import MailStatus, SentMail
    from armada_web.accounts.tasks import send_pending_mail

    vera = make_user("vera", email="vera@example.com")
    mail_id = mails.queue_mail(user_id=vera.pk, topic="version_failed", key="version-1-invalid",
                               subject="v1 is invalid", body="it crashed")
    assert mail_id is not None
    real_update = QuerySet.update
    blips: list[str] = []

    def update(self, **fields):  # the first mark after the mail server's answer meets a database gone away
        if self.model is SentMail and fields.get("status") == MailStatus.SENT and not blips:
            blips.append("once")
            raise OperationalError("server closed the connection unexpectedly")
        return real_update(self, **fields)

    monkeypatch.setattr(QuerySet, "update", update)
    try:
        outcome = mails.send_queued(mail_id=mail_id)
    except OperationalError:
        outcome = "raised"
    monkeypatch.setattr(QuerySet, "update", real_update)
    assert blips == ["once"] and len(mail.outbox) == 1  # the mail server took it
    # beat, once the row would count as stuck (its sender seemingly dead mid-send)
    SentMail.objects.filter(pk=mail_id).update(made=timezone.now() - timedelta(seconds=mails.STUCK_S + 61))
    SentMail.objects.filter(pk=mail_id, status=MailStatus.SENDING).update(
        claimed=timezone.now() - timedelta(seconds=mails.STUCK_S + 1))
    send_pending_mail()
    assert len(mail.outbox) == 1, f"sent twice (first send: {outcome})"
    assert SentMail.objects.get(pk=mail_id).status == MailStatus.SENT


@pytest.mark.django_db
def test_one_address_the_mail_server_refuses_holds_up_no_other_mail(make_user, monkeypatch,
                                                                     django_capture_on_commit_callbacks):
    """A review: the oldest pending mail went to a mailbox the server refuses (550: no such user, a
    mailbox closed since its address was confirmed); beat read that as the server being down and
    stopped there at every run, so no other mail went out until that one was given up a day later."""
    import smtplib

    from armada_web.accounts import mail as mails
    from armada_web.accounts.mail import notify
    from armada_web.accounts.models import MailStatus, SentMail
    from armada_web.accounts.tasks import send_pending_mail

    gone = make_user("gone", email="gone@example.com")
    otto = make_user("otto", email="otto@example.com")
    with django_capture_on_commit_callbacks(execute=False):  # both left to beat, the refused one first
        notify(user_id=gone.pk, topic="version_failed", key="version-1-invalid", subject="s", body="b")
        notify(user_id=otto.pk, topic="version_failed", key="version-2-invalid", subject="s", body="b")
    SentMail.objects.filter(user=gone).update(made=timezone.now() - timedelta(seconds=mails.MAIL_EVERY_S + 5))
    SentMail.objects.filter(user=otto).update(made=timezone.now() - timedelta(seconds=mails.MAIL_EVERY_S + 1))
    real = mails.send_mail

    def server(subject, body, sender, to):
        if to == ["gone@example.com"]:
            raise smtplib.SMTPRecipientsRefused({to[0]: (550, b"5.1.1 no such user")})
        return real(subject, body, sender, to)

    monkeypatch.setattr(mails, "send_mail", server)
    assert send_pending_mail() == 1
    assert [m.to for m in mail.outbox] == [["otto@example.com"]]
    assert SentMail.objects.get(user=gone).status == MailStatus.PENDING  # tried again later, given up after a day
    with django_capture_on_commit_callbacks(execute=True):  # the server is up: a new mail goes at once
        notify(user_id=otto.pk, topic="benched", key="benched-3", subject="s", body="b")
    assert len(mail.outbox) == 2


@pytest.mark.django_db
def test_mails_the_server_keeps_refusing_do_not_take_every_run(make_user, monkeypatch,
                                                               django_capture_on_commit_callbacks):
    """A review of the "bounced" outcome: a bounced mail stays pending and is tried again at every
    run for a day; oldest first, as many bounced mails as a run takes (`limit`, or BATCH_S of slow
    refusals: a season's results to members whose mailboxes closed) held up every newer mail for
    that day. Mails never tried go first."""
    import smtplib

    from armada_web.accounts import mail as mails
    from armada_web.accounts.mail import notify
    from armada_web.accounts.models import MailStatus, SentMail

    users = [make_user(f"gone{n}", email=f"gone{n}@example.com") for n in range(2)]
    otto = make_user("otto", email="otto@example.com")
    with django_capture_on_commit_callbacks(execute=False):  # left to beat, the refused ones first
        for n, user in enumerate(users):
            notify(user_id=user.pk, topic="version_failed", key=f"version-{n}-invalid", subject="s", body="b")
        notify(user_id=otto.pk, topic="version_failed", key="version-9-invalid", subject="s", body="b")
    old = timezone.now() - timedelta(seconds=mails.MAIL_EVERY_S + 5)
    for user in users:
        SentMail.objects.filter(user=user).update(made=old)
    SentMail.objects.filter(user=otto).update(made=old + timedelta(seconds=1))
    real = mails.send_mail

    def server(subject, body, sender, to):
        if to[0].startswith("gone"):
            raise smtplib.SMTPRecipientsRefused({to[0]: (550, b"5.1.1 no such user")})
        return real(subject, body, sender, to)

    monkeypatch.setattr(mails, "send_mail", server)
    assert mails.send_pending(limit=2) == 0  # the two oldest, both refused
    assert mails.send_pending(limit=2) == 1  # the next run: otto's first, never tried
    assert [m.to for m in mail.outbox] == [["otto@example.com"]]
    assert SentMail.objects.filter(user__in=users, status=MailStatus.PENDING).count() == 2


def test_only_a_mailbox_refusal_is_bounced_not_a_relay_or_policy_refusal():
    """A review: "Relay access denied" (a misconfigured relay) refuses every recipient too; read as a
    bounce, the server never counted as down and beat tried every mail at every run."""
    import smtplib

    from armada_web.accounts.mail import mailbox_refused

    def refused(code: int, text: bytes) -> smtplib.SMTPRecipientsRefused:
        return smtplib.SMTPRecipientsRefused({"a@example.com": (code, text)})

    assert mailbox_refused(refused(550, b"5.1.1 <a@example.com>: Recipient address rejected: no such user"))
    assert mailbox_refused(refused(553, b"sorry, that domain isn't in my list of allowed rcpthosts"))
    assert not mailbox_refused(refused(554, b"5.7.1 <a@example.com>: Relay access denied"))
    assert not mailbox_refused(refused(550, b"5.7.1 Client host rejected: authentication required"))
    assert not mailbox_refused(refused(451, b"4.3.0 try again later"))
    assert not mailbox_refused(OSError("connection refused"))
