"""A bot's e-mails go to every member of its team now (notifications.services), each by their own
preferences and only at their confirmed address, once per member however often the event is told;
former members get nothing; a season's results for a bot that is gone go to its entry's user."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core import mail
from django.utils import timezone

from tests.support.seasons_helpers import record_result

pytestmark = pytest.mark.django_db


@pytest.fixture
def crew(make_user):
    """Team "Crew": ann and ben (confirmed addresses), cal (turned version e-mails off), dee (only
    an address waiting for its link), eve (left the team); and its bot "shared"."""
    from armada_web.accounts import addresses
    from armada_web.accounts.services import set_mail_preferences
    from armada_web.teams.services import create_team, join_team, leave_team

    ann = make_user("ann", email="ann@example.org")
    team = create_team(user=ann, name="Crew")
    people = {"ann": ann}
    for name in ("ben", "cal", "eve"):
        people[name] = make_user(name, email=f"{name}@example.org")
    people["dee"] = make_user("dee")
    join_team(user=people["eve"], team=team, key=team.join_key)
    leave_team(user=people["eve"], team=team)
    for name in ("ben", "cal", "dee"):
        join_team(user=people[name], team=team, key=team.join_key)
    set_mail_preferences(user=people["cal"], version_failed=False)
    addresses.request_change(user=people["dee"], address="dee@example.org", site="http://x")
    mail.outbox.clear()  # dee's confirmation link
    return team, people


def failing_version(team, owner):
    from armada_web.bots.services import create_bot, upload_version

    bot = create_bot(user=owner, name="shared", game="galaxy", team=team.pk)
    return upload_version(bot=bot, user=owner, filename="main.py", data=b"print(1)\n")


def test_a_failed_version_goes_to_every_member_by_their_preferences_once(crew, monkeypatch,
                                                                         django_capture_on_commit_callbacks):
    from armada_web.bots import validation
    from armada_web.bots.models import BotVersion
    from armada_web.bots.signals import validation_failed
    from armada_web.bots.tasks import validate_version
    from tests.notifications.test_notifications import crashed_report

    team, people = crew
    version = failing_version(team, people["ben"])  # made by ben: the team's bot, not ben's
    monkeypatch.setattr(validation, "validation_game", crashed_report)
    with django_capture_on_commit_callbacks(execute=True):
        assert validate_version(version.pk) == "invalid"
    assert sorted(m.to[0] for m in mail.outbox) == ["ann@example.org", "ben@example.org"]
    assert all(m.subject == "[Armada] shared v1 is invalid" for m in mail.outbox)
    assert "your bot shared (team Crew) is invalid" in mail.outbox[0].body
    with django_capture_on_commit_callbacks(execute=True):  # told again (a task run twice): nothing more
        validation_failed.send(sender=BotVersion, version=version)
        validation_failed.send(sender=BotVersion, version=version)
    assert len(mail.outbox) == 2

    from armada_web.accounts import addresses

    with django_capture_on_commit_callbacks(execute=True):  # dee confirms: only the next event reaches her
        addresses.confirm(token=addresses.link_token(addresses.pending(user=people["dee"])))
        validation_failed.send(sender=BotVersion, version=version)
    assert sorted(m.to[0] for m in mail.outbox) == ["ann@example.org", "ben@example.org", "dee@example.org"]


def test_a_benched_bot_goes_to_every_member_and_a_personal_bot_to_its_one(crew, make_user, valid_version, armada,
                                                                        django_capture_on_commit_callbacks):
    from armada_web.bots.models import Bot
    from armada_web.matches.services import create_match

    team, people = crew
    armada(bench_faults=3, matches_queue=armada.current.validation_queue)
    faulty = valid_version(people["cal"], "faulty")
    Bot.objects.filter(pk=faulty.bot_id).update(team=team)  # moved to the team (issue 26)
    other = valid_version(make_user("fay", email="fay@example.org"), "steady")
    with django_capture_on_commit_callbacks(execute=True):
        for _ in range(5):
            match = create_match(game="galaxy", first=faulty, second=other)
            record_result(match, 2, statuses=("crashed", "ok"))
    assert sorted(m.to[0] for m in mail.outbox) == ["ann@example.org", "ben@example.org", "cal@example.org"]
    assert {m.subject for m in mail.outbox} == {"[Armada] faulty v1 is benched"}
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        for _ in range(5):
            match = create_match(game="galaxy", first=faulty, second=other)
            record_result(match, 1, statuses=("ok", "crashed"))
    assert [m.to for m in mail.outbox] == [["fay@example.org"]]  # a personal team: its one member


def test_season_results_go_to_the_team_and_for_a_bot_gone_to_its_entrys_user(crew, make_user,
                                                                            django_capture_on_commit_callbacks):
    from armada_web.bots.models import Bot
    from armada_web.seasons.models import Season, Standing
    from armada_web.seasons.signals import season_finished

    team, people = crew
    bot = Bot.objects.create(owner=people["ben"], team=team, game="galaxy", name="teambot")
    gone = make_user("gus", email="gus@example.org")
    now = timezone.now()
    season = Season.objects.create(slug="s1", name="Spring", game="galaxy", opens=now - timedelta(days=2),
                                   closes=now - timedelta(days=1), ends=now, state="finished")
    Standing.objects.create(season=season, place=1, bot_ref=bot.pk, bot_name="teambot", owner=people["ben"],
                            version_ref=1, version_number=1, score=30.0, games=10)
    Standing.objects.create(season=season, place=2, bot_ref=bot.pk + 1000, bot_name="deleted", owner=gone,
                            version_ref=2, version_number=3, score=20.0, games=10)
    with django_capture_on_commit_callbacks(execute=True):
        season_finished.send(sender=Season, season=season)
        season_finished.send(sender=Season, season=season)  # the same event again
    sent = sorted((m.to[0], m.subject) for m in mail.outbox)
    assert sent == [("ann@example.org", "[Armada] Spring: teambot finished 1 of 2"),
                    ("ben@example.org", "[Armada] Spring: teambot finished 1 of 2"),
                    ("cal@example.org", "[Armada] Spring: teambot finished 1 of 2"),
                    ("gus@example.org", "[Armada] Spring: deleted finished 2 of 2")]
    assert "(version 3) placed 2 of 2, score 20 after 10 games" in mail.outbox[-1].body


def test_the_recipients_are_the_members_now_each_once(crew):
    from armada_web.bots.models import Bot
    from armada_web.notifications.services import member_ids, notify_team_of, team_words
    from armada_web.teams.services import personal_team

    team, people = crew
    assert member_ids(team_id=team.pk) == [people[n].pk for n in ("ann", "ben", "cal", "dee")]
    bot = Bot.objects.create(owner=people["ann"], team=team, game="galaxy", name="solo")
    assert team_words(bot=bot) == " (team Crew)" and team_words(bot=None) == ""
    mine = Bot.objects.create(owner=people["eve"], team=personal_team(user=people["eve"]), game="galaxy", name="own")
    assert team_words(bot=mine) == ""
    assert notify_team_of(bot=mine, topic="benched", key="k", subject="s", body="b") == [people["eve"].pk]
    assert notify_team_of(bot=None, topic="benched", key="k", subject="s", body="b") == []


def test_a_result_without_finals_games_says_its_score_is_the_closes(crew, django_capture_on_commit_callbacks):
    """A final organiser trial: a one-entry season mailed "score 21.109 after 0 games" for a ladder
    score earned in 60 games."""
    from armada_web.bots.models import Bot
    from armada_web.seasons.models import Season, Standing
    from armada_web.seasons.signals import season_finished

    team, people = crew
    bot = Bot.objects.create(owner=people["ann"], team=team, game="galaxy", name="solo")
    now = timezone.now()
    season = Season.objects.create(slug="s2", name="Solo", game="galaxy", opens=now - timedelta(days=2),
                                   closes=now - timedelta(days=1), ends=now, state="finished")
    Standing.objects.create(season=season, place=1, bot_ref=bot.pk, bot_name="solo", owner=people["ann"],
                            version_ref=1, version_number=1, score=21.109, games=0)
    with django_capture_on_commit_callbacks(execute=True):
        season_finished.send(sender=Season, season=season)
    body = mail.outbox[0].body
    assert "score 21.109 (its score at the close: no finals game was played)." in body and "after 0 games" not in body
