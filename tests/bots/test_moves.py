"""Moving a bot between teams (issue 26, bots.moves): a bot of a personal team moves to a team
its owner is in, keeping its id, versions, rating and matches; a bot of a shared team stays with
it; every refusal is a clear domain error and changes nothing."""

from __future__ import annotations

import pytest

from armada_web.bots import moves
from armada_web.bots import services as bots
from armada_web.bots.access import is_owner
from armada_web.bots.models import Bot
from armada_web.ladder.models import Rating
from armada_web.matches.models import Participant
from armada_web.teams import services as teams
from armada_web.web.errors import Conflict, Forbidden, Invalid, NotFound
from tests.pages.data import recorded_match

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def crew(make_user):
    """alice and bob in the team "crew"; carol alone."""
    alice, bob, carol = make_user("alice"), make_user("bob"), make_user("carol")
    team = teams.create_team(user=alice, name="crew")
    teams.join_team(user=bob, team=team, key=team.join_key)
    return alice, bob, carol, team


def test_a_personal_bot_moves_with_its_history(crew, valid_version):
    alice, bob, carol, team = crew
    mine, theirs = valid_version(alice, "alpha"), valid_version(carol, "gamma")
    match = recorded_match(mine, theirs, winner=1)
    Rating.objects.update_or_create(version=mine, defaults={"mu": 30, "sigma": 5, "games": 1, "wins": 1})
    bot = Bot.objects.get(pk=mine.bot_id)
    before = (bot.pk, bot.owner_id, bot.active_version_id, list(bot.versions.values_list("pk", flat=True)))
    assert not is_owner(bot=bot, user=bob)
    moved = moves.move_bot(bot=bot, user=alice, team=team.pk)
    moved.refresh_from_db()
    assert moved.team_id == team.pk
    assert (moved.pk, moved.owner_id, moved.active_version_id,
            list(moved.versions.values_list("pk", flat=True))) == before
    assert Rating.objects.get(version=mine).mu == 30
    assert Participant.objects.filter(match=match, bot_id=bot.pk).exists()
    assert is_owner(bot=moved, user=bob)  # every member of the team manages it now


def test_a_bot_of_a_shared_team_does_not_leave_it_by_one_member(crew, make_user):
    alice, bob, _carol, team = crew
    other = teams.create_team(user=alice, name="other")
    teams.join_team(user=bob, team=other, key=other.join_key)
    bot = bots.create_bot(user=alice, name="shared", game="galaxy", team=team.pk)
    for who in (alice, bob):
        with pytest.raises(Conflict, match="no one member alone"):
            moves.move_bot(bot=bot, user=who, team=other.pk)
    assert Bot.objects.get(pk=bot.pk).team_id == team.pk
    assert moves.move_targets(bot=bot, user=alice) == []


def test_refusals_are_clear_and_change_nothing(crew, make_user, armada):
    alice, bob, carol, team = crew
    bot = bots.create_bot(user=alice, name="solo", game="galaxy")
    personal = bot.team_id
    theirs = teams.create_team(user=carol, name="theirs")
    cases = [
        (carol, team.pk, Forbidden, "not your bot"),  # not the bot's team
        (bob, team.pk, Forbidden, "not your bot"),
        (alice, theirs.pk, Forbidden, "a team you are a member of"),
        (alice, personal, Conflict, "already"),
        (alice, 10**9, Invalid, "no team"),
        (alice, "x", Invalid, "id"),
    ]
    for user, target, error, message in cases:
        with pytest.raises(error, match=message):
            moves.move_bot(bot=bot, user=user, team=target)
    teams.archive_team(user=alice, team=team)
    with pytest.raises(Conflict, match="archived"):
        moves.move_bot(bot=bot, user=alice, team=team.pk)
    assert Bot.objects.get(pk=bot.pk).team_id == personal
    assert moves.move_targets(bot=bot, user=alice) == []  # an archived team is no target


def test_the_limit_of_bots_counts_in_the_team_moved_to(crew, armada):
    armada(max_bots_per_game=1)
    alice, bob, _carol, team = crew
    bots.create_bot(user=bob, name="theirs", game="galaxy", team=team.pk)
    bot = bots.create_bot(user=alice, name="solo", game="galaxy")
    with pytest.raises(Conflict, match="limit is 1 per team"):
        moves.move_bot(bot=bot, user=alice, team=team.pk)
    bots.retire_bot(bot=bot, user=alice)
    bot.refresh_from_db()
    assert moves.move_bot(bot=bot, user=alice, team=team.pk).team_id == team.pk  # a retired bot takes no place


def test_move_targets_are_the_teams_the_service_accepts(crew, make_user):
    alice, _bob, carol, team = crew
    bot = bots.create_bot(user=alice, name="solo", game="galaxy")
    teams.create_team(user=carol, name="theirs")
    assert moves.move_targets(bot=bot, user=alice) == [team]
    assert moves.move_targets(bot=bot, user=carol) == []
    with pytest.raises(NotFound):
        teams.get_team(team_id=10**9)


def test_a_bot_entered_in_an_event_does_not_move_to_a_team_entered_there_already(crew, valid_version, make_user):
    """An organiser's trial: bob entered his personal bot, carol her team's; bob then moved his bot
    into that team, which held two bots in the event (one bot per team, as entering keeps it)."""
    from armada_web.events import services as events
    from armada_web.events.models import EventEntry

    alice, bob, _carol, team = crew
    olga = make_user("olga")
    event = events.create_event(user=olga, name="Club", game="galaxy", format="round_robin")
    crew_bot = valid_version(alice, "crew-bot").bot
    moves.move_bot(bot=crew_bot, user=alice, team=team.pk)
    bobs = valid_version(bob, "bobs").bot
    events.enter(user=alice, event=event, bot_id=crew_bot.pk, invite=event.invite)
    events.enter(user=bob, event=event, bot_id=bobs.pk, invite=event.invite)
    with pytest.raises(Conflict, match=r"bobs is entered in the event Club, where the team crew has entered "
                                       r"crew-bot already \(one bot per team\)"):
        moves.move_bot(bot=Bot.objects.get(pk=bobs.pk), user=bob, team=team.pk)
    assert Bot.objects.get(pk=bobs.pk).team.personal  # nothing moved
    assert EventEntry.objects.get(bot=bobs).team_name == "bob"

    events.withdraw(user=alice, event=event, bot_id=crew_bot.pk)
    moves.move_bot(bot=Bot.objects.get(pk=bobs.pk), user=bob, team=team.pk)
    entry = EventEntry.objects.get(bot=bobs)
    assert entry.team_name == "bob"  # the entry keeps the team it entered with (its members, not crew's)
    with pytest.raises(Conflict, match="your team crew's bot bobs is in this event already, entered for bob before "
                                       "it moved to your team: one bot per team"):
        events.enter(user=alice, event=event, bot_id=crew_bot.pk, invite=event.invite)  # crew is in, by the move
