"""Seasons in the database: `manage.py season ...` and beat by the times, entries frozen at the
close, the finals by stages (two cuts) on Match kind `finals` with their own ratings (the ladder
never moves, no drift), the final standings stored for good (recompute_ratings, a deleted bot or
user change nothing but the placeholder name), a void finals match made again and counted once,
Mothership Down's league result, the API's contract, the results' e-mails."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from django.core import mail
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone

from tests.support.seasons_helpers import queued, record_result, season_command
from tests.support.threads import locked_then

pytestmark = pytest.mark.django_db


def play_out(season, workers: int = 2, winner=lambda m: 1, limit: int = 200) -> int:
    """Beat ticks and workers until the season leaves its finals; returns the matches played."""
    from armada_web.seasons import periodic

    played = 0
    for _ in range(limit):
        periodic.tick(workers=workers)
        season.refresh_from_db()
        if season.state != "finals":
            return played
        waiting = queued("finals")
        assert waiting, "the finals stalled with nothing queued"
        for match in waiting:
            assert record_result(match, winner(match)) == "finished"
            played += 1
    raise AssertionError("the finals did not end")


def test_create_defaults_and_states_through_the_command(five):
    from armada_web.seasons.models import Season

    line = season_command("create", "s1", "--game", "galaxy", "--name", "Spring")
    assert line.startswith("created season s1 (galaxy, open)")
    season = Season.objects.get(slug="s1")
    assert abs((season.opens - timezone.now()).total_seconds()) < 60
    assert season.closes - season.opens == timedelta(days=30) and season.ends - season.closes == timedelta(days=7)
    later = (timezone.now() + timedelta(days=2)).isoformat()
    assert "upcoming" in season_command("create", "s2", "--game", "mothership", "--name", "Later", "--opens", later)
    assert season_command("open", "s2") == "season s2 is open"
    assert season_command("close", "s1") == "season s1 is closed with 5 entries frozen"
    season_command("create", "s3", "--game", "galaxy", "--name", "Solo", "--entry", "invited", "--invite", "user0")
    assert season_command("close", "s3") == "season s3 is closed with 1 entry frozen"  # (said "1 entries")


@pytest.mark.parametrize(("args", "reason"), [
    (["create", "Bad Slug", "--game", "galaxy", "--name", "x"], "slug"),
    (["create", "s9", "--game", "galaxy", "--name", " "], "needs a name"),
    (["create", "s9", "--game", "galaxy", "--name", "x", "--opens", "yesterday-ish"], "ISO 8601"),
    (["create", "s9", "--game", "galaxy", "--name", "x", "--opens", "2031-01-01T00:00:00Z", "--closes",
      "2030-01-01T00:00:00Z"], r"opens before it closes, and closes no later than it ends \(opens 2031-01-01T00:00:00"
                               r"\+00:00, closes 2030-01-01T00:00:00\+00:00, ends 2030-01-08T00:00:00\+00:00\)"),
    # the likeliest mistake, a past year with the opening left to now: said as such (was the order's message)
    (["create", "s9", "--game", "galaxy", "--name", "x", "--closes", "2025-12-20T00:00:00Z"],
     "a new season closes in the future, not at 2025-12-20T00:00:00[+]00:00"),
    # a typo in the year: beat would have closed and finished it at once, standings frozen for good
    (["create", "s9", "--game", "galaxy", "--name", "x", "--opens", "2020-01-01T00:00:00Z", "--closes",
      "2020-02-01T00:00:00Z"], "a new season closes in the future, not at 2020-02-01T00:00:00[+]00:00"),
    (["open", "nope"], "no season nope"),
    # an organiser's trial: a date at the calendar's end, plus a season's spans, was an OverflowError's traceback
    (["create", "s9", "--game", "galaxy", "--name", "x", "--closes", "9999-12-31T23:59Z"],
     "closes 9999-12-31T23:59:00[+]00:00: a season's dates lie before the year 3000; check the year"),
    (["create", "s9", "--game", "galaxy", "--name", "x", "--opens", "9999-12-31T00:00Z"], "before the year 3000"),
    # an organiser's trial: "Winter \u202eflah\u202c Cup" showed as "Winter half Cup"; an escape went to pages
    (["create", "s9", "--game", "galaxy", "--name", "Winter \u202eflah\u202c Cup"], "text direction marks"),
    (["create", "s9", "--game", "galaxy", "--name", "abc\x1b[31mred"], "control characters"),
    (["create", "s9", "--game", "galaxy", "--name", "x", "--team-size", "0"], "team size is a whole number from 1"),
    # the order's edge: a season that closes the moment it opens has no time to enter it
    (["create", "s9", "--game", "galaxy", "--name", "x", "--opens", "2031-01-01T00:00:00Z", "--closes",
      "2031-01-01T00:00:00Z"], r"opens before it closes, and closes no later than it ends \(opens 2031-01-01T00:00:00"
                               r"\+00:00, closes 2031-01-01T00:00:00\+00:00"),
])
def test_bad_input_is_refused_with_the_reason(five, args, reason):
    from armada_web.seasons.models import Season

    with pytest.raises(CommandError, match=reason):
        season_command(*args)
    assert not Season.objects.filter(slug="s9").exists()


def test_two_seasons_are_never_named_alike(five):
    """An organiser's trial made two seasons with one name: alike on /seasons/ and in every picker."""
    season_command("create", "s1", "--game", "galaxy", "--name", "Autumn Open")
    with pytest.raises(CommandError, match="season s1 is named 'Autumn Open' already"):
        season_command("create", "s2", "--game", "galaxy", "--name", "autumn  open")  # any case, any spacing
    from armada_web.seasons import services
    from armada_web.web.errors import Conflict

    season_command("create", "s2", "--game", "galaxy", "--name", "Winter")
    with pytest.raises(Conflict, match="season s1 is named"):  # a rename (the admin's form checks so) too
        services.check_season(slug="s2", game="galaxy", name="AUTUMN OPEN")
    assert services.check_season(slug="s1", game="galaxy", name="Autumn Open").name == "Autumn Open"  # itself


def test_wrong_states_exit_1_with_the_reason_and_change_nothing(five):
    from armada_web.seasons.models import Entry, Season

    season_command("create", "s1", "--game", "galaxy", "--name", "Spring")
    with pytest.raises(CommandError, match="season s1 is open: only a closed season can be given its finals"):
        season_command("finals", "s1")
    with pytest.raises(CommandError, match="only an upcoming season can be opened"):
        season_command("open", "s1")
    with pytest.raises(CommandError, match="season s1 is open: only a closed or finals season can be finished"):
        season_command("finish", "s1")
    season_command("close", "s1")
    entries = list(Entry.objects.values_list("pk", "version_ref"))
    with pytest.raises(CommandError, match="season s1 is closed: only an open season can be closed"):
        season_command("close", "s1")
    assert list(Entry.objects.values_list("pk", "version_ref")) == entries
    assert Season.objects.get(slug="s1").state == "closed"
    with pytest.raises(CommandError, match="--stages must be a whole number"):
        season_command("finals", "s1", "--stages", "0")
    assert Season.objects.get(slug="s1").state == "closed"


def test_the_entries_are_frozen_at_the_close(five, make_user):
    from armada_web.bots import activation, services
    from armada_web.bots.models import BotVersion
    from armada_web.seasons.models import Entry, Season

    season_command("create", "s1", "--game", "galaxy", "--name", "Spring")
    season_command("close", "s1")
    bot = five[0].bot
    newer = services.upload_version(bot=bot, user=bot.owner, filename="main.py", data=b"print('v2')\n")
    BotVersion.objects.filter(pk=newer.pk).update(status="valid")
    activation.refresh_active(bot=bot)
    bot.refresh_from_db()
    assert bot.active_version_id == newer.pk  # the ladder plays the new version ...
    entry = Entry.objects.get(season=Season.objects.get(slug="s1"), bot_ref=bot.pk)
    assert entry.version_ref == five[0].pk and entry.version_number == 1  # ... the season keeps the entry


def test_a_new_version_is_seeded_where_the_ladder_lists_it(five):
    # The ladder lists a new version at its predecessor's score before its first game: the season's
    # seeds follow it (it was seeded last, after every bot with games, and a team rule could drop it).
    from armada_web.bots import activation, services
    from armada_web.bots.models import BotVersion
    from armada_web.ladder.models import Rating
    from armada_web.seasons.models import Entry

    for n, version in enumerate(five):
        Rating.objects.filter(version=version).update(mu=20.0 + n, sigma=1.0, games=30)
    bot = five[4].bot  # the best, then a new version
    newer = services.upload_version(bot=bot, user=bot.owner, filename="main.py", data=b"print('v2')\n")
    BotVersion.objects.filter(pk=newer.pk).update(status="valid")
    activation.refresh_active(bot=bot)
    assert Rating.objects.get(version=newer).games == 0
    season_command("create", "s1", "--game", "galaxy", "--name", "Spring")
    season_command("close", "s1")
    seeds = list(Entry.objects.filter(season__slug="s1").order_by("seed").values_list("bot_name", "version_number"))
    assert seeds == [("bot4", 2), ("bot3", 1), ("bot2", 1), ("bot1", 1), ("bot0", 1)]
    assert Entry.objects.get(season__slug="s1", bot_name="bot4").ladder_mu is not None


def test_a_whole_galaxy_season_finals_with_two_cuts_then_standings_for_good(five, armada):
    from armada_web.ladder.models import Rating, RatingChange
    from armada_web.seasons import queries
    from armada_web.seasons.models import Entry, FinalsGame, Season, Standing

    armada(finals_cuts=(0.4,), finals_keep_min=2, finals_start="prior", match_workers=2)
    season_command("create", "s1", "--game", "galaxy", "--name", "Spring")
    season_command("close", "s1")
    said = season_command("finals", "s1", "--stages", "3", "--games", "2")
    assert said.count("\n") <= 1, said  # one line, as every command of it (issue 18)
    line, outlook = said.strip().split("; ", 1)
    assert line == "season s1 is in its finals: 5 entries, 3 stages of 2 games per entry, 10 matches"
    assert outlook.startswith("at about 30 s a match on all 2 workers, done about ") and "WARNING" not in outlook
    season = Season.objects.get(slug="s1")
    strongest = {five[3].pk: 3, five[1].pk: 2}  # bot3 beats everyone, then bot1

    def winner(match):
        seats = {p.seat: p.version_id for p in match.participants.all()}
        one, two = strongest.get(seats[1], 0), strongest.get(seats[2], 0)
        return None if one == two else 1 if one > two else 2

    assert play_out(season, winner=winner) == 10
    season.refresh_from_db()
    assert season.state == "finished"
    sizes = [FinalsGame.objects.filter(season=season, stage=s).count() for s in (1, 2, 3)]
    assert sizes == [5, 3, 2]  # two cuts: 5 -> 3 -> 2 entries, 2 games each per stage
    assert list(Entry.objects.filter(season=season).values_list("stage", flat=True).order_by("stage")) == \
        [1, 1, 2, 3, 3]
    standings = list(Standing.objects.filter(season=season).order_by("place"))
    assert [s.bot_name for s in standings[:2]] == ["bot3", "bot1"]
    assert [s.stage for s in standings] == [3, 3, 2, 1, 1]
    assert Rating.objects.filter(games__gt=0).count() == 0 and RatingChange.objects.count() == 0  # ladder untouched
    frozen = list(Standing.objects.filter(season=season).values_list("place", "bot_name", "score", "games"))
    # later: a ranked game, recompute_ratings, more versions: nothing of the standings moves
    call_command("recompute_ratings", stdout=StringIO())
    assert list(Standing.objects.filter(season=season).values_list("place", "bot_name", "score", "games")) == frozen
    with pytest.raises(ValueError, match="never changed"):
        standings[0].save()
    rows = queries.standings(season)
    assert [(r.place, r.bot_name, r.score, r.games) for r in rows] == frozen


def test_two_bots_of_one_owner_or_one_team_never_meet_in_the_finals(five, valid_version, armada):
    """D-S-24 in the finals: an organiser's trial saw a team's two bots paired in rated finals games."""
    from armada_web.seasons.logic import finals as finals_logic
    from armada_web.seasons.models import FinalsGame, Season
    from armada_web.teams import services as teams

    owner = five[0].bot.owner
    twin = valid_version(owner, "bot0b")  # a second bot of one owner
    team = teams.create_team(user=five[1].bot.owner, name="Red Fleet")
    mate = five[2].bot.owner
    teams.join_team(user=mate, team=team, key=team.join_key)
    from armada_web.bots.moves import move_bot

    for version in (five[1], five[2]):
        move_bot(bot=version.bot, user=version.bot.owner, team=team.pk)  # one team's two bots
    armada(finals_cuts=(0.0,), finals_keep_min=2, finals_start="prior")
    season_command("create", "s1", "--game", "galaxy", "--name", "Spring")
    season_command("close", "s1")
    season_command("finals", "s1", "--stages", "1", "--games", "6")
    season = Season.objects.get(slug="s1")
    played = play_out(season)
    apart = {frozenset((five[0].pk, twin.pk)), frozenset((five[1].pk, five[2].pk))}
    games = list(FinalsGame.objects.filter(season=season).select_related("first", "second"))
    skipped = [g for g in games if frozenset((g.first.version_id, g.second.version_id)) in apart]
    assert skipped and all(g.skipped == finals_logic.ONE_SIDE and g.match_id is None for g in skipped)
    assert played == len(games) - len(skipped) > 0
    assert all(not g.skipped for g in games if g not in skipped)
    assert finals_logic.one_side((1, None), (None, None)) is False  # deleted owners and teams match nobody


def test_finals_games_move_the_seasons_ratings_never_the_ladder(five, armada):
    from armada_web.ladder.models import Rating
    from armada_web.seasons.logic import finals as finals_logic
    from armada_web.seasons.models import Entry, Season

    armada(finals_start="prior")
    season_command("create", "s1", "--game", "galaxy", "--name", "Spring")
    season_command("close", "s1")
    season_command("finals", "s1", "--stages", "1", "--games", "2")
    season = Season.objects.get(slug="s1")
    from armada_web.seasons import periodic

    periodic.tick(workers=1)
    match = queued("finals")[0]
    assert match.kind == "finals"
    seats = list(match.participants.order_by("seat"))
    before = {e.version_ref: (e.mu, e.sigma) for e in Entry.objects.filter(season=season)}
    record_result(match, 1)
    after = {e.version_ref: (e.mu, e.sigma) for e in Entry.objects.filter(season=season)}
    skill = finals_logic.ratings.Skill
    expected = finals_logic.ratings.after_game(skill(*before[seats[0].version_id]), skill(*before[seats[1].version_id]),
                                               1, tau=finals_logic.FINALS_TAU)
    assert after[seats[0].version_id] == (expected[0].mu, expected[0].sigma)  # no dynamics term
    assert after[seats[1].version_id] == (expected[1].mu, expected[1].sigma)
    assert not Rating.objects.filter(games__gt=0).exists()
    seat = match.participants.get(seat=1)
    assert seat.mu_after == expected[0].mu  # the match page shows the finals ratings it moved


def test_a_void_finals_match_is_made_again_and_a_redelivery_counts_once(five, armada):
    from armada_web.jobs.leases import claim
    from armada_web.matches.execution import MATCH, void
    from armada_web.seasons import periodic
    from armada_web.seasons.models import Entry, FinalsGame, Season

    season_command("create", "s1", "--game", "galaxy", "--name", "Spring")
    season_command("close", "s1")
    season_command("finals", "s1", "--stages", "1", "--games", "2")
    season = Season.objects.get(slug="s1")
    periodic.tick(workers=1)
    first = queued("finals")[0]
    void(lease=claim(kind=MATCH, job_id=first.pk), reason="docker went away")  # the platform failed: no result
    periodic.tick(workers=1)
    game = FinalsGame.objects.get(season=season, tries=2)
    again = game.match
    assert again.pk != first.pk and again.status == "queued"
    assert record_result(again, 2) == "finished"
    assert claim(kind=MATCH, job_id=again.pk) is None  # a second delivery finds it done
    assert sum(Entry.objects.filter(season=season).values_list("games", flat=True)) == 2  # counted once


def test_a_deleted_accounts_entry_skips_its_finals_games_without_a_match(five, armada):
    """An organiser's trial: a deleted account's entry (its row kept, its code deleted) was sent three
    void matches per game, each charged to the platform and holding its round up."""
    from armada_web.matches.models import Match
    from armada_web.seasons import periodic
    from armada_web.seasons.models import FinalsGame, Season

    season_command("create", "s1", "--game", "galaxy", "--name", "Spring")
    season_command("close", "s1")
    five[0].bot.owner.delete()
    season_command("finals", "s1", "--stages", "1", "--games", "2")
    season = Season.objects.get(slug="s1")
    for _ in range(12):
        periodic.tick(workers=8)
        for match in queued("finals"):
            record_result(match, 1)
    games = list(FinalsGame.objects.filter(season=season).select_related("first", "second"))
    gone = [g for g in games if five[0].pk in (g.first.version_ref, g.second.version_ref)]
    assert gone and {g.skipped for g in gone} == {"not played: a bot's version was deleted"}
    assert all(g.tries == 0 for g in gone) and not any(g.skipped for g in games if g not in gone)
    assert not Match.objects.filter(kind="finals", participants__version_id=five[0].pk).exists()
    assert Season.objects.get(slug="s1").state == "finished"


def test_a_bot_of_an_account_staff_disabled_neither_plays_nor_enters(five, client):
    """An organiser's trial: a banned (inactive) account's bot had ranked games, entered the season at
    its close and was placed in its final standings."""
    from django.contrib.auth import get_user_model

    from armada_web.bots.models import BotVersion
    from armada_web.ladder.matchmaking import fill_queue
    from armada_web.ladder.models import Rating
    from armada_web.matches.models import Participant
    from armada_web.seasons.models import Entry

    banned = five[0].bot
    owner = get_user_model().objects.get(pk=banned.owner_id)
    owner.is_active = False
    owner.save()  # as the admin's form saves it: the ladder follows at once (a review: at its next repair)
    assert not BotVersion.objects.playing().filter(pk=five[0].pk).exists()
    assert BotVersion.objects.playing().filter(pk=five[1].pk).exists()
    assert not Rating.objects.filter(version=five[0]).exclude(playing=False).exists()
    assert fill_queue(workers=8) and not Participant.objects.filter(version=five[0]).exists()
    season_command("create", "s1", "--game", "galaxy", "--name", "Spring")
    season_command("close", "s1")
    assert not Entry.objects.filter(bot_ref=banned.pk).exists() and Entry.objects.count() == 4
    page = client.get(f"/bots/{banned.pk}/").content.decode()
    assert "It plays no matches now." in page and "disabled" not in page.lower()  # a ban is not told (a review)
    # named, not linked: a disabled account's page is a 404 (the trial followed the link to one)
    assert f'<span class="username">{banned.owner.username}</span>' in page
    assert f'href="/users/{banned.owner.username}/"' not in page
    owner.is_active = True
    owner.save()
    assert Rating.objects.get(version=five[0]).playing  # enabled again: on the ladder at once
    # a shared team's bot stays with the team, as when its creator deletes their account (a review)
    from armada_web.bots.models import Bot
    from armada_web.teams import services as teams

    creator = five[1].bot.owner
    crew = teams.create_team(user=creator, name="Crew")
    Bot.objects.filter(pk=five[1].bot_id).update(team=crew)
    creator.is_active = False
    creator.save()
    assert BotVersion.objects.playing().filter(pk=five[1].pk).exists() and Rating.objects.get(version=five[1]).playing


def test_finish_now_keeps_the_standings_as_they_are_and_cancels_what_waits(five):
    from armada_web.matches.models import Match
    from armada_web.seasons import periodic
    from armada_web.seasons.models import Season, Standing

    season_command("create", "s1", "--game", "galaxy", "--name", "Spring")
    season_command("close", "s1")
    season_command("finals", "s1")
    periodic.tick(workers=4)
    waiting = queued("finals")
    assert len(waiting) == 2  # the finals' share of 4 workers: half
    record_result(waiting[0], 1)
    assert season_command("finish", "s1") == "season s1 is finished: 5 final standings stored"
    assert Match.objects.get(pk=waiting[1].pk).status == "void"  # never started: cancelled
    assert Standing.objects.filter(season__slug="s1").count() == 5
    with pytest.raises(CommandError, match="season s1 is finished"):
        season_command("finish", "s1")
    assert Season.objects.get(slug="s1").state == "finished"


def test_a_finals_game_recorded_while_the_season_finishes_leaves_the_standings_alone(five, monkeypatch):
    """The recording reads the season's state with the game's row, then waits for the entries'
    rows; a season finished meanwhile (beat at its `ends`, standings written from the entries as
    they were) must not then see the game move two entries: they would disagree with the
    standings stored for good."""
    from armada_web.seasons import periodic
    from armada_web.seasons.models import Entry, FinalsGame, Season, Standing
    from armada_web.seasons.services import finish_season

    season_command("create", "s1", "--game", "galaxy", "--name", "Spring")
    season_command("close", "s1")
    season_command("finals", "s1")
    periodic.tick(workers=4)
    match = queued("finals")[0]
    locking = Entry.objects.select_for_update

    def finish_first(*args, **kwargs):  # the season finishes while the recording waits for the entries
        monkeypatch.setattr(Entry.objects, "select_for_update", locking)
        finish_season(season=Season.objects.get(slug="s1"))
        return locking(*args, **kwargs)

    monkeypatch.setattr(Entry.objects, "select_for_update", finish_first)
    assert record_result(match, 1) == "finished"  # played; the finished season counts it for nothing
    assert not FinalsGame.objects.get(match=match).counted
    stored = dict(Standing.objects.filter(season__slug="s1").values_list("bot_ref", "games"))
    assert {e.bot_ref: e.games for e in Entry.objects.filter(season__slug="s1")} == stored
    assert set(stored.values()) == {0}



@pytest.mark.django_db(transaction=True)
def test_a_finals_game_recorded_as_the_season_finishes_on_another_connection_neither_deadlocks(five):
    """Two real transactions: the recording holds the finals game's row and is about to lock the
    entries when the season finishes. `_finish` takes the rows in the recording's order (the
    games, skipped by `stop`, then the entries): in the other order each waited for the other and
    PostgreSQL aborted one ("deadlock detected")."""
    from django.db import connection

    from armada_web.seasons import periodic
    from armada_web.seasons.models import Entry, FinalsGame, Season, Standing
    from armada_web.seasons.services import finish_season
    from tests.support.services import missing

    if connection.vendor != "postgresql":
        missing("row locks need PostgreSQL (set DATABASE_URL; CI does)")
    season_command("create", "s1", "--game", "galaxy", "--name", "Spring")
    season_command("close", "s1")
    season_command("finals", "s1")
    periodic.tick(workers=4)
    match = queued("finals")[0]
    outcomes = locked_then(lambda: record_result(match, 1),
                           lambda: finish_season(season=Season.objects.get(slug="s1")).state,
                           manager=Entry.objects, method="select_for_update")
    assert outcomes == [("ok", "finished"), ("ok", "finished")]
    counted = FinalsGame.objects.get(match=match).counted
    stored = dict(Standing.objects.filter(season__slug="s1").values_list("bot_ref", "games"))
    assert {e.bot_ref: e.games for e in Entry.objects.filter(season__slug="s1")} == stored
    assert sum(stored.values()) == (2 if counted else 0)


def test_deleted_users_and_bots_leave_the_rows_with_a_placeholder(five, client):
    from armada_web.accounts.services import delete_account
    from armada_web.bots.services import delete_bot

    season_command("create", "s1", "--game", "galaxy", "--name", "Spring")
    season_command("close", "s1")
    season_command("finish", "s1")
    before = client.get("/api/seasons/s1/standings/").json()["results"]
    delete_account(user=five[0].bot.owner, password="a-long-test-password-42")
    bot = five[1].bot
    bot_id = bot.pk
    delete_bot(bot=bot, user=bot.owner)
    after = client.get("/api/seasons/s1/standings/").json()["results"]
    assert len(after) == len(before) == 5
    gone = next(r for r in after if r["bot"]["name"] == "bot0")
    assert gone["owner"] == "(deleted user)"
    deleted = next(r for r in after if r["bot"]["name"] == "bot1")
    assert deleted["bot"]["id"] == bot_id and deleted["version"] == five[1].pk and deleted["owner"] == "user1"
    strip = [{k: v for k, v in r.items() if k != "owner"} for r in after]
    import json

    # the deleted account's name leaves its rows too (its team's name and members): nothing else changes
    expected = json.loads(json.dumps(before).replace('"user0"', '"(deleted user)"'))
    assert strip == [{k: v for k, v in r.items() if k != "owner"} for r in expected]


def test_a_galaxy_season_with_too_few_entries_finishes_saying_so(make_user, valid_version):
    """Galaxy finals need two entries; with one the season finishes at once, and the command says
    why (it said "the league of its 1 entries is its result", Mothership Down's words)."""
    valid_version(make_user("solo"), "lonely")
    season_command("create", "g1", "--game", "galaxy", "--name", "Quiet")
    season_command("close", "g1")
    line = season_command("finals", "g1")
    assert line == "season g1 is finished: its 1 entry is too few for finals (at least 2), 1 final standing stored"


def test_a_mothership_season_is_the_league_of_its_frozen_entries(make_user, valid_version):
    import armada
    from armada.games.mothership.league import Race, league
    from armada_web.seasons.models import Standing

    orders = [dict(armada.run("mothership", ["builtin:random", "builtin:balanced"], seed=n).replay["steps"][0]
                   ["answers"]["1"]) for n in range(4)]
    versions = [valid_version(make_user(f"u{n}"), f"race{n}", game="mothership", orders=o, starter="balanced")
                for n, o in enumerate(orders)]
    season_command("create", "m1", "--game", "mothership", "--name", "Down")
    season_command("close", "m1")
    line = season_command("finals", "m1", "--stages", "3")
    assert line == ("season m1 is finished: the league of its 4 entries is its result (--stages left unused: a "
                    "league plays no finals)")  # not ignored silently (an organiser's trial)
    expected = league([Race(v.bot.name, o, submitted=(v.created, v.pk)) for v, o in zip(versions, orders, strict=True)])
    rows = list(Standing.objects.filter(season__slug="m1").order_by("place"))
    assert [r.bot_name for r in rows] == [row.race.name for row in expected]
    assert [r.score for r in rows] == [float(row.points) for row in expected]
    assert {r.games for r in rows} == {3}
    # its page shows points, whole numbers (a trial read "Score 7.00" as a rating)
    from django.test import Client

    page = Client().get("/seasons/m1/").content.decode()
    table = page[page.index('id="standings"'):page.index("</table>", page.index('id="standings"'))]
    assert "<th>Points</th>" in table and "<th>Score</th>" not in table
    assert f"<td>{expected[0].points}</td><td>3</td>" in table and ".00<" not in table


def test_a_finals_match_is_timed_by_the_pace_of_the_finals_not_its_length(five, armada):
    """An organiser's trial: 1.3 s matches that finished every 2.7 s on one worker made the plan say
    "about 1 s a match", and the finals ended 2.6 times later than it said."""
    from armada_web.matches.models import Match
    from armada_web.seasons import finals
    from armada_web.seasons.models import Season

    armada(finals_start="prior")
    season_command("create", "p1", "--game", "galaxy", "--name", "Pace")
    season_command("close", "p1")
    season_command("finals", "p1", "--stages", "1", "--games", "2")
    season = Season.objects.get(slug="p1")
    play_out(season, workers=1)
    played = list(Match.objects.filter(kind="finals", status="finished").order_by("pk"))
    assert len(played) >= 3
    start = timezone.now() - timedelta(minutes=5)
    for n, match in enumerate(played):
        began = start + timedelta(seconds=2.7 * n)
        Match.objects.filter(pk=match.pk).update(started=began, finished=began + timedelta(seconds=1.3))
    assert season.finals_workers == 1
    expected = (2.7 * (len(played) - 1) + 1.3) / len(played)  # their span per match on the one worker
    assert finals.match_seconds(season) == pytest.approx(expected)
    assert expected > 2.0  # not the 1.3 s each lasted
    # The workers they took are read from the matches, not from the claim this figure raises: read
    # back as `finals_workers`, it would grow at every tick (a review: 1 -> 2 -> 4 -> 7 -> 11 -> 16).
    Season.objects.filter(pk=season.pk).update(finals_workers=16)
    season.refresh_from_db()
    assert finals.match_seconds(season) == pytest.approx(expected)
    assert finals.most_at_once([(start, start + timedelta(seconds=2)), (start + timedelta(seconds=1),
                                start + timedelta(seconds=3)), (start + timedelta(seconds=2),
                                start + timedelta(seconds=4))]) == 2  # one ending as one starts: not at once
    Match.objects.filter(pk=played[-1].pk).update(started=start + timedelta(hours=1),
                                                  finished=start + timedelta(hours=1, seconds=1.3))
    assert finals.match_seconds(season) == pytest.approx(4 * 1.3)  # an hour's pause is not the pace


def test_beat_moves_seasons_by_their_times(five):
    from armada_web.seasons import periodic, services
    from armada_web.seasons.models import Season

    now = timezone.now()
    services.create_season(slug="b1", game="galaxy", name="Beat", opens=now + timedelta(hours=1),
                           closes=now + timedelta(hours=2), ends=now + timedelta(hours=3))
    assert Season.objects.get(slug="b1").state == "upcoming"
    assert periodic.tick(now=now, workers=1) == {}
    assert periodic.tick(now=now + timedelta(hours=1, minutes=1), workers=1) == {"opened": ["b1"]}
    done = periodic.tick(now=now + timedelta(hours=2, minutes=1), workers=1)
    assert done == {"closed": ["b1"], "finals": ["b1"]}  # closed and straight into its finals
    assert queued("finals")
    assert periodic.tick(now=now + timedelta(hours=3, minutes=1), workers=1) == {"finished": ["b1"]}
    season = Season.objects.get(slug="b1")
    assert season.state == "finished" and season.standings.count() == 5


def test_the_finals_take_the_workers_their_deadline_needs(five, armada):
    from armada_web.ladder.matchmaking import fill_queue
    from armada_web.matches.capacity import free
    from armada_web.seasons import finals, periodic
    from armada_web.seasons.models import Season

    armada(match_seconds=60, matches_queue=armada.current.validation_queue)
    now = timezone.now()
    season_command("create", "s1", "--game", "galaxy", "--name", "Spring")
    season_command("close", "s1")
    season_command("finals", "s1")  # 6 stages of 20 games among 5 entries: 300 matches
    season = Season.objects.get(slug="s1")
    assert season.matches_total == 300
    Season.objects.filter(pk=season.pk).update(ends=now + timedelta(days=7))
    season.refresh_from_db()
    assert finals.workers_needed(season, 10, now) == 5  # plenty of time: at least half of them
    Season.objects.filter(pk=season.pk).update(ends=now + timedelta(hours=1))
    season.refresh_from_db()
    assert finals.workers_needed(season, 10, now) == 8  # 300 x 60 s x 1.5 / 1 h = 7.5
    Season.objects.filter(pk=season.pk).update(ends=now + timedelta(minutes=30))
    season.refresh_from_db()
    assert finals.workers_needed(season, 10, now) == 10  # 15 needed: all there are
    periodic.tick(now=now, workers=4)
    assert len(queued("finals")) == 4  # the finals need all four workers: one match each in flight
    assert free(4) == 0 and fill_queue(workers=4, now=now) == []  # ranked play waits for the finals


def test_a_challenge_waiting_for_the_finals_says_so(five, armada, client):
    """An organiser's trial: on a one-worker site a challenge sat "queued" for the whole finals, and neither
    its page nor `armada challenge --wait` said why."""
    from armada_web.ladder.challenges import challenge
    from armada_web.matches.capacity import ALL_CLAIMED
    from armada_web.seasons import periodic

    armada(match_workers=1)
    match = challenge(user=five[0].bot.owner, bot=five[0].bot.pk, opponent=five[1].bot.pk)
    assert client.get(f"/api/matches/{match.pk}/").json()["waiting"] == ""  # a worker is free for it
    season_command("create", "s1", "--game", "galaxy", "--name", "Spring")
    season_command("close", "s1")
    season_command("finals", "s1")
    periodic.tick(workers=1)
    assert client.get(f"/api/matches/{match.pk}/").json()["waiting"] == ALL_CLAIMED
    finals = queued("finals")[0]
    assert client.get(f"/api/matches/{finals.pk}/").json()["waiting"] == ""  # the finals' own
    page = client.get(f"/matches/{match.pk}/").content.decode()
    assert "It waits longer than usual: every match worker plays a season&#x27;s finals now" in page
    from django.core.cache import cache

    from armada_web.matches.capacity import WORKERS_KEY

    armada(match_workers=0)
    cache.delete(WORKERS_KEY)  # no count of the workers: nothing said (a site of ten would read it too)
    assert client.get(f"/api/matches/{match.pk}/").json()["waiting"] == ""
    cache.set(WORKERS_KEY, 1)
    assert client.get(f"/api/matches/{match.pk}/").json()["waiting"] == ALL_CLAIMED


def test_the_api_contract(five, client, armada):
    from armada_web.seasons import periodic

    season_command("create", "s1", "--game", "galaxy", "--name", "Spring <b>")
    listing = client.get("/api/seasons/").json()
    assert listing["count"] == 1
    assert set(listing["results"][0]) >= {"slug", "name", "game", "state", "opens", "closes", "ends"}
    detail = client.get("/api/seasons/s1/").json()
    assert detail["entries"] == 5 and detail["name"] == "Spring <b>" and "finals" not in detail
    assert detail["closed_at"] is None and detail["finished_at"] is None
    season_command("close", "s1")
    closed = client.get("/api/seasons/s1/").json()
    assert closed["closed_at"] is not None and closed["closed_at"] < closed["closes"]  # closed early, by hand
    season_command("finals", "s1", "--stages", "2", "--games", "2")
    periodic.tick(workers=2)
    detail = client.get("/api/seasons/s1/").json()
    assert detail["state"] == "finals"
    assert {k: detail["finals"][k] for k in ("stage", "stages", "matches_done", "matches_total")} == {
        "stage": 1, "stages": 2, "matches_done": 0, "matches_total": 5 + 5}
    record_result(queued("finals")[0], 1)
    assert client.get("/api/seasons/s1/").json()["finals"]["matches_done"] == 1
    page = client.get("/api/seasons/s1/standings/?page_size=2").json()
    assert page["count"] == 5 and len(page["results"]) == 2 and page["next"]
    row = page["results"][0]
    assert set(row) >= {"place", "bot", "owner", "version", "score", "games"}
    assert set(row["bot"]) == {"id", "name", "team"}
    from armada_web.bots.models import BotVersion

    assert row["version_number"] == BotVersion.objects.get(pk=row["version"]).number
    assert client.get("/api/seasons/nope/").status_code == 404
    assert client.get("/api/seasons/nope/standings/").status_code == 404


def test_results_are_mailed_once_unless_turned_off(five, django_capture_on_commit_callbacks):
    from armada_web.accounts.mail import MAIL_EVERY_S
    from armada_web.accounts.models import SentMail
    from armada_web.accounts.services import set_mail_preferences
    from armada_web.accounts.tasks import send_pending_mail
    from armada_web.seasons.models import Season
    from armada_web.seasons.signals import season_finished

    set_mail_preferences(user=five[4].bot.owner, season_results=False)
    season_command("create", "s1", "--game", "galaxy", "--name", "Spring")
    season_command("close", "s1")
    with django_capture_on_commit_callbacks(execute=True):
        season_command("finish", "s1")
    assert mail.outbox == []  # the command leaves them to beat (its output stays its one line)
    SentMail.objects.update(made=timezone.now() - timedelta(seconds=MAIL_EVERY_S + 1))
    assert send_pending_mail() == 4
    assert sorted(m.to[0] for m in mail.outbox) == [f"user{n}@example.com" for n in range(4)]
    assert "placed" in mail.outbox[0].body and "/seasons/s1/" in mail.outbox[0].body
    with django_capture_on_commit_callbacks(execute=True):
        season_finished.send(sender=Season, season=Season.objects.get(slug="s1"))  # the same event again
    assert len(mail.outbox) == 4


def test_the_admin_creates_checks_and_moves_seasons(five, admin_client):
    from armada_web.seasons.models import Season

    form = {"slug": "adm", "name": "Admin's", "game": "galaxy", "opens_0": "2030-01-01", "opens_1": "00:00:00",
            "closes_0": "2029-01-01", "closes_1": "00:00:00", "ends_0": "2031-01-01", "ends_1": "00:00:00",
            "cuts": "[]", "standings-TOTAL_FORMS": "0", "standings-INITIAL_FORMS": "0"}
    answer = admin_client.post("/admin/seasons/season/add/", form)
    assert answer.status_code == 200 and "opens before it closes" in answer.content.decode()
    form.update({"opens_0": "2020-01-01", "closes_0": "2020-02-01", "ends_0": "2020-03-01"})  # a wrong year
    answer = admin_client.post("/admin/seasons/season/add/", form)
    assert answer.status_code == 200 and "a new season closes in the future" in answer.content.decode()
    assert not Season.objects.exists()
    bad_date = admin_client.post("/admin/seasons/season/add/", {**form, "closes_0": "2026-13-45"})
    text = bad_date.content.decode()  # its own error only (an organiser's trial: a rule about a date nobody typed)
    assert "Enter a valid date" in text and "opens before it closes" not in text and "closes in the future" not in text
    now = timezone.now()
    form.update({"opens_0": f"{now:%Y-%m-%d}", "opens_1": "00:00:00", "closes_0": "2099-01-01", "ends_0": "2100-01-01"})
    answer = admin_client.post("/admin/seasons/season/add/", form)
    assert answer.status_code == 302, answer.context["adminform"].form.errors if answer.context else answer
    season = Season.objects.get(slug="adm")
    assert season.state == "open"
    for action, state in (("close_now", "closed"), ("close_now", "closed"), ("finish_now", "finished")):
        admin_client.post("/admin/seasons/season/", {"action": action, "_selected_action": [season.pk]})
        season.refresh_from_db()
        assert season.state == state
    assert season.standings.count() == 5
    page = admin_client.get(f"/admin/seasons/season/{season.pk}/change/").content.decode()
    assert "bot0" in page  # the standings, read-only


@pytest.mark.parametrize("seed", range(4))
def test_a_bots_place_in_a_running_season_is_counted_in_the_database_as_the_standings_order_it(seed, five):
    """The bot page's placement (issue 17: no read of a season's entries) agrees with `standings`:
    later stage, higher score (finals rating, else the ladder's, else the prior), seed, id; ties included."""
    import random

    from armada_web.seasons import queries
    from armada_web.seasons.models import Entry, Season

    season_command("create", "s1", "--game", "galaxy", "--name", "Spring")
    season_command("close", "s1")
    season = Season.objects.get(slug="s1")
    pick = random.Random(seed)
    for entry in Entry.objects.filter(season=season):
        entry.stage = pick.choice([1, 1, 2])
        kind = pick.choice(["finals", "ladder", "prior", "tie"])
        entry.mu, entry.sigma = ((pick.uniform(20, 30), pick.uniform(1, 8)) if kind == "finals"
                                 else (28.0, 2.0) if kind == "tie" else (None, None))
        entry.ladder_mu, entry.ladder_sigma = ((pick.uniform(20, 30), pick.uniform(1, 8)) if kind == "ladder"
                                               else (None, None))
        entry.save()
    expected = {row.bot_id: row.place for row in queries.standings(season)}
    got = {e.bot_ref: queries.standings_place(e) for e in Entry.objects.filter(season=season).select_related("season")}
    assert got == expected and sorted(got.values()) == [1, 2, 3, 4, 5]
    bot = five[0].bot_id
    assert [(p.season.slug, p.place) for p in queries.placements_of_bot(bot)] == [("s1", expected[bot])]


def test_a_races_place_in_a_closed_mothership_season_follows_the_league_then_the_seed(make_user, valid_version):
    import armada
    from armada_web.seasons import queries
    from armada_web.seasons.models import Entry, Season

    for n in range(4):
        orders = dict(armada.run("mothership", ["builtin:random", "builtin:balanced"], seed=n).replay["steps"][0]
                      ["answers"]["1"])
        valid_version(make_user(f"u{n}"), f"race{n}", game="mothership", orders=orders, starter="balanced")
    season_command("create", "m1", "--game", "mothership", "--name", "Down")
    season_command("close", "m1")
    season = Season.objects.get(slug="m1")
    entries = list(Entry.objects.filter(season=season).order_by("seed"))
    Entry.objects.filter(pk=entries[3].pk).update(place=1)  # a played place ahead of the seeds
    expected = {row.bot_id: row.place for row in queries.standings(season)}
    got = {e.bot_ref: queries.standings_place(e) for e in Entry.objects.filter(season=season).select_related("season")}
    assert got == expected


@pytest.mark.django_db(transaction=True)
def test_recording_a_finals_match_never_waits_for_the_seasons_row(five):
    """`finals.advance` locks the season, then creates matches (counting on the bots' records);
    the recording counts on those records first, so it must not lock the season too: two hosts
    doing both at once deadlocked (found on a compose deployment with a second worker host)."""
    import threading
    import time

    from django.db import connection, transaction

    from armada_web.seasons.models import Season
    from tests.support.services import missing

    if connection.vendor != "postgresql":
        missing("row locks need PostgreSQL (set DATABASE_URL; CI does)")
    season_command("create", "s1", "--game", "galaxy", "--name", "Spring")
    season_command("close", "s1")
    season_command("finals", "s1", "--stages", "1", "--games", "2")
    season = Season.objects.get(slug="s1")
    match = queued("finals")[0]
    from armada_web.seasons.models import FinalsGame

    holding, counted_meanwhile = threading.Event(), threading.Event()

    def hold_the_season() -> None:  # as advance does, until the recording has committed (or 20 s)
        try:
            with transaction.atomic():
                Season.objects.select_for_update().get(pk=season.pk)
                holding.set()
                for _ in range(200):
                    if FinalsGame.objects.filter(match_id=match.pk, counted=True).exists():
                        counted_meanwhile.set()
                        return
                    time.sleep(0.1)
        finally:
            connection.close()

    holder = threading.Thread(target=hold_the_season)
    holder.start()
    assert holding.wait(20)
    try:  # the recording commits; its on-commit `play_on` then waits for the season, as it may
        assert record_result(match, 1) == "finished"
    finally:
        holder.join()
    assert counted_meanwhile.is_set(), "the recording waited for the season's row"


def test_a_season_closed_and_finished_by_hand_shows_when_it_did_not_its_planned_dates(five, client):
    from armada_web.seasons.models import Season

    season_command("create", "s1", "--game", "galaxy", "--name", "Spring")
    season_command("close", "s1")
    season_command("finish", "s1")
    season = Season.objects.get(slug="s1")
    assert season.closed_at < season.closes and season.finished_at < season.ends
    page = client.get("/seasons/s1/").content.decode()
    assert f"closed {season.closed_at:%Y-%m-%d %H:%M}" in page
    assert f"finished {season.finished_at:%Y-%m-%d %H:%M}" in page
    assert f"{season.closes:%Y-%m-%d %H:%M}" not in page
    listing = client.get("/seasons/").content.decode()
    assert f"{season.finished_at:%Y-%m-%d %H:%M}" in listing and f"{season.ends:%Y-%m-%d %H:%M}" not in listing


def test_a_finals_plan_past_the_season_s_end_is_said_at_once(five, armada):
    """An organiser's trial planned 1,000 stages of 1,000 games for 2 entries: accepted without a word,
    and the finals then took every worker for days. The command now says when the plan would be done
    on every worker, and warns when that is past the season's end."""
    from armada_web.seasons.models import Season

    season_command("create", "s1", "--game", "galaxy", "--name", "Spring")
    season_command("close", "s1")
    Season.objects.filter(slug="s1").update(ends=timezone.now() + timedelta(hours=1))
    # (past the end such finals are refused unless --past-end: tests/seasons/test_finals_plan.py)
    line, outlook = season_command("finals", "s1", "--stages", "1000", "--games", "1000",
                                   "--past-end").strip().split("; ", 1)
    assert line.startswith("season s1 is in its finals: 5 entries, 1000 stages of 1000 games per entry")
    assert "WARNING: that takes every match worker until it is done (ranked play and events wait), and it is " \
        "after the season's end" in outlook and "`season finish s1` ends the finals now" in outlook
    season_command("finish", "s1")
    season_command("create", "s2", "--game", "galaxy", "--name", "Summer")
    season_command("close", "s2")
    armada(match_workers=2)  # (one worker is every worker: the finals' share of it takes it all)
    _line, outlook = season_command("finals", "s2", "--stages", "1", "--games", "2").split("; ", 1)
    assert "WARNING" not in outlook  # it fits, with the claim's margin: the finals share the workers
    from armada_web.seasons.queries import finals_outlook

    season = Season.objects.get(slug="s2")
    season.ends = timezone.now() + timedelta(seconds=season.matches_total * 30 * 1.2 / 2)  # within, not its margin
    warned = finals_outlook(season)
    assert "takes every match worker" in warned and "after the season's end" not in warned
