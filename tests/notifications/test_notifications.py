"""E-mails from what the lower apps signal: a version invalid (its validation's recording) or in error
(the last platform failure, or the reaper giving up), a bot benched; each sent after the commit,
once, and not when its owner turned it off on the profile page."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.core import mail
from django.utils import timezone

from tests.support.fixtures import PASSWORD
from tests.support.seasons_helpers import record_result

pytestmark = pytest.mark.django_db


@pytest.fixture
def version(make_user):
    from armada_web.bots.services import create_bot, upload_version

    owner = make_user("vera", email="vera@example.com")
    bot = create_bot(user=owner, name="mailed", game="galaxy")
    return upload_version(bot=bot, user=owner, filename="main.py", data=b"print(1)\n")


def crashed_report(**_):
    from armada_web.bots.validation import ValidationReport

    return ValidationReport(status="crashed", detail="Traceback: ZeroDivisionError", log="", name="x", orders=None,
                            engine_version="2")


def test_an_invalid_version_is_mailed_after_the_commit_once(version, monkeypatch, django_capture_on_commit_callbacks):
    from armada_web.bots import validation
    from armada_web.bots.tasks import validate_version

    monkeypatch.setattr(validation, "validation_game", crashed_report)
    with django_capture_on_commit_callbacks(execute=True):
        assert validate_version(version.pk) == "invalid"
        assert mail.outbox == []  # not before the commit
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["vera@example.com"] and message.subject == "[Armada] mailed v1 is invalid"
    assert "ZeroDivisionError" in message.body and f"/bots/{version.bot_id}/versions/1/" in message.body
    with django_capture_on_commit_callbacks(execute=True):
        assert validate_version(version.pk) == "skipped"  # a second delivery: nothing, no second mail
        from armada_web.bots.models import BotVersion
        from armada_web.bots.signals import validation_failed

        validation_failed.send(sender=BotVersion, version=version)  # the same ending told twice
    assert len(mail.outbox) == 1


def test_an_error_after_the_last_attempt_or_the_reaper_is_mailed(version, monkeypatch, armada,
                                                                 django_capture_on_commit_callbacks):
    from armada_web.bots import validation
    from armada_web.bots.models import BotVersion
    from armada_web.bots.services import upload_version
    from armada_web.bots.tasks import reap, validate_version
    from armada_web.games.runner import PlatformFailure
    from armada_web.jobs.leases import claim

    def down(**_):
        raise PlatformFailure("the sandbox is unavailable")

    monkeypatch.setattr(validation, "validation_game", down)
    armada(validation_attempts=1)
    with django_capture_on_commit_callbacks(execute=True):
        assert validate_version(version.pk) == "error"
    assert [m.subject for m in mail.outbox] == ["[Armada] mailed v1 is error"]
    second = upload_version(bot=version.bot, user=version.bot.owner, filename="main.py", data=b"print(2)\n")
    claim(kind=validation.VALIDATION, job_id=second.pk)
    BotVersion.objects.filter(pk=second.pk).update(started=timezone.now() - timedelta(hours=1))
    with django_capture_on_commit_callbacks(execute=True):
        assert reap(stuck_after_s=60)["given_up"] == 1
    assert [m.subject for m in mail.outbox][-1] == "[Armada] mailed v2 is error"
    assert "the worker was lost, 1 attempts without a result" in mail.outbox[-1].body


def test_a_benched_bot_is_mailed_once(make_user, valid_version, armada, django_capture_on_commit_callbacks):
    from armada_web.matches.services import create_match

    armada(bench_faults=3, matches_queue=armada.current.validation_queue)
    faulty = valid_version(make_user("bo", email="bo@example.com"), "faulty")
    other = valid_version(make_user("cy", email="cy@example.com"), "steady")
    with django_capture_on_commit_callbacks(execute=True):
        for _ in range(5):
            match = create_match(game="galaxy", first=faulty, second=other)
            record_result(match, 2, statuses=("crashed", "ok"))
    assert [(m.to, m.subject) for m in mail.outbox] == [(["bo@example.com"], "[Armada] faulty v1 is benched")]
    assert "benched: its last 3 ranked games ended by its own fault" in mail.outbox[0].body


def test_turned_off_on_the_profile_page_nothing_is_sent(version, client, monkeypatch,
                                                       django_capture_on_commit_callbacks):
    from armada_web.accounts.models import MailPreferences
    from armada_web.bots import validation
    from armada_web.bots.tasks import validate_version

    client.force_login(version.bot.owner)
    page = client.get("/accounts/profile/").content.decode()
    assert 'name="version_failed" checked' in page.replace('id="id_version_failed" ', "")
    answer = client.post("/accounts/mail/", {"benched": "on", "season_results": "on"})
    assert answer.status_code == 302
    prefs = MailPreferences.objects.get(user=version.bot.owner)
    assert (prefs.version_failed, prefs.benched, prefs.season_results) == (False, True, True)
    monkeypatch.setattr(validation, "validation_game", crashed_report)
    with django_capture_on_commit_callbacks(execute=True):
        assert validate_version(version.pk) == "invalid"
    assert mail.outbox == []


def test_the_links_of_an_e_mail_are_the_sites_address_with_its_port(version, monkeypatch, armada,
                                                                  django_capture_on_commit_callbacks):
    """A new competitor's trial: a site on port 8399 mailed "Its page, with the bot's log:
    http://127.0.0.1/bots/8/versions/2/" (no port: a worker has no request to ask) and a footer
    "/accounts/profile/" that no mail program can open. ARMADA_SITE_URL (`make up` sets it) is the
    address; without it, the first host, https when HTTPS is on."""
    from armada_web.bots import validation
    from armada_web.bots.tasks import validate_version

    monkeypatch.setattr(validation, "validation_game", crashed_report)
    armada(site_url="http://127.0.0.1:8399/")
    with django_capture_on_commit_callbacks(execute=True):
        validate_version(version.pk)
    body = mail.outbox[-1].body
    assert f"Its page, with the bot's log: http://127.0.0.1:8399/bots/{version.bot_id}/versions/1/" in body
    assert "on your profile page: http://127.0.0.1:8399/accounts/profile/" in body
    from armada_web.notifications.receivers import _site

    armada(site_url="", https=True)
    assert _site("/x/").startswith("https://") and _site("/x/").endswith("/x/")


def test_reset_and_confirmation_links_are_on_the_sites_address_not_the_requests_host(make_user, client, armada):
    """A code review: the notifications' links were on ARMADA_SITE_URL but the password reset's and
    the address confirmations' on whatever host the request named, though the docs said all were
    on ARMADA_SITE_URL (a reset link is a key: it goes where the site is, not where a request says)."""
    armada(site_url="https://armada.example.org")
    make_user("hal", email="hal@example.org")
    client.post("/accounts/password/reset/", {"email": "hal@example.org"}, HTTP_HOST="localhost")
    assert re.search(r"\nhttps://armada\.example\.org/accounts/password/reset/\S+/\n", mail.outbox[-1].body)
    assert "localhost" not in mail.outbox[-1].body
    kim = make_user("kim")
    client.force_login(kim)
    client.post("/accounts/email/", {"email": "kim@example.org", "password": PASSWORD}, HTTP_HOST="localhost")
    assert "https://armada.example.org/accounts/email/confirm/" in mail.outbox[-1].body
    armada(site_url="")  # none set: the request's own host, as before
    client.post("/accounts/email/", {"email": "kim2@example.org", "password": PASSWORD}, HTTP_HOST="localhost")
    assert "http://localhost/accounts/email/confirm/" in mail.outbox[-1].body


def test_mail_preferences_take_true_or_false_for_known_topics_only(make_user):
    """`set_mail_preferences`: an unknown topic or a value other than true/false is refused and
    changes nothing (the API or a script could send "no", which is truthy)."""
    from armada_web.accounts import mail
    from armada_web.accounts.services import set_mail_preferences
    from armada_web.web.errors import Invalid

    user = make_user("pia")
    with pytest.raises(Invalid, match="benched must be true or false"):
        set_mail_preferences(user=user, version_failed=False, benched="no")
    with pytest.raises(Invalid, match="unknown e-mail topic 'spam'"):
        set_mail_preferences(user=user, spam=False)
    assert mail.preferences(user).version_failed and mail.preferences(user).benched
    set_mail_preferences(user=user, benched=False)
    assert not mail.preferences(user).benched and mail.preferences(user).version_failed
