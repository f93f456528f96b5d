"""`GET /api/status/` and `/status/`: queue depths from Redis, matches that ended in the last hour by
kind and status, the median wait from queued to started, the workers; staff also see the void and
failed matches' reasons. A bot's page: its next ranked game's estimate and its season placements."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from tests.support.services import require_redis

pytestmark = pytest.mark.django_db


@pytest.fixture
def arena(make_user, valid_version, armada):
    from armada_web.matches.models import Match
    from armada_web.matches.services import create_match

    armada(matches_queue=armada.current.validation_queue, challenges_queue=armada.current.validation_queue,
           match_workers=2)
    a = valid_version(make_user("ann"), "ann-bot")
    b = valid_version(make_user("ben"), "ben-bot")
    now = timezone.now()
    made = []
    for kind, status, wait in (("ranked", "finished", 4), ("ranked", "finished", 10), ("challenge", "void", 6),
                               ("ranked", "failed", 30)):
        match = create_match(game="galaxy", first=a, second=b, kind=kind)
        Match.objects.filter(pk=match.pk).update(status=status, queued=now - timedelta(seconds=wait + 60),
                                                 started=now - timedelta(seconds=60), finished=now,
                                                 reason="" if status == "finished" else f"<script>{status}</script>")
        made.append(match)
    old = create_match(game="galaxy", first=a, second=b)
    Match.objects.filter(pk=old.pk).update(status="finished", finished=now - timedelta(hours=2))
    return a, b, made


def test_the_status_api_answers_the_contract(arena, client, settings):
    require_redis()
    import redis

    redis.Redis.from_url(settings.REDIS_URL).lpush(settings.ARMADA.validation_queue, b"{}", b"{}")
    data = client.get("/api/status/").json()
    assert set(data) >= {"queues", "finished_last_hour", "median_wait_s", "workers"} and "problems" not in data
    assert data["queues"][settings.ARMADA.validation_queue] == 2
    assert set(data["queues"]) >= {settings.ARMADA.finals_queue, settings.ARMADA.events_queue,
                                   settings.ARMADA.periodic_queue}
    assert data["finished_last_hour"] == {"ranked": 2, "challenge": 0}
    assert data["ended_last_hour"] == {"ranked": {"finished": 2, "failed": 1}, "challenge": {"void": 1}}
    assert data["median_wait_s"] == 8.0  # of 4, 6, 10, 30 s
    assert isinstance(data["workers"], list)


def test_staff_see_why_matches_were_void_or_failed(arena, admin_client):
    data = admin_client.get("/api/status/").json()
    assert [p["status"] for p in data["problems"]] == ["failed", "void"]
    assert data["problems"][0]["reason"] == "<script>failed</script>"
    page = admin_client.get("/status/").content.decode()
    assert "&lt;script&gt;failed&lt;/script&gt;" in page and "<script>failed" not in page


def test_the_worker_hosts_show_with_their_workers_and_matches(arena, client, admin_client, monkeypatch):
    """A worker's host is the host part of its node name (ARMADA_HOST_NAME); the matches of the last
    hour per host that played them; staff see the host of each void or failed match."""
    from armada_web.jobs import workers
    from armada_web.matches.models import Match

    monkeypatch.setattr(workers, "live", lambda: [workers.Worker("matches.8000@worker-2", "worker-2", ("matches",)),
                                                  workers.Worker("validation@vm", "vm", ("validation",))])
    _, _, made = arena
    for match, host in zip(made, ("worker-2", "worker-2", "vm", "worker-2"), strict=True):
        Match.objects.filter(pk=match.pk).update(host=host)
    data = client.get("/api/status/").json()
    assert [(w["name"], w["host"]) for w in data["workers"]] == [("matches.8000@worker-2", "worker-2"),
                                                                 ("validation@vm", "vm")]
    assert data["hosts_last_hour"] == {"vm": {"void": 1}, "worker-2": {"finished": 2, "failed": 1}}
    assert [(p["status"], p["host"]) for p in admin_client.get("/api/status/").json()["problems"]] == [
        ("failed", "worker-2"), ("void", "vm")]
    page = client.get("/status/").content.decode()
    assert 'id="hosts"' in page and "<td>worker-2</td>" in page
    schema = client.get("/api/schema/?format=json").json()["components"]["schemas"]
    assert "hosts_last_hour" in schema["Status"]["properties"] and "host" in schema["Problem"]["properties"]


def test_the_status_page_shows_queues_and_matches(arena, client):
    page = client.get("/status/").content.decode()
    assert 'id="queues"' in page and 'id="workers"' in page and "8.0 s" in page
    # a new version's first game and settling (stacked on a phone, as the other tables)
    assert 'id="estimates" class="stack"' in page and '<td data-label="Game">Galaxy</td>' in page
    from armada_web.ladder.queries import new_version_estimates

    galaxy = new_version_estimates()["galaxy"]
    assert galaxy.seconds is not None  # (the arena has a worker)
    # a bot's new version (placed on its predecessor's rating) and, beside it, a new bot's (a fresh rating)
    shown = re.search(r"\(a new bot's: (\d+) s\)", page)  # (the page's a moment before: the estimate grows)
    assert galaxy.settled_new_bot is not None and shown and abs(int(shown[1]) - galaxy.settled_new_bot) <= 5
    assert "Void and failed" not in page  # staff only


def test_the_status_page_says_under_a_second_not_0_s(client, db, monkeypatch):
    """A trial on a live `make up`: the bot page said "in about 0 s" of a game 0.3 s away; /status/
    rounds its estimate the same way."""
    from armada_web.ladder.queries import NextGame

    monkeypatch.setattr("armada_web.pages.status_views.new_version_estimates",
                        lambda: {"galaxy": NextGame(0.3, settled=40.0, settled_new_bot=90.0)})
    page = client.get("/status/").content.decode()
    assert '<td data-label="First ranked game in about">under a second</td>' in page and ">0 s<" not in page
    monkeypatch.setattr("armada_web.pages.status_views.new_version_estimates",
                        lambda: {"galaxy": NextGame(12.4, settled=40.0, settled_new_bot=90.0)})
    assert '<td data-label="First ranked game in about">12 s</td>' in client.get("/status/").content.decode()


def test_a_bot_page_estimates_its_next_ranked_game(arena, client):
    from armada_web.matches.models import Match

    a, b, _made = arena
    Match.objects.filter(status__in=["queued", "running"]).update(status="finished")
    page = client.get(f"/bots/{a.bot_id}/").content.decode()
    assert 'id="next-game"' in page and "in about" in page
    from armada_web.ladder.queries import next_ranked_game
    from armada_web.matches.services import create_match

    assert next_ranked_game(a.bot_id).settled is not None  # provisional: when it settles
    assert 'id="settled-in"' in page
    create_match(game="galaxy", first=a, second=b)
    assert next_ranked_game(a.bot_id).seconds == 0  # queued now
    from armada_web.bots.services import retire

    retire(bot=a.bot)
    assert next_ranked_game(a.bot_id).seconds is None


def test_no_estimate_while_a_season_s_finals_take_every_worker(arena, client, monkeypatch):
    """The last hour's pace of ranked play says nothing once the finals take every worker (an
    organiser's trial: "First ranked game in about 2 s" for minutes, with no ranked game made)."""
    from armada_web.ladder.queries import new_version_estimates, next_ranked_game
    from armada_web.matches import capacity
    from armada_web.matches.models import Match

    a, _b, _made = arena
    Match.objects.filter(status__in=["queued", "running"]).update(status="finished")
    assert next_ranked_game(a.bot_id).seconds is not None
    monkeypatch.setitem(capacity._claims, "test-finals", lambda workers: workers)
    found = next_ranked_game(a.bot_id)
    assert found.seconds is None and "a season's finals take them" in found.why
    assert new_version_estimates()["galaxy"].seconds is None
    assert "in about" not in client.get(f"/bots/{a.bot_id}/").content.decode().split('id="next-game"', 1)[1][:300]


def test_a_bot_page_lists_its_season_placements(arena, client):
    from io import StringIO

    from django.core.management import call_command

    a, _b, _made = arena
    for args in (["create", "s1", "--game", "galaxy", "--name", "Spring <i>one</i>"], ["close", "s1"],
                 ["finish", "s1"]):
        call_command("season", *args, stdout=StringIO())
    page = client.get(f"/bots/{a.bot_id}/").content.decode()
    assert 'id="placements"' in page and "Spring &lt;i&gt;one&lt;/i&gt;" in page


def test_the_ranked_pace_is_measured_over_the_time_its_matches_cover(make_user, valid_version, settings):
    # A site up for a minute: 12 ranked matches in the last 60 s is 0.2 a second, not 12 an hour
    # (which made every estimate 60 times too long after a start).
    from armada_web.ladder.queries import ranked_pace
    from armada_web.matches.models import Match
    from armada_web.matches.services import create_match

    a, b = valid_version(make_user("ann"), "ann-bot"), valid_version(make_user("ben"), "ben-bot")
    now = timezone.now()
    assert ranked_pace("galaxy", now) == 0.0

    def started(seconds_ago: float, kind: str = "ranked") -> None:
        match = create_match(game="galaxy", first=a, second=b, kind=kind)
        Match.objects.filter(pk=match.pk).update(status="finished", started=now - timedelta(seconds=seconds_ago))

    for i in range(12):
        started(60 - 5 * i)
    started(30, kind="challenge")  # another kind: not the ranked pace
    assert ranked_pace("galaxy", now) == pytest.approx(12 / 60)
    started(3000)  # a steady ladder: the whole span since its first match in the hour
    assert ranked_pace("galaxy", now) == pytest.approx(13 / 3000)
    started(4000)  # before the hour: left out
    assert ranked_pace("galaxy", now) == pytest.approx(13 / 3000)
    assert ranked_pace("mothership", now) == 0.0
    settings.ARMADA = settings.ARMADA.with_(matchmaking_s=5)
    Match.objects.all().delete()
    started(0.5)  # one match just now: not one a half second, at most one a matchmaking tick
    assert ranked_pace("galaxy", now) == pytest.approx(1 / 5)


def test_the_settling_pace_is_counted_over_what_the_window_covers(make_user, valid_version, armada):
    # A site up for two minutes: its provisional games were counted in 120 s, not in the 15 minutes
    # of the window (which made the settled-rating estimate several times too long after a start).
    from armada_web.ladder.logic import estimates
    from armada_web.ladder.queries import ranked_queue
    from armada_web.matches.services import create_match
    from tests.support.seasons_helpers import record_result

    armada(matches_queue=armada.current.validation_queue, match_workers=2)
    a, b = valid_version(make_user("ann"), "ann-bot"), valid_version(make_user("ben"), "ben-bot")
    record_result(create_match(game="galaxy", first=a, second=b), winner=1)
    later = timezone.now() + timedelta(seconds=120)
    queue = ranked_queue("galaxy", later)
    assert queue is not None and queue.settling_games == 2
    assert queue.settling_window == pytest.approx(120, abs=5)
    queue = ranked_queue("galaxy", timezone.now() + timedelta(seconds=3000))  # the whole window, then
    assert queue is not None and queue.settling_window == estimates.SETTLING_WINDOW


def test_the_settling_spans_follow_each_versions_provisional_games(make_user, valid_version, armada):
    # Each version's provisional games in the window: from its first to now while it still plays
    # provisional (estimates.settling_spans), so a small ladder's pace is its own, not the window's.
    from armada_web.ladder.models import Rating
    from armada_web.ladder.queries import ranked_queue
    from armada_web.matches.services import create_match
    from tests.support.seasons_helpers import record_result

    armada(matches_queue=armada.current.validation_queue, match_workers=2)
    a, b = valid_version(make_user("ann"), "ann-bot"), valid_version(make_user("ben"), "ben-bot")
    for winner in (1, 2, 1):
        record_result(create_match(game="galaxy", first=a, second=b), winner=winner)
    queue = ranked_queue("galaxy", timezone.now() + timedelta(seconds=120))
    assert queue is not None and queue.settling == 2 and queue.settling_games == 6
    assert queue.spans.intervals == 4  # two gaps each
    assert queue.spans.exposure == pytest.approx(240, abs=10)  # both provisional for the last 120 s
    assert queue.spans.busy == pytest.approx(120, abs=5)
    assert queue.settling_fresh == 2 and queue.spans.fresh_intervals == 4  # new bots: not started from a rating
    Rating.objects.filter(version=a).update(placed=True)  # as a new version of a bot that played
    queue = ranked_queue("galaxy", timezone.now() + timedelta(seconds=120))
    assert queue is not None and queue.settling_fresh == 1 and queue.spans.fresh_intervals == 2
    Rating.objects.filter(version=b).update(benched=True)  # b stopped playing before it settled: left out
    queue = ranked_queue("galaxy", timezone.now() + timedelta(seconds=120))
    assert queue is not None and queue.spans.intervals == 2
    assert queue.spans.exposure == pytest.approx(120, abs=5)


def test_the_estimates_use_the_measured_length_of_ranked_matches(make_user, valid_version, armada):
    # A settled rating is a game's length after the match is made: the ranked matches' measured
    # median (the last 50), not ARMADA_MATCH_SECONDS (30 by default: starter bots play in a few
    # seconds, which made every settled estimate on a new site half a minute too long).
    from armada_web.ladder.queries import ranked_queue
    from armada_web.matches.models import Match
    from armada_web.matches.services import create_match

    armada(matches_queue=armada.current.validation_queue, match_workers=2, match_seconds=30)
    a, b = valid_version(make_user("ann"), "ann-bot"), valid_version(make_user("ben"), "ben-bot")
    now = timezone.now()

    def played(seconds: float, kind: str = "ranked") -> None:
        match = create_match(game="galaxy", first=a, second=b, kind=kind)
        Match.objects.filter(pk=match.pk).update(status="finished", started=now - timedelta(seconds=seconds + 10),
                                                 finished=now - timedelta(seconds=10))

    played(3)
    played(5)
    queue = ranked_queue("galaxy", now)
    assert queue is not None and queue.match_seconds == 30  # two matches: not enough, the setting
    played(4)
    played(600, kind="challenge")  # another kind: not counted
    queue = ranked_queue("galaxy", now)
    assert queue is not None and queue.match_seconds == pytest.approx(4, abs=0.01)


def test_the_status_shows_the_workers_latest_answer_without_asking_again(arena, client, monkeypatch):
    """Asking the workers waits a whole second: the matchmaker asks every tick, and the status page
    shows that answer (at most RECENT_S old) instead of making a visitor wait for another."""
    from armada_web.jobs import workers

    asked = []

    class Inspect:
        def active_queues(self) -> dict[str, list[dict[str, str]]]:
            asked.append(1)
            return {"matches.8000@main": [{"name": "matches"}]}

    monkeypatch.setattr(workers.current_app.control, "inspect", lambda timeout: Inspect())
    assert [w.name for w in workers.live()] == ["matches.8000@main"] and len(asked) == 1  # the matchmaker's tick
    assert [w["name"] for w in client.get("/api/status/").json()["workers"]] == ["matches.8000@main"]
    assert "matches.8000@main" in client.get("/status/").content.decode()
    assert len(asked) == 1
    from django.core.cache import cache

    cache.delete(workers.RECENT_KEY)  # nobody asked lately: the status asks itself
    assert [w.name for w in workers.recent()] == ["matches.8000@main"] and len(asked) == 2


@pytest.mark.django_db
def test_a_bot_still_validating_is_said_to_play_once_valid(make_user, armada):
    """A new competitor's trial: right after `armada submit`, the bot page said "it plays no ranked
    games now (no playing version, or its game has none)", as if Galaxy had no ranked games."""
    from armada_web.bots.services import create_bot, upload_version
    from armada_web.ladder.queries import next_ranked_game

    owner = make_user("newbie")
    bot = create_bot(user=owner, name="fresh", game="galaxy")
    upload_version(bot=bot, user=owner, filename="main.py", data=b"print(1)\n")
    assert next_ranked_game(bot.pk).why == "its version is being validated: it plays once it is valid"
    mothership = create_bot(user=owner, name="racer", game="mothership")
    assert next_ranked_game(mothership.pk).why == "it plays no ranked games now: it has no valid version playing"
    # a valid bot of an archived team: the archive, not "no valid version" (a teams trial)
    from armada_web.bots.models import Bot, BotVersion
    from armada_web.teams import services as teams

    crew = teams.create_team(user=owner, name="crew")
    shared = create_bot(user=owner, name="shared", game="galaxy", team=crew.pk)
    version = upload_version(bot=shared, user=owner, filename="main.py", data=b"print(2)\n")
    BotVersion.objects.filter(pk=version.pk).update(status="valid")
    teams.archive_team(user=owner, team=crew)
    assert next_ranked_game(shared.pk).why == "it plays no ranked games now: its team crew is archived"
    upload_version(bot=bot, user=owner, filename="main.py", data=b"print(3)\n")  # a pending version too
    Bot.objects.filter(pk=bot.pk).update(disabled=True)
    assert next_ranked_game(bot.pk).why == "it plays no ranked games now: staff disabled it"  # not "validated"
