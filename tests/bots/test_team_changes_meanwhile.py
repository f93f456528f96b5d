"""A bot made, or a version uploaded, while the team changes (a reliability review): membership and
archiving were asked before the team's lock, so a member removed (and the team archived) right
after the check still made a bot in the archived team; an upload whose bot was deleted meanwhile
was a 500."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from armada_web.bots import services as bots
from armada_web.bots.models import Bot
from armada_web.teams import services as teams
from armada_web.teams.models import Team
from armada_web.web.errors import Forbidden

pytestmark = pytest.mark.django_db
MAIN = b"from armada.bots.galaxy import run\nrun(lambda state: [])\n"


@pytest.fixture
def crew(make_user):
    alice, bob = make_user("alice"), make_user("bob")
    team = teams.create_team(user=alice, name="crew")
    teams.join_team(user=bob, team=team, key=team.join_key)
    return alice, bob, team


def test_a_member_removed_as_they_create_a_bot_makes_none(crew, monkeypatch):
    alice, bob, team = crew
    real, calls = bots.check_member, []

    def checked_then_removed(**kwargs):  # alice removes bob and archives the team just after his check
        real(**kwargs)
        if not calls:
            calls.append(1)
            teams.remove_member(user=alice, team=Team.objects.get(pk=team.pk), username="bob")
            teams.archive_team(user=alice, team=Team.objects.get(pk=team.pk))

    monkeypatch.setattr(bots, "check_member", checked_then_removed)
    with pytest.raises(Forbidden):
        bots.create_bot(user=bob, name="sneaky", game="galaxy", team=team.pk)
    assert not Bot.objects.filter(name="sneaky").exists()


def test_an_upload_by_a_member_removed_meanwhile_is_refused(crew, monkeypatch):
    alice, bob, team = crew
    bot = bots.create_bot(user=alice, name="alpha", game="galaxy", team=team.pk)
    real = bots.check_upload

    class RemovedMeanwhile:  # alice removes bob while his upload is being checked
        def __init__(self, **kwargs):
            self.inner = real(**kwargs)

        def __enter__(self):
            found = self.inner.__enter__()
            teams.remove_member(user=alice, team=Team.objects.get(pk=team.pk), username="bob")
            return found

        def __exit__(self, *exc):
            return self.inner.__exit__(*exc)

    monkeypatch.setattr(bots, "check_upload", RemovedMeanwhile)
    with pytest.raises(Forbidden):
        bots.upload_version(bot=bot, user=bob, filename="main.py", data=MAIN)
    assert not bot.versions.exists()


def test_an_upload_racing_the_bots_deletion_is_a_clear_refusal(make_user, api, monkeypatch):
    alice = make_user("alice")
    bot = bots.create_bot(user=alice, name="alpha", game="galaxy")
    real = bots.check_upload

    class DeletedMeanwhile:  # another request commits the deletion while this upload is being checked
        def __init__(self, **kwargs):
            self.inner = real(**kwargs)

        def __enter__(self):
            found = self.inner.__enter__()
            bots.delete_bot(bot=Bot.objects.get(pk=bot.pk), user=alice)
            return found

        def __exit__(self, *exc):
            return self.inner.__exit__(*exc)

    monkeypatch.setattr(bots, "check_upload", DeletedMeanwhile)
    client = api(alice)
    client.raise_request_exception = False
    answer = client.post(f"/api/bots/{bot.pk}/versions/", {"file": SimpleUploadedFile("main.py", MAIN)},
                         format="multipart")
    assert answer.status_code == 404 and "deleted meanwhile" in answer.json()["detail"]
