"""A deleted account leaves the results of its teams (an organiser's trial: the standings still
named od_a, and a new account took the name, so the results seemed that account's)."""

from __future__ import annotations

import pytest

from tests.support.fixtures import PASSWORD

pytestmark = pytest.mark.django_db


def test_a_deleted_member_is_no_longer_named_and_the_name_is_free(make_user, client, valid_version):
    from armada_web.accounts.services import delete_account
    from armada_web.seasons.models import Entry, Standing
    from armada_web.teams import services as teams
    from armada_web.teams.models import Team
    from tests.integrity.test_actions import finished

    ann, ben = make_user("ann"), make_user("ben")
    crew = teams.create_team(user=ann, name="Crew")
    teams.join_team(user=ben, team=crew, key=crew.join_key)
    for name, team in (("crew-bot", crew.pk), ("solo-bot", None)):
        valid_version(ann, name, team=team)
    season = finished()
    rows = {s.bot_name: (s.team_name, s.members) for s in Standing.objects.filter(season=season)}
    assert rows == {"crew-bot": ("Crew", ["ann", "ben"]), "solo-bot": ("ann", ["ann"])}
    delete_account(user=ann, password=PASSWORD)
    rows = {s.bot_name: (s.team_name, s.members) for s in Standing.objects.filter(season=season)}
    assert rows == {"crew-bot": ("Crew", ["(deleted user)", "ben"]),
                    "solo-bot": ("(deleted user)", ["(deleted user)"])}
    entries = list(Entry.objects.filter(season=season, team_ref__in=[crew.pk]))
    assert entries and all("ann" not in e.members for e in entries)
    gone = Team.objects.get(personal=True, name__startswith="(deleted user ")
    assert gone.name == f"(deleted user {gone.pk})"
    again = make_user("ann")  # someone else takes the name: their own personal team is "ann"
    assert Team.objects.get(personal=True, memberships__user=again).name == "ann"
    page = client.get(f"/seasons/{season.slug}/").content.decode()
    assert "(deleted user)" in page and ">ann<" not in page and "(ann" not in page
    assert "((deleted user))" not in page  # the personal team's row names it once (an organiser's trial)
    assert "(deleted user), ben)" in page  # the crew keeps its members


def test_a_personal_team_named_apart_is_found_by_its_kind_not_its_name(make_user, valid_version, armada):
    """A review: the personal team is "bob-2" when a team "bob" came first; comparing names left
    "bob-2" in the results, and would have renamed the shared team "bob"'s rows. The event rows of
    the personal team and the decisions naming the account forget the name too."""
    from armada_web.accounts.services import delete_account
    from armada_web.events import services as events
    from armada_web.events.models import EventEntry
    from armada_web.integrity.models import Disqualification
    from armada_web.seasons.models import Standing
    from armada_web.teams import services as teams
    from armada_web.teams.models import Team
    from tests.integrity.test_actions import finished

    armada(events_per_day=10)
    ann = make_user("ann")
    shared = teams.create_team(user=ann, name="bob")  # before bob signs up
    bob = make_user("bob")
    teams.join_team(user=bob, team=shared, key=shared.join_key)
    own = Team.objects.get(personal=True, memberships__user=bob)
    assert own.name == "bob-2"
    mine, theirs = valid_version(bob, "mine"), valid_version(ann, "theirs", team=shared.pk)
    event = events.create_event(user=bob, name="Club", game="galaxy", format="round_robin")
    events.enter(user=bob, event=event, bot_id=mine.bot_id, invite=event.invite)
    season = finished()
    Disqualification.objects.create(season=season, target="account", user=bob, username="bob", reason="x")
    delete_account(user=bob, password=PASSWORD)
    rows = {s.bot_name: (s.team_name, s.members) for s in Standing.objects.filter(season=season)}
    assert rows["mine"] == ("(deleted user)", ["(deleted user)"])  # "bob-2", found as bob's personal team
    assert rows[theirs.bot.name] == ("bob", ["ann", "(deleted user)"])  # the shared team keeps its name
    assert EventEntry.objects.get(event=event).team_name == "(deleted user)"
    assert Disqualification.objects.get().username == "(deleted user)"
