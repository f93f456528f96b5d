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
    for url in urls:
        assert "/srv/armada-cache" in staff.get(url).content.decode(), url


def test_other_notes_are_shown_whole(make_user, valid_version):
    from armada_web.jobs.notes import shown_note

    note = "void: seat 2's bot was deleted before the match was played (no result, no rating change)"
    assert shown_note(note, user=None) == note
    assert shown_note("retrying after a platform failure: docker said 500 on host w7", user=None) == \
        "retrying after a platform failure (not a bot's doing; staff see the cause)"
