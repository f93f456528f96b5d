"""Seasons and events end to end: a real web server, real Celery workers (validation; the match
worker serving finals, challenges, events and matches as `make up`'s does), Redis and Docker.

A whole Galaxy season in about a minute (short stages by settings): open, four bots uploaded and
validated as entries, closed by the command, finals with two cuts played by the one runner, the
season finished by itself and its standings frozen and shown; a private event of three members
through the API; a worker killed during the finals: its match is played again and counts once;
the finals queue taken first and events sharing the worker with ranked play; a season of teams
(issue 26) played to its finals, its rules refusing joins and its members frozen until the end."""

from __future__ import annotations

import subprocess
import sys
import time
from typing import Any

import pytest

from armada.botspec import starter_file
from tests.live.test_matches_live import slow_bots, wait_match
from tests.live.test_validation_live import call, token_for, upload, wait_for
from tests.support.localsite import ROOT

pytestmark = [pytest.mark.docker, pytest.mark.redis, pytest.mark.slow]


def season(site: Any, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`manage.py season ...` run as an operator would, against the live site's database."""
    return subprocess.run([sys.executable, "manage.py", "season", *args], cwd=ROOT, env={**site.env, **(env or {})},
                          capture_output=True, text=True, timeout=120)


def entrants(site: Any, names: list[str]) -> list[tuple[str, int]]:
    """Each name an owner uploading a Galaxy bot through the API; waits until every version is valid."""
    made = []
    for name in names:
        token = token_for(site, name)
        source = starter_file("greedy" if len(made) % 2 else "prober", "galaxy").read_bytes()
        version = upload(site, token, "galaxy", f"{name}-bot", "main.py", source)
        made.append((token, version["id"]))
    for token, version_id in made:
        assert wait_for(site, token, version_id, ("valid", "invalid", "error"))["status"] == "valid"
    return made


def wait_state(slug: str, state: str, seconds: float, site: Any, tick: Any = None) -> Any:
    from armada_web.seasons.models import Season

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = Season.objects.get(slug=slug)
        if found.state == state:
            return found
        if tick is not None:
            tick()
        time.sleep(0.5)
    raise AssertionError(f"season {slug} is {Season.objects.get(slug=slug).state}, not {state}; "
                         f"worker log:\n{site.log('worker-matches')[-4000:]}")


def test_a_whole_season_on_a_live_site(live_site):
    from armada_web.ladder.models import RatingChange
    from armada_web.matches.models import Match
    from armada_web.seasons import periodic
    from armada_web.seasons.models import FinalsGame, Standing

    made = season(live_site, "create", "live-s1", "--game", "galaxy", "--name", "Live <season>")
    assert made.returncode == 0 and made.stdout.startswith("created season live-s1 (galaxy, open)"), made.stderr
    status, listed = call(live_site, "GET", "/api/seasons/live-s1/")
    assert status == 200 and listed["state"] == "open"
    entries = entrants(live_site, ["ada", "bea", "cyd", "dan"])
    status, listed = call(live_site, "GET", "/api/seasons/live-s1/")
    assert listed["entries"] == 4
    closed = season(live_site, "close", "live-s1")
    assert closed.stdout.strip() == "season live-s1 is closed with 4 entries frozen", closed.stderr
    again = season(live_site, "close", "live-s1")
    assert again.returncode == 1 and "only an open season can be closed" in again.stderr
    short = {"ARMADA_FINALS_CUTS": "0.4", "ARMADA_FINALS_KEEP_MIN": "2"}
    started = season(live_site, "finals", "live-s1", "--stages", "3", "--games", "2", env=short)
    assert started.stdout.strip().split("; ")[0] == ("season live-s1 is in its finals: 4 entries, 3 stages of 2 "
                                                     "games per entry, 9 matches"), started.stderr
    status, detail = call(live_site, "GET", "/api/seasons/live-s1/")
    assert detail["state"] == "finals" and detail["finals"]["matches_total"] == 9

    def tick() -> None:
        periodic.tick(workers=1)

    done = wait_state("live-s1", "finished", 300, live_site, tick)  # it finishes by itself
    games = FinalsGame.objects.filter(season=done)
    assert [games.filter(stage=s).count() for s in (1, 2, 3)] == [4, 3, 2]  # two cuts: 4 -> 3 -> 2
    assert all(g.counted and g.match.status == "finished" and g.match.kind == "finals" for g in games)
    assert RatingChange.objects.filter(match__kind="finals").count() == 0  # the ladder never moved
    standings = list(Standing.objects.filter(season=done).order_by("place"))
    assert len(standings) == 4 and [s.stage for s in standings] == [3, 3, 2, 1]
    status, rows = call(live_site, "GET", "/api/seasons/live-s1/standings/")
    assert status == 200 and [r["bot"]["name"] for r in rows["results"]] == [s.bot_name for s in standings]
    assert {r["version"] for r in rows["results"]} == {v for _t, v in entries}
    page = call_page(live_site, "/seasons/live-s1/")
    assert "Final standings" in page and "Live &lt;season&gt;" in page and "<season>" not in page
    top = [g.match_id for g in games.filter(stage=3)]
    assert all(f"/matches/{m}/" in page for m in top)  # the finals' top matches, linked to the viewer
    status, _replay = call_replay(live_site, top[0])
    assert status == 200
    assert Match.objects.filter(kind="finals").count() == 9


def test_a_season_of_teams_played_to_its_finals_on_a_live_site(live_site):
    """Three teams of two made and joined through the API, each uploading a team bot; the season
    (teams of at most 2, one team per person) refuses a third member and a second team, closes
    with the teams frozen, plays its finals and names each team and its members in the results."""
    made = season(live_site, "create", "teams-s1", "--game", "galaxy", "--name", "Team cup", "--team-size", "2",
                  "--one-team")
    assert made.returncode == 0 and made.stdout.strip().endswith("teams of at most 2; one team per person"), \
        made.stderr
    people = {name: token_for(live_site, name) for name in ("tea", "tim", "uma", "udo", "vic", "val", "wes")}
    teams, versions = {}, []
    for index, (lead, mate, name) in enumerate((("tea", "tim", "red"), ("uma", "udo", "blue"), ("vic", "val", "gold"))):
        status, team = call(live_site, "POST", "/api/teams/", people[lead], {"name": name})
        assert status == 201, team
        uploader = lead if name == "gold" else mate  # gold's mate joins later, once it is entered
        if uploader == mate:
            status, joined = call(live_site, "POST", f"/api/teams/{team['id']}/join/", people[mate],
                                  {"key": team["join_key"]})
            assert status == 200, joined
        status, bot = call(live_site, "POST", "/api/bots/", people[uploader], {"name": f"{name}-bot",
                                                                              "game": "galaxy", "team": team["id"]})
        assert status == 201 and bot["team"]["name"] == name, bot
        source = starter_file("greedy" if index % 2 else "prober", "galaxy").read_bytes()
        status, version = call(live_site, "POST", f"/api/bots/{bot['id']}/versions/", people[uploader],
                               files={"file": ("main.py", source)})
        assert status == 201, version
        teams[name], versions = team, [*versions, (people[uploader], version["id"])]
    for token, version_id in versions:
        assert wait_for(live_site, token, version_id, ("valid", "invalid", "error"))["status"] == "valid"
    status, full = call(live_site, "POST", f"/api/teams/{teams['red']['id']}/join/", people["wes"],
                        {"key": teams["red"]["join_key"]})
    assert status == 409 and "at most 2 members" in full["detail"]  # the season's size, not the site's 4
    status, twice = call(live_site, "POST", f"/api/teams/{teams['gold']['id']}/join/", people["tea"],
                         {"key": teams["gold"]["join_key"]})
    assert status == 409 and "you are in red" in twice["detail"]  # one entered team per person
    status, joined = call(live_site, "POST", f"/api/teams/{teams['gold']['id']}/join/", people["val"],
                          {"key": teams["gold"]["join_key"]})
    assert status == 200, joined
    closed = season(live_site, "close", "teams-s1")
    assert closed.stdout.strip() == "season teams-s1 is closed with 3 entries frozen", closed.stderr
    status, frozen = call(live_site, "POST", f"/api/teams/{teams['gold']['id']}/leave/", people["val"])
    assert status == 409 and "frozen" in frozen["detail"]
    started = season(live_site, "finals", "teams-s1", "--stages", "1", "--games", "2")
    assert started.returncode == 0, started.stderr
    status, during = call(live_site, "GET", "/api/seasons/teams-s1/standings/")
    assert {r["team"]["name"] for r in during["results"]} == {"red", "blue", "gold"}
    from armada_web.seasons import periodic

    done = wait_state("teams-s1", "finished", 300, live_site, lambda: periodic.tick(workers=1))
    assert done.standings.count() == 3
    status, rows = call(live_site, "GET", "/api/seasons/teams-s1/standings/")
    named = {r["team"]["name"]: r["members"] for r in rows["results"]}
    assert named == {"red": ["tea", "tim"], "blue": ["uma", "udo"], "gold": ["vic", "val"]}
    assert all(r["games"] >= 1 for r in rows["results"])
    page = call_page(live_site, "/seasons/teams-s1/")
    assert "<th>Team</th>" in page and "(tea, tim)" in page and "Final standings" in page
    status, left = call(live_site, "POST", f"/api/teams/{teams['gold']['id']}/leave/", people["val"])
    assert status == 200, left  # the results are final: the team's members move again


def call_page(site: Any, path: str) -> str:
    import urllib.request

    with urllib.request.urlopen(site.url + path, timeout=30) as response:
        return str(response.read().decode())


def call_replay(site: Any, match_id: int) -> tuple[int, bytes]:
    import urllib.request

    with urllib.request.urlopen(f"{site.url}/api/matches/{match_id}/replay/", timeout=30) as response:
        return response.status, response.read()


def test_a_private_event_of_three_members_on_a_live_site(live_site):
    from armada_web.events import matchmaking

    people = entrants(live_site, ["eve", "fay", "gus"])
    owner = people[0][0]
    status, event = call(live_site, "POST", "/api/events/", owner, {
        "name": "Lunch <league>", "game": "galaxy", "format": "round_robin", "games_per_pair": 1})
    assert status == 201, event
    slug, invite = event["slug"], event["invite"]
    status, _outsider = call(live_site, "GET", f"/api/events/{slug}/")
    assert status == 404  # private: nobody outside it knows it exists
    for token, version_id in people:
        bot = call(live_site, "GET", f"/api/versions/{version_id}/", token)[1]["bot"]
        status, row = call(live_site, "POST", f"/api/events/{slug}/entries/", token,
                           {"bot": bot, "invite": invite})
        assert status == 201, row
    status, started = call(live_site, "POST", f"/api/events/{slug}/start/", owner)
    assert status == 200 and started["state"] == "running" and started["games_total"] == 3
    deadline = time.monotonic() + 240
    data: dict[str, Any] = {}
    while time.monotonic() < deadline:
        matchmaking.fill(workers=1)  # beat's job; each recorded match also sends the next
        status, data = call(live_site, "GET", f"/api/events/{slug}/", owner)
        if data["state"] == "finished":
            break
        time.sleep(0.5)
    assert data["state"] == "finished", live_site.log("worker-matches")[-4000:]
    table = data["table"]
    assert sum(r["played"] for r in table) == 6 and [r["place"] for r in table] == [1, 2, 3]
    assert sum(r["points"] for r in table) == sum(3 * r["wins"] + r["draws"] for r in table)
    assert sum(r["wins"] for r in table) == sum(r["losses"] for r in table)
    status, hidden = call(live_site, "GET", "/api/matches/?kind=event")
    assert hidden["results"] == []  # a private event's matches are its members' (and staff's) only
    status, matches = call(live_site, "GET", "/api/matches/?kind=event", owner)
    assert len(matches["results"]) == 3 and {m["status"] for m in matches["results"]} == {"finished"}
    assert matches["next"] is None  # a cursor list (no count): all three on one page
    status, ladder = call(live_site, "GET", "/api/ladder/galaxy/")
    assert ladder["count"] == 0  # events are unrated for the ladder


def test_a_worker_lost_during_the_finals_the_match_is_played_again_and_counts_once(live_site, make_user,
                                                                                   valid_version):
    from armada_web.matches.tasks import reap
    from armada_web.seasons.models import Entry, FinalsGame

    slow_bots(make_user, valid_version, ("hal", "ivy"))
    assert season(live_site, "create", "lost", "--game", "galaxy", "--name", "Lost").returncode == 0
    assert season(live_site, "close", "lost").returncode == 0
    assert season(live_site, "finals", "lost", "--stages", "1", "--games", "1").returncode == 0
    game = FinalsGame.objects.get(season__slug="lost")
    match = wait_match(game.match_id, ("running",), 60)
    time.sleep(2.0)  # well inside its 30 slow turns
    live_site.kill_worker("matches")
    assert wait_match(match.pk, ("running",), 1).attempts == 1
    assert reap(stuck_after_s=0)["requeued"] == 1
    live_site.start_match_worker()
    done = wait_state("lost", "finished", 240, live_site)
    game.refresh_from_db()
    assert game.match_id == match.pk and game.tries == 1 and game.counted  # the same match, played again
    replayed = wait_match(match.pk, ("finished",), 1)
    assert replayed.attempts == 2
    assert sorted(Entry.objects.filter(season=done).values_list("games", flat=True)) == [1, 1]  # counted once


def test_the_worker_takes_finals_first_and_shares_the_rest_round_robin(live_site, settings):
    import redis

    from armada_web.bots.models import BotVersion
    from armada_web.events import services as events
    from armada_web.events.matchmaking import fill
    from armada_web.ladder.matchmaking import fill_queue
    from armada_web.matches.models import Match
    from armada_web.matches.services import create_match

    ids = [v for _t, v in entrants(live_site, ["jo", "kim"])]
    a, b = (BotVersion.objects.select_related("bot").get(pk=i) for i in ids)
    live_site.kill_worker("matches")  # stopped while the queues fill
    owner = a.bot.owner
    event = events.create_event(user=owner, name="Share", game="galaxy", format="round_robin", games_per_pair=4)
    events.enter(user=owner, event=event, bot_id=a.bot_id)
    events.enter(user=b.bot.owner, event=event, bot_id=b.bot_id, invite=event.invite)
    events.begin(event=event)
    ranked = fill_queue(workers=2)
    sent = fill(workers=2)
    assert len(ranked) == 4 and sent == 4  # target_depth(2 workers) each
    create_match(game="galaxy", first=a, second=b, kind="finals")  # sent last
    broker = redis.Redis.from_url(settings.REDIS_URL)
    assert broker.llen(live_site.env["ARMADA_FINALS_QUEUE"]) == 1
    live_site.start_match_worker()
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and Match.objects.filter(status="finished").count() < 6:
        time.sleep(0.5)
    order = list(Match.objects.filter(started__isnull=False).order_by("started").values_list("kind", flat=True))
    assert len(order) >= 6, live_site.log("worker-matches")[-3000:]
    assert order[0] == "finals"  # taken before the queues that were full before it
    rest = order[1:6]
    assert rest.count("ranked") >= 2 and rest.count("event") >= 2, order  # round robin: neither waits
