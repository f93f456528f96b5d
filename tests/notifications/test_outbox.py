"""E-mails as an outbox (accounts.mail): a reliability review lost mails for good when the mail
server refused one, the process died between the row and the send, or a task's commit answer was
lost (its after-commit hooks dropped). The mail is now written in its event's transaction and
sent after the commit; beat sends what is left, once, and gives up after MAX_ATTEMPTS refusals."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core import mail
from django.db import transaction
from django.utils import timezone

pytestmark = pytest.mark.django_db


@pytest.fixture
def vera(make_user):
    return make_user("vera", email="vera@example.com")


def aged() -> None:
    """Every pending mail as old as beat takes (the younger ones are being sent after their commit)."""
    from armada_web.accounts.mail import MAIL_EVERY_S
    from armada_web.accounts.models import SentMail

    SentMail.objects.update(made=timezone.now() - timedelta(seconds=MAIL_EVERY_S + 1))


def tell(user_id: int, key: str = "version-1-invalid") -> None:
    from armada_web.accounts.mail import notify

    notify(user_id=user_id, topic="version_failed", key=key, subject="mailed v1 is invalid", body="it crashed")


def test_a_refused_send_stays_pending_and_beat_sends_it_once(vera, monkeypatch, django_capture_on_commit_callbacks):
    from armada_web.accounts import mail as mails
    from armada_web.accounts.models import MailStatus, SentMail
    from armada_web.accounts.tasks import send_pending_mail

    real = mails.send_mail

    def refused(*args, **kwargs):
        raise ConnectionRefusedError("mail server down")

    monkeypatch.setattr(mails, "send_mail", refused)
    with django_capture_on_commit_callbacks(execute=True):
        tell(vera.pk)
    row = SentMail.objects.get()
    assert mail.outbox == [] and (row.status, row.attempts) == (MailStatus.PENDING, 1)
    assert send_pending_mail() == 0  # too young: its own send may still be under way
    monkeypatch.setattr(mails, "send_mail", real)
    aged()
    assert send_pending_mail() == 1
    assert [m.subject for m in mail.outbox] == ["[Armada] mailed v1 is invalid"]
    assert SentMail.objects.get().status == MailStatus.SENT
    with django_capture_on_commit_callbacks(execute=True):
        tell(vera.pk)  # the same event told again
    aged()
    assert send_pending_mail() == 0 and len(mail.outbox) == 1


def test_a_mail_whose_after_commit_send_was_lost_is_sent_by_beat(vera, django_capture_on_commit_callbacks):
    """A commit whose answer was lost (or a process killed after it) drops its hooks: the row is there."""
    from armada_web.accounts.tasks import send_pending_mail

    with django_capture_on_commit_callbacks(execute=False):  # the hooks never run
        tell(vera.pk)
    assert mail.outbox == []
    aged()
    assert send_pending_mail() == 1 and mail.outbox[0].to == ["vera@example.com"]


def test_an_event_rolled_back_leaves_no_mail(vera, django_capture_on_commit_callbacks):
    from armada_web.accounts.models import SentMail

    with django_capture_on_commit_callbacks(execute=True), pytest.raises(RuntimeError), transaction.atomic():
        tell(vera.pk)
        raise RuntimeError("the event's write failed")
    assert not SentMail.objects.exists() and mail.outbox == []


def test_refused_for_a_day_it_is_given_up_and_a_closed_account_is_skipped(vera, make_user, monkeypatch,
                                                                          django_capture_on_commit_callbacks):
    from armada_web.accounts import mail as mails
    from armada_web.accounts.models import MailStatus, SentMail
    from armada_web.accounts.tasks import send_pending_mail

    def refused(*args, **kwargs):
        raise ConnectionRefusedError("mail server down")

    monkeypatch.setattr(mails, "send_mail", refused)
    with django_capture_on_commit_callbacks(execute=True):
        tell(vera.pk)
    aged()
    send_pending_mail()
    assert SentMail.objects.get().status == MailStatus.PENDING  # a refusal within the day: again later
    SentMail.objects.update(made=timezone.now() - timedelta(seconds=mails.GIVE_UP_S + 1))
    send_pending_mail()
    row = SentMail.objects.get()
    assert (row.status, row.attempts) == (MailStatus.FAILED, 3) and row.sent is not None
    monkeypatch.undo()
    aged()
    assert send_pending_mail() == 0 and mail.outbox == []  # given up: never sent later

    gone = make_user("gone", email="gone@example.com")
    with django_capture_on_commit_callbacks(execute=False):
        tell(gone.pk, key="version-2-invalid")
    gone.is_active = False
    gone.save(update_fields=["is_active"])
    aged()
    assert send_pending_mail() == 0 and mail.outbox == []
    assert SentMail.objects.get(user=gone).status == MailStatus.SKIPPED


def test_a_run_stops_at_the_first_refusal_and_a_mail_stuck_sending_is_sent_again(vera, make_user, monkeypatch,
                                                                                 django_capture_on_commit_callbacks):
    """A review: 200 mails at EMAIL_TIMEOUT each filled a run, and a new run started every minute."""
    from armada_web.accounts import mail as mails
    from armada_web.accounts.models import MailStatus, SentMail
    from armada_web.accounts.tasks import send_pending_mail

    tried: list[str] = []

    def refused(subject, body, sender, to):
        tried.append(to[0])
        raise ConnectionRefusedError("mail server down")

    other = make_user("otto", email="otto@example.com")
    with django_capture_on_commit_callbacks(execute=False):
        tell(vera.pk)
        tell(other.pk)
    monkeypatch.setattr(mails, "send_mail", refused)
    aged()
    assert send_pending_mail() == 0 and tried == ["vera@example.com"]  # the server is down: the next run
    monkeypatch.undo()
    SentMail.objects.filter(user=other).update(status=MailStatus.SENDING,  # its sender died mid-send
                                               claimed=timezone.now() - timedelta(seconds=mails.STUCK_S + 1))
    aged()
    assert send_pending_mail() == 2 and sorted(m.to[0] for m in mail.outbox) == ["otto@example.com",
                                                                                  "vera@example.com"]


@pytest.mark.django_db(transaction=True)
def test_no_transaction_is_open_while_the_mail_server_answers(make_user, monkeypatch):
    """A review: the send ran inside a transaction, and SQLite's write lock (the whole database's,
    `make up`'s default) was held while the mail server answered, up to EMAIL_TIMEOUT a step."""
    from django.db import connection

    from armada_web.accounts import mail as mails
    from armada_web.accounts.models import MailStatus, SentMail

    seen: list[bool] = []

    def sending(subject, body, sender, to):
        seen.append(connection.in_atomic_block)
        assert SentMail.objects.get().status == MailStatus.SENDING  # taken, committed, before the send
        return 1

    monkeypatch.setattr(mails, "send_mail", sending)
    user = make_user("tess", email="tess@example.com")
    assert mails.deliver(user_id=user.pk, topic="benched", key="bot-1-benched", subject="s", body="b")
    assert seen == [False] and SentMail.objects.get().status == MailStatus.SENT
    assert mails.send_queued(mail_id=SentMail.objects.get().pk) == "taken"


def test_staff_see_the_outbox_read_only_with_its_user_text_escaped(admin_client, make_user,
                                                                   django_capture_on_commit_callbacks):
    from armada_web.accounts.mail import notify
    from armada_web.accounts.models import SentMail

    evil = make_user("evil", email="evil@example.com")
    with django_capture_on_commit_callbacks(execute=False):
        notify(user_id=evil.pk, topic="benched", key="bot-<b>x</b>-benched", subject="s", body="b")
    listing = admin_client.get("/admin/accounts/sentmail/?status__exact=pending").content.decode()
    assert "bot-&lt;b&gt;x&lt;/b&gt;-benched" in listing and "<b>x</b>" not in listing
    row = SentMail.objects.get()
    assert admin_client.get(f"/admin/accounts/sentmail/{row.pk}/change/").status_code == 200  # shown, not editable
    assert admin_client.post(f"/admin/accounts/sentmail/{row.pk}/change/", {"status": "sent"}).status_code == 403
    assert admin_client.get("/admin/accounts/sentmail/add/").status_code == 403
    assert admin_client.post(f"/admin/accounts/sentmail/{row.pk}/delete/", {"post": "yes"}).status_code == 403
    assert "Delete selected" not in listing
    assert SentMail.objects.get().status == "pending"


def test_after_a_refusal_new_mails_are_left_to_beat(vera, make_user, monkeypatch, django_capture_on_commit_callbacks):
    """A season's results to a hundred members, the mail server down: each mail waited EMAIL_TIMEOUT
    in the worker that recorded them. After a refusal, mails are left to beat for a minute."""
    from django.core.cache import cache

    from armada_web.accounts import mail as mails
    from armada_web.accounts.tasks import send_pending_mail

    tried: list[str] = []

    def refused(subject, body, sender, to):
        tried.append(to[0])
        raise ConnectionRefusedError("mail server down")

    monkeypatch.setattr(mails, "send_mail", refused)
    others = [make_user(f"member{n}", email=f"member{n}@example.com") for n in range(3)]
    with django_capture_on_commit_callbacks(execute=True):
        tell(vera.pk)
        for member in others:
            tell(member.pk)
    assert tried == ["vera@example.com"]  # the first refusal: the others wait for beat
    monkeypatch.undo()
    cache.delete(mails.SERVER_DOWN)
    aged()
    assert send_pending_mail() == 4 and len(mail.outbox) == 4


def test_the_notice_of_an_address_change_reaches_the_old_address_after_an_outage(make_user, monkeypatch,
                                                                                 django_capture_on_commit_callbacks):
    """It was sent once, at once: with the mail server down, the old address never learnt that the
    account's address had changed (what tells its owner of a taken account). Now it is in the outbox."""
    from armada_web.accounts import addresses
    from armada_web.accounts import mail as mails
    from armada_web.accounts.models import MailStatus, SentMail
    from armada_web.accounts.tasks import send_pending_mail

    user = make_user("olga", email="olga@old.example")
    with django_capture_on_commit_callbacks(execute=True):  # (the old address is told of the request at once)
        change = addresses.request_change(user=user, address="olga@new.example", site="http://testserver")
    assert change is not None
    token = addresses.link_token(change)

    def refused(*args, **kwargs):
        raise ConnectionRefusedError("mail server down")

    monkeypatch.setattr(mails, "send_mail", refused)
    with django_capture_on_commit_callbacks(execute=True):
        addresses.confirm(token=token)
    notice = SentMail.objects.get(topic="address_changed")
    assert notice.status == MailStatus.PENDING and notice.address == "olga@old.example"
    monkeypatch.undo()
    aged()
    before = len(mail.outbox)
    assert send_pending_mail() == 1
    [sent] = mail.outbox[before:]
    assert sent.to == ["olga@old.example"] and "is now olga@new.example" in sent.body
    with django_capture_on_commit_callbacks(execute=True):
        addresses.confirm(token=token)  # a second click: the same answer, no second notice
    assert SentMail.objects.filter(topic="address_changed").count() == 1


def test_an_organisers_command_says_its_line_and_leaves_the_mails_to_beat(make_user, valid_version,
                                                                          django_capture_on_commit_callbacks):
    """An organiser's trial: `manage.py season finish` printed every member's results mail (the
    console backend writes to the sending process's output) before its one line."""
    from io import StringIO

    from django.core.management import call_command

    from armada_web.accounts.mail import left_to_beat
    from armada_web.accounts.models import MailStatus, SentMail
    from armada_web.accounts.tasks import send_pending_mail

    for n in range(3):
        valid_version(make_user(f"user{n}", email=f"user{n}@example.com"), f"bot{n}")
    out = StringIO()
    with django_capture_on_commit_callbacks(execute=True):
        for action in ("create", "close", "finish"):
            args = ("--game", "galaxy", "--name", "Spring") if action == "create" else ()
            call_command("season", action, "s1", *args, stdout=out)
    assert len(out.getvalue().strip().splitlines()) == 3  # a line each, no mail among them
    assert mail.outbox == [] and SentMail.objects.filter(status=MailStatus.PENDING).count() == 3
    aged()
    assert send_pending_mail() == 3 and sorted(m.to[0] for m in mail.outbox) == [
        f"user{n}@example.com" for n in range(3)]
    assert set(SentMail.objects.values_list("status", "attempts")) == {(MailStatus.SENT, 1)}
    vera = make_user("vera", email="vera@example.com")
    with left_to_beat(), django_capture_on_commit_callbacks(execute=True):
        tell(vera.pk)
    assert len(mail.outbox) == 3
    with django_capture_on_commit_callbacks(execute=True):
        tell(vera.pk, key="version-2-invalid")  # outside it: sent after the commit, as before
    assert len(mail.outbox) == 4 and SentMail.objects.get(key="version-2-invalid").attempts == 1
