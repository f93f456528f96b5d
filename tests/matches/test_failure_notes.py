"""A platform failure's cause is for staff (a security review): a void match's `reason` and a
version's `detail` in `error` carried the exception's text (the worker's cache folder, storage
errors) to anyone, on the pages and in the API, while /healthz keeps such text to operators."""

from __future__ import annotations

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db

CAUSE = "refusing to use /srv/armada-cache: it is a symbolic link; set ARMADA_UNPACK_CACHE_DIR"


@pytest.fixture
def failed(make_user, valid_version):
    from armada_web.bots.models import BotVersion
    from armada_web.matches.models import Match
    from armada_web.matches.services import create_match

    first, second = valid_version(make_user("alice"), "alpha"), valid_version(make_user("bob"), "beta")
    match = create_match(game="galaxy", first=first, second=second, kind="ranked")
    Match.objects.filter(pk=match.pk).update(status="void", reason=f"platform failure: the stored archive of "
                                             f"seat 1 could not be unpacked ({CAUSE})")
    BotVersion.objects.filter(pk=second.pk).update(
        status="error", detail=f"platform failure after 3 attempts: the sandbox failed ({CAUSE})")
    return match, second


def _clients(make_user):
    staff = Client()
    staff.force_login(make_user("root", is_staff=True))
    owner = Client()
    owner.force_login(make_user("carol"))
    return {"anonymous": Client(), "signed in": owner}, staff


def test_the_cause_of_a_platform_failure_is_shown_to_staff_only(failed, make_user):
    match, version = failed
    others, staff = _clients(make_user)
    urls = [f"/matches/{match.pk}/", f"/api/matches/{match.pk}/", f"/bots/{version.bot_id}/",
            f"/bots/{version.bot_id}/versions/{version.number}/", f"/api/versions/{version.pk}/",
            f"/api/bots/{version.bot_id}/", f"/api/bots/{version.bot_id}/versions/"]
    for who, client in others.items():
        for url in urls:
            text = client.get(url).content.decode()
            assert "/srv/armada-cache" not in text, (who, url)
            assert "platform failure" in text and "staff see the cause" in text, (who, url)
            assert "could not be unpacked" in text or "the sandbox failed" in text, (who, url)  # what happened
    for url in urls:
        assert "/srv/armada-cache" in staff.get(url).content.decode(), url


def test_other_notes_are_shown_whole(make_user, valid_version):
    from armada_web.jobs.notes import shown_note

    note = "void: seat 2's bot was deleted before the match was played (no result, no rating change)"
    assert shown_note(note, user=None) == note
    assert shown_note("retrying after a platform failure: the sandbox is unavailable: 500 Server Error for "
                      "http+docker://localhost/v1.41/containers/create", user=None) == \
        "retrying after a platform failure: the sandbox is unavailable (not a bot's doing; staff see the cause)"
    assert shown_note("platform failure: the stored archive of seat 1 could not be unpacked ([Errno 28] No space "
                      "left on device: '/srv/cache')", user=None) == ("platform failure: the stored archive of seat 1 "
                                                                       "could not be unpacked (not a bot's doing; "
                                                                       "staff see the cause)")


def test_the_mail_of_a_version_in_error_leaves_the_cause_out(make_user, valid_version, monkeypatch, armada,
                                                             django_capture_on_commit_callbacks):
    """A review: the page and the API trimmed the note, the e-mail to every member of the team did not."""
    from django.core import mail

    from armada_web.bots import validation
    from armada_web.bots.tasks import validate_version
    from armada_web.games.runner import PlatformFailure

    version = valid_version(make_user("alice", email="alice@example.com"), "alpha")
    from armada_web.bots.models import BotVersion

    BotVersion.objects.filter(pk=version.pk).update(status="pending")

    def down(**_):
        raise PlatformFailure(f"the sandbox is unavailable: {CAUSE}")

    monkeypatch.setattr(validation, "validation_game", down)
    armada(validation_attempts=1)
    with django_capture_on_commit_callbacks(execute=True):
        assert validate_version(version.pk) == "error"
    body = mail.outbox[-1].body
    assert "the sandbox is unavailable" in body and "/srv/armada-cache" not in body
