"""A season's team rules (issue 26, docs/seasons.md "Teams"): an entered team's size, one entered
team per person, the members of an entered team frozen from the close until the results are final
(each refusal a 409 with its reason, nothing changed), the close leaving out a team that broke them
later (D-S-14), and the standings naming each entry's team and its members."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

pytestmark = pytest.mark.django_db


def season_command(*args: str) -> str:
    out = StringIO()
    call_command("season", *args, stdout=out)
    return out.getvalue().strip()


@pytest.fixture
def team_bot():
    """`team_bot(member, team, name)`: a valid, active Galaxy version of a new bot of `team`."""
    from armada.botspec import starter_file
    from armada_web.bots import services
    from armada_web.bots.activation import refresh_active
    from armada_web.bots.models import BotVersion

    def make(member, team, name, game="galaxy"):
        bot = services.create_bot(user=member, name=name, game=game, team=team.pk)
        version = services.upload_version(bot=bot, user=member, filename="main.py",
                                          data=starter_file("greedy", game).read_bytes())
        BotVersion.objects.filter(pk=version.pk).update(status="valid")
        refresh_active(bot=bot)
        return version

    return make


@pytest.fixture
def crew(make_user, team_bot):
    """Team "crew" of ann with a playing Galaxy bot (so it is entered in an open Galaxy season)."""
    from armada_web.teams import services

    ann = make_user("ann")
    team = services.create_team(user=ann, name="crew")
    team_bot(ann, team, "crew-bot")
    return team


def members(team) -> list[str]:
    from armada_web.teams import queries

    return [m.user.username for m in queries.members(team)]


def refused(call, *words: str) -> str:
    from armada_web.web.errors import Conflict

    with pytest.raises(Conflict) as caught:
        call()
    for word in words:
        assert word in str(caught.value), caught.value
    return str(caught.value)


def test_an_entered_team_is_held_to_its_seasons_size(crew, make_user, armada):
    from armada_web.teams import services

    armada(team_max_members=4)
    assert season_command("create", "s1", "--game", "galaxy", "--name", "Spring", "--team-size", "2") \
        .endswith("entry: everyone; teams of at most 2")
    services.join_team(user=make_user("bob"), team=crew, key=crew.join_key)
    refused(lambda: services.join_team(user=make_user("cyd"), team=crew, key=crew.join_key),
            "crew is entered in season Spring (s1)", "at most 2 members")
    assert members(crew) == ["ann", "bob"]
    idle = services.create_team(user=make_user("dee"), name="idle")  # no Galaxy bot: not entered
    for name in ("eve", "fay", "gil"):
        services.join_team(user=make_user(name), team=idle, key=idle.join_key)
    assert len(members(idle)) == 4  # only the site's limit


def test_a_season_size_above_the_sites_is_refused(armada):
    from armada_web.seasons import services
    from armada_web.web.errors import Invalid

    armada(team_max_members=4)
    with pytest.raises(Invalid, match="from 1 to 4"):
        services.create_season(slug="s1", game="galaxy", name="Spring", team_max_members=5)
    # 0 wiped the season's rules with "entry: everyone" (an organiser's trial): refused, nothing changed
    season = services.create_season(slug="s2", game="galaxy", name="Summer", team_max_members=2,
                                    one_team_per_person=True)
    with pytest.raises(Invalid, match="from 1 to 4"):
        services.set_team_rules(season=season, team_max_members=0)
    season.refresh_from_db()
    assert (season.team_max_members, season.one_team_per_person) == (2, True)


def test_one_entered_team_per_person(crew, make_user, valid_version, team_bot):
    from armada_web.teams import services

    season_command("create", "s1", "--game", "galaxy", "--name", "Spring", "--one-team")
    bob = make_user("bob")
    valid_version(bob, "bob-bot")  # bob's personal team is entered
    message = refused(lambda: services.join_team(user=bob, team=crew, key=crew.join_key),
                      "you are in bob", "season Spring (s1)", "one team of that season")
    assert "bob" not in members(crew)
    other = services.create_team(user=make_user("cyd"), name="other")
    team_bot(other.memberships.first().user, other, "other-bot")
    services.join_team(user=make_user("dee"), team=crew, key=crew.join_key)  # in no other entered team
    refused(lambda: services.join_team(user=members_user("dee"), team=other, key=other.join_key),
            "you are in crew")
    assert message.startswith("you are in bob")
    season_command("teams", "s1")  # the rule lifted: the same join passes
    services.join_team(user=bob, team=crew, key=crew.join_key)
    assert "bob" in members(crew)


def members_user(username):
    from django.contrib.auth.models import User

    return User.objects.get(username=username)


def test_a_team_of_a_mothership_season_is_not_held_by_a_galaxy_one(crew, make_user, valid_version):
    from armada_web.teams import services

    season_command("create", "md", "--game", "mothership", "--name", "Mother", "--one-team", "--team-size", "1")
    bob = make_user("bob")
    valid_version(bob, "bob-bot")
    services.join_team(user=bob, team=crew, key=crew.join_key)  # crew has no Mothership Down race
    assert members(crew) == ["ann", "bob"]


def test_members_freeze_from_the_close_until_the_results_are_final(crew, make_user, valid_version):
    from armada_web.seasons.models import Entry
    from armada_web.teams import services

    valid_version(make_user("hal"), "hal-bot")  # a second entry: the finals have a game to play
    bob, cyd = make_user("bob"), make_user("cyd")
    services.join_team(user=bob, team=crew, key=crew.join_key)
    services.join_team(user=cyd, team=crew, key=crew.join_key)
    idle = services.create_team(user=make_user("dee"), name="idle")
    season_command("create", "s1", "--game", "galaxy", "--name", "Spring")
    season_command("close", "s1")
    entry = Entry.objects.get(season__slug="s1", bot_name="crew-bot")
    assert (entry.team_id, entry.team_name, entry.members) == (crew.pk, "crew", ["ann", "bob", "cyd"])
    for call in (lambda: services.join_team(user=make_user("eve"), team=crew, key=crew.join_key),
                 lambda: services.leave_team(user=bob, team=crew),
                 lambda: services.remove_member(user=ann_of(crew), team=crew, username="cyd")):
        refused(call, "the members of crew are frozen", "season Spring (s1), which is closed",
                "once its results are final")
    assert members(crew) == ["ann", "bob", "cyd"]
    services.join_team(user=make_user("fay"), team=idle, key=idle.join_key)  # not entered: not frozen
    assert "1 stage of 1 game per entry" in season_command("finals", "s1", "--stages", "1", "--games", "1")
    refused(lambda: services.leave_team(user=bob, team=crew), "which is in its finals")
    # archived, its bot would play the finals on (an organiser's trial): refused as the members' changes are
    refused(lambda: services.archive_team(user=bob, team=crew), "crew cannot be archived now: it entered season "
            "Spring (s1), which is in its finals", "archive it then")
    assert services.archive_refusal(user=bob, team=crew) is not None
    crew.refresh_from_db()
    assert crew.archived is None
    season_command("finish", "s1")
    services.leave_team(user=bob, team=crew)  # final: unfrozen
    services.join_team(user=make_user("gus"), team=crew, key=crew.join_key)
    assert members(crew) == ["ann", "cyd", "gus"]


def ann_of(team):
    return team.memberships.order_by("joined", "id").first().user


def test_the_close_leaves_out_teams_that_broke_the_rules_later(make_user, valid_version, team_bot, client):
    from armada_web.seasons.models import Entry
    from armada_web.teams import services

    ann, bob, cyd, dee = (make_user(n) for n in ("ann", "bob", "cyd", "dee"))
    big = services.create_team(user=ann, name="big")
    for user in (bob, cyd):
        services.join_team(user=user, team=big, key=big.join_key)
    pair = services.create_team(user=dee, name="pair")
    services.join_team(user=make_user("eve"), team=pair, key=pair.join_key)
    season_command("create", "s1", "--game", "galaxy", "--name", "Spring", "--team-size", "2", "--one-team")
    team_bot(ann, big, "big-bot")  # big became entered with 3 members: too many for the season
    team_bot(dee, pair, "pair-bot")  # seeded before dee's own bot (older)
    valid_version(dee, "dee-bot")  # dee in two entered teams: the better seeded one enters
    valid_version(make_user("fay"), "fay-bot")
    from armada_web.seasons.models import Season
    from armada_web.seasons.queries import entry_count

    # what the season's page and API count before the close is what the close freezes (an
    # organiser's trial: they said 6, the close froze 5 and nobody was told)
    assert entry_count(Season.objects.get(slug="s1")) == 2
    from armada_web.ladder.models import Rating
    from armada_web.seasons.queries import standings

    Rating.objects.update(games=3)  # on the ladder: the live standings list them, as the close will
    assert sorted(r.bot_name for r in standings(Season.objects.get(slug="s1"))) == ["fay-bot", "pair-bot"]
    # and it says which bots its rules leave out (an organiser's trial: dropped silently, page and close)
    from armada_web.seasons.queries import left_out_by_team_rules

    assert sorted(left_out_by_team_rules(Season.objects.get(slug="s1"))) == ["big-bot (big)", "dee-bot (dee)"]
    page = client.get("/seasons/s1/").content.decode()
    assert "would leave out 2: " in page and "big-bot (big)" in page and "dee-bot (dee)" in page
    closed = season_command("close", "s1")
    assert closed.startswith("season s1 is closed with 2 entries frozen; its team rules left out 2: ")
    assert "big-bot (big)" in closed and "dee-bot (dee)" in closed
    # kept, however it closed (on time, the admin, the command: a review), and the page says it after
    assert sorted(Season.objects.get(slug="s1").left_out) == ["big-bot (big)", "dee-bot (dee)"]
    page = client.get("/seasons/s1/").content.decode()
    assert "would leave out" not in page and "team rules</a> left out 2: " in page
    rows = {e.bot_name: (e.team_name, e.members) for e in Entry.objects.filter(season__slug="s1")}
    assert rows == {"pair-bot": ("pair", ["dee", "eve"]), "fay-bot": ("fay", ["fay"])}


def test_standings_name_the_team_and_its_members_in_every_state(crew, make_user, api):
    from armada_web.teams import services

    services.join_team(user=make_user("bob"), team=crew, key=crew.join_key)
    from armada_web.ladder.models import Rating

    season_command("create", "s1", "--game", "galaxy", "--name", "Spring", "--team-size", "3")
    Rating.objects.filter(version__bot__name="crew-bot").update(games=3, playing=True)  # on the ladder
    client = api()
    detail = client.get("/api/seasons/s1/").json()
    assert detail["team_max_members"] == 3 and detail["one_team_per_person"] is False
    live = client.get("/api/seasons/s1/standings/").json()
    assert [(r["team"], r["members"]) for r in live["results"]] == [({"id": crew.pk, "name": "crew"},
                                                                      ["ann", "bob"])]
    season_command("close", "s1")
    season_command("finish", "s1")
    services.leave_team(user=members_user("bob"), team=crew)  # after the results: they keep who played
    rows = client.get("/api/seasons/s1/standings/").json()["results"]
    assert rows[0]["team"] == {"id": crew.pk, "name": "crew"} and rows[0]["members"] == ["ann", "bob"]
    assert rows[0]["owner"] == "ann" and rows[0]["bot"]["name"] == "crew-bot"  # the old fields kept
    page = client.get("/seasons/s1/").content.decode()
    assert "<th>Team</th>" in page and "crew</a> <span class=\"muted\">(ann, bob)</span>" in page
    assert "at most <strong>3</strong> members per entered team" in page


def test_refusals_are_409_with_their_reason_through_the_api(crew, make_user, api):
    from armada_web.teams import services

    services.join_team(user=make_user("cyd"), team=crew, key=crew.join_key)
    season_command("create", "s1", "--game", "galaxy", "--name", "Spring")
    season_command("close", "s1")
    bob = api(make_user("bob"))
    answer = bob.post(f"/api/teams/{crew.pk}/join/", {"key": crew.join_key}, format="json")
    assert answer.status_code == 409 and "frozen" in answer.json()["detail"]
    leave = api(ann_of(crew)).post(f"/api/teams/{crew.pk}/leave/")
    assert leave.status_code == 409 and "frozen" in leave.json()["detail"]
    assert members(crew) == ["ann", "cyd"]
