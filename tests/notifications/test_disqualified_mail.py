"""A disqualification is mailed (notifications.receivers): the team of each entry it withdraws gets
the organisers' reason, whatever its e-mail settings, and once a season is finished each entrant
whose final place changed gets its new place (its results mail said the old one), through beat;
each mail once, however often staff click."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.core import mail
from django.db.models import F

pytestmark = pytest.mark.django_db


@pytest.fixture
def five(make_user, valid_version):
    """Five Galaxy bots of five owners with confirmed addresses, playing."""
    return [valid_version(make_user(f"user{n}", email=f"user{n}@example.org"), f"bot{n}") for n in range(5)]


@pytest.fixture
def staff(make_user):
    return make_user("judge", is_staff=True, email="judge@example.org")


def places(season: Any) -> dict[str, int]:
    from armada_web.seasons.models import Standing

    return dict(Standing.objects.filter(season=season).values_list("bot_name", "place"))


def sent() -> list[tuple[str, str]]:
    """What was sent, with what beat sends of the mails left to it (`send_pending`: those written
    MAIL_EVERY_S before, as these are made to be)."""
    from armada_web.accounts.mail import MAIL_EVERY_S
    from armada_web.accounts.models import SentMail
    from armada_web.accounts.tasks import send_pending_mail

    SentMail.objects.filter(status="pending").update(made=F("made") - timedelta(seconds=MAIL_EVERY_S + 1))
    send_pending_mail()
    return sorted((message.to[0], message.subject) for message in mail.outbox)


def test_a_finished_seasons_disqualified_entrant_gets_the_reason_and_those_below_their_new_place(
        five, staff, django_capture_on_commit_callbacks):
    from armada_web.integrity.actions import disqualify
    from armada_web.seasons.services import close_season, create_season, finish_season

    season = create_season(slug="s1", game="galaxy", name="Spring")
    close_season(season=season)
    with django_capture_on_commit_callbacks(execute=True):
        finish_season(season=season)
    assert len(mail.outbox) == 5  # the results
    before = places(season)
    out = next(version for version in five if before[version.bot.name] == 3)
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        disqualify(season=season, by=staff, reason="a copy of <bot0>", version_id=out.pk)
    with django_capture_on_commit_callbacks(execute=True):
        disqualify(season=season, by=staff, reason="a second click", version_id=out.pk)  # nothing new
    below = sorted(name for name, place in before.items() if place > 3)
    owner = {version.bot.name: version.bot.owner.username for version in five}
    assert sent() == sorted(
        [(f"{owner[out.bot.name]}@example.org", f"[Armada] Spring: {out.bot.name} v1 disqualified")]
        + [(f"{owner[name]}@example.org", f"[Armada] Spring: {name} now placed {before[name] - 1} of 4")
           for name in below])
    told = {message.subject: message.body for message in mail.outbox}
    assert mail.outbox[0].subject.endswith("disqualified")  # sent at once; the places by beat, after
    body = told[f"[Armada] Spring: {out.bot.name} v1 disqualified"]
    assert "Their reason: a copy of <bot0>" in body and "(1 entry left it)" in body
    assert "final standings are written again without it." in body and "/seasons/s1/" in body  # one entry
    moved = told[f"[Armada] Spring: {below[0]} now placed {before[below[0]] - 1} of 4"]
    assert f"now places {before[below[0]] - 1} of 4; it placed {before[below[0]]} before" in moved


def test_a_team_disqualified_during_the_finals_is_told_member_by_member_and_no_place_is_mailed(
        five, staff, make_user, django_capture_on_commit_callbacks):
    from armada.botspec import starter_file
    from armada_web.bots import services as bots
    from armada_web.bots.activation import refresh_active
    from armada_web.bots.models import BotVersion
    from armada_web.integrity.actions import disqualify
    from armada_web.seasons.services import close_season, create_season, start_finals
    from armada_web.teams import services as teams

    ann, ben = make_user("ann", email="ann@example.org"), make_user("ben", email="ben@example.org")
    crew = teams.create_team(user=ann, name="Crew")
    teams.join_team(user=ben, team=crew, key=crew.join_key)
    bot = bots.create_bot(user=ben, name="crewbot", game="galaxy", team=crew.pk)
    version = bots.upload_version(bot=bot, user=ben, filename="main.py",
                                  data=starter_file("greedy", "galaxy").read_bytes())
    BotVersion.objects.filter(pk=version.pk).update(status="valid")
    refresh_active(bot=bot)
    season = create_season(slug="s2", game="galaxy", name="Summer")
    close_season(season=season)
    start_finals(season=season)
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        disqualify(season=season, by=staff, reason="shared accounts", team="Crew")
    assert sent() == [("ann@example.org", "[Armada] Summer: team Crew disqualified"),
                      ("ben@example.org", "[Armada] Summer: team Crew disqualified")]
    assert "(1 entry left it). Its finals play on without it." in mail.outbox[0].body


def test_an_account_disqualified_tells_the_teams_of_its_entries_even_with_its_mails_off(
        five, staff, make_user, valid_version, django_capture_on_commit_callbacks):
    """user1's entries: its own bot and a bot it made for team Duo (with dot, who turned every
    e-mail off): both are told, once each; user2, whose entry stays, is not."""
    from armada_web.accounts.services import set_mail_preferences
    from armada_web.integrity.actions import disqualify
    from armada_web.seasons.services import close_season, create_season
    from armada_web.teams import services as teams

    user1 = five[1].bot.owner
    dot = make_user("dot", email="dot@example.org")
    duo = teams.create_team(user=dot, name="Duo")
    teams.join_team(user=user1, team=duo, key=duo.join_key)
    valid_version(user1, "duobot", team=duo.pk)
    set_mail_preferences(user=dot, version_failed=False, benched=False, season_results=False)
    season = create_season(slug="s3", game="galaxy", name="Autumn")
    close_season(season=season)
    with django_capture_on_commit_callbacks(execute=True):
        decision, _ = disqualify(season=season, by=staff, reason="two accounts", username="user1")
    assert decision.entries == 2
    assert sent() == [("dot@example.org", "[Armada] Autumn: the entries of user1 disqualified"),
                      ("user1@example.org", "[Armada] Autumn: the entries of user1 disqualified")]
    assert "the entries of the account user1 from the season Autumn (2 entries left it)" in mail.outbox[0].body
    assert "Turn these e-mails off" not in mail.outbox[0].body
    # (a security trial: dot was told the page showed the decision to them; it shows it to user1 and staff)
    assert "shows the decision to the account user1 and the organisers: " in mail.outbox[0].body
    assert "to you" not in mail.outbox[0].body


def test_a_bot_moved_twice_is_told_each_place_and_a_team_bot_every_member(
        five, staff, make_user, valid_version, django_capture_on_commit_callbacks):
    from armada_web.integrity.actions import disqualify
    from armada_web.seasons.services import close_season, create_season, finish_season
    from armada_web.teams import services as teams

    ann, ben = make_user("ann", email="ann@example.org"), make_user("ben", email="ben@example.org")
    crew = teams.create_team(user=ann, name="Crew")
    teams.join_team(user=ben, team=crew, key=crew.join_key)
    valid_version(ben, "crewbot", team=crew.pk)
    season = create_season(slug="s4", game="galaxy", name="Winter")
    close_season(season=season)
    finish_season(season=season)
    assert places(season)["crewbot"] == 6  # (no games: the scores tie, and the earlier entry goes first)
    sent()
    mail.outbox.clear()  # the results
    for version in five[:2]:
        with django_capture_on_commit_callbacks(execute=True):
            disqualify(season=season, by=staff, reason="copies", version_id=version.pk)
        sent()
    told = [(to, subject) for to, subject in sent() if "crewbot" in subject]
    assert told == sorted((to, f"[Armada] Winter: crewbot now placed {place} of {place}")
                          for to in ("ann@example.org", "ben@example.org") for place in (5, 4))
    assert places(season)["crewbot"] == 4
