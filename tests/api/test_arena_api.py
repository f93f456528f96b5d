"""The arena's API: matches (list, filters, detail, replay, private logs), the Galaxy ladder,
the Mothership league and a battle's replay, challenges (sides, limits, errors)."""

from __future__ import annotations

import gzip
import json
import re

import pytest
from rest_framework.test import APIClient

from tests.ladder.test_league_db import orders
from tests.support.services import require_docker

pytestmark = [pytest.mark.django_db]


@pytest.fixture(autouse=True)
def _setup(settings):
    settings.ARMADA = settings.ARMADA.with_game("galaxy", match_config={"max_turns": 10})
    settings.ARMADA = settings.ARMADA.with_(matches_queue=settings.ARMADA.validation_queue)
    settings.ARMADA = settings.ARMADA.with_(challenges_queue=settings.ARMADA.validation_queue)


def test_matches_list_detail_replay_and_private_logs(api, make_user, valid_version):
    require_docker()
    from armada_web.matches.services import create_match
    from armada_web.matches.tasks import run_match

    alice = make_user("alice")
    a = valid_version(alice, "alpha")
    b = valid_version(make_user("bob"), "bravo", starter="random")
    done = create_match(game="galaxy", first=a, second=b, seed=3)
    queued = create_match(game="galaxy", first=b, second=a, seed=4)
    anyone = APIClient()
    assert anyone.get(f"/api/matches/{done.pk}/replay/").status_code == 404  # not finished yet
    assert run_match(done.pk) == "finished"
    listing = anyone.get("/api/matches/").json()
    assert set(listing) == {"next", "previous", "results"}  # a keyset list: no count of a million rows
    assert [m["id"] for m in listing["results"]] == [queued.pk, done.pk] and listing["next"] is None
    first = listing["results"][1]
    assert set(first) == {"id", "game", "kind", "status", "created", "finished", "players"}
    assert first["players"][0]["bot"] == {"id": a.bot_id, "name": "alpha", "version": 1,
                                          "team": {"id": a.bot.team_id, "name": "alice"}}
    def ids(query: str) -> list[int]:
        return [m["id"] for m in anyone.get(f"/api/matches/?{query}").json()["results"]]

    assert ids("status=finished") == [done.pk]
    assert ids(f"bot={a.bot_id}&kind=ranked&game=galaxy") == [queued.pk, done.pk]
    assert ids("kind=challenge") == []
    detail = anyone.get(f"/api/matches/{done.pk}/").json()
    assert detail["status"] == "finished" and detail["result"]["turns"] == detail["turns"]
    for player in detail["players"]:
        assert {"bot", "seat", "result", "status", "detail", "rating_before", "rating_after"} <= set(player)
        assert player["rating_before"] == {"mu": 25.0, "sigma": pytest.approx(25 / 3)}
        assert "log" not in player  # private
    owner_view = api(alice).get(f"/api/matches/{done.pk}/").json()
    assert "log" in owner_view["players"][0] and "log" not in owner_view["players"][1]
    response = anyone.get(f"/api/matches/{done.pk}/replay/")
    assert response.status_code == 200 and response["Content-Type"] == "application/gzip"
    replay = json.loads(gzip.decompress(response.content))
    assert replay["format"] == "armada-replay"
    # each seat with the site's name of its bot beside the name it announced (a competitor's trial: a
    # downloaded replay said "Greedy" vs "Random", and which bot of theirs was which was lost)
    assert [(s["name"], s["bot"]) for s in replay["seats"]] == [("Greedy", "alpha"), ("Random", "bravo")]
    assert anyone.get("/api/matches/99999/").json() == {"detail": "no such match"}
    ladder = anyone.get("/api/ladder/galaxy/").json()
    assert ladder["count"] == 2
    row = ladder["results"][0]
    assert set(row) >= {"rank", "bot", "owner", "score", "mu", "sigma", "games", "wins", "draws", "losses",
                        "provisional"}
    assert row["rank"] == 1 and row["games"] == 1 and row["provisional"] is True
    assert row["score"] >= ladder["results"][1]["score"]


def test_mothership_league_table_and_battle_replay(make_user, valid_version):
    from armada_web.ladder.league import sync_league

    versions = [valid_version(make_user(f"user{n}"), f"race{n}", "mothership", orders=orders(n)) for n in range(3)]
    sync_league()
    table = APIClient().get("/api/ladder/mothership/").json()
    assert table["count"] == 3 and [r["rank"] for r in table["results"]] == [1, 2, 3]
    assert set(table["results"][0]) >= {"rank", "bot", "owner", "points", "wins", "draws", "losses",
                                        "wins_by_destruction", "damage_difference"}
    a, b = versions[0].bot_id, versions[1].bot_id
    response = APIClient().get(f"/api/ladder/mothership/{a}/{b}/replay/")
    assert response.status_code == 200
    assert json.loads(gzip.decompress(response.content))["game"] == "mothership"
    assert APIClient().get(f"/api/ladder/mothership/{a}/{a}/replay/").status_code == 404


def test_challenges_alternate_sides_and_are_limited(api, make_user, valid_version, settings):
    settings.ARMADA = settings.ARMADA.with_(challenges_per_pair_hour=2)
    alice, bob = make_user("alice"), make_user("bob")
    mine = valid_version(alice, "alpha")
    theirs = valid_version(bob, "bravo")
    client = api(alice)
    first = client.post("/api/challenges/", {"bot": mine.bot_id, "opponent": theirs.bot_id}, format="json")
    assert first.status_code == 201, first.json()
    body = first.json()
    assert body["kind"] == "challenge" and body["status"] == "queued"
    assert body["players"][0]["bot"]["id"] == mine.bot_id
    second = client.post("/api/challenges/", {"bot": mine.bot_id, "opponent": theirs.bot_id}, format="json").json()
    assert second["players"][0]["bot"]["id"] == theirs.bot_id  # sides alternate
    third = client.post("/api/challenges/", {"bot": mine.bot_id, "opponent": theirs.bot_id}, format="json")
    assert third.status_code == 429 and "per hour" in third.json()["detail"]
    # when to try again, as the page says it (a trial: the API said "within the hour")
    assert re.search(r"; try again at \d\d:\d\d \w+ \(in about (59|60) minutes\)$", third.json()["detail"])
    refused = client.post("/api/challenges/", {"bot": theirs.bot_id, "opponent": mine.bot_id}, format="json")
    assert refused.status_code == 403 and "not your bot" in refused.json()["detail"]
    assert client.post("/api/challenges/", {"bot": mine.bot_id, "opponent": 999}, format="json").status_code == 404
    assert APIClient().post("/api/challenges/", {"bot": 1, "opponent": 2}, format="json").status_code in (401, 403)
    assert len(APIClient().get("/api/matches/?kind=challenge").json()["results"]) == 2


def test_a_bot_name_taken_at_the_same_moment_is_a_409_not_a_500(make_user, api, monkeypatch):
    """Two teams create the same name at once: each checks it is free, then one insert meets the
    unique constraint; that request is told the name is taken (before: an IntegrityError, a 500)."""
    from django.db.models.query import QuerySet

    from armada_web.bots.models import Bot

    alice, bob = make_user("alice"), make_user("bob")
    assert api(alice).post("/api/bots/", {"name": "Alpha", "game": "galaxy"}, format="json").status_code == 201
    exists = QuerySet.exists
    monkeypatch.setattr(QuerySet, "exists", lambda qs: False if qs.model is Bot else exists(qs))  # its check ran first
    answer = api(bob).post("/api/bots/", {"name": "alpha", "game": "galaxy"}, format="json")
    assert answer.status_code == 409, answer.content
    assert answer.json()["detail"] == "the name 'alpha' is taken for Galaxy; choose another"
    assert Bot.objects.count() == 1


def test_a_bot_that_stops_playing_during_a_challenge_is_a_400_not_a_500(make_user, valid_version, api,
                                                                        monkeypatch):
    """The opponent retires between the challenge's checks and the fetch of its version (before:
    DoesNotExist, a 500); nothing is queued."""
    from armada_web.bots.models import Bot
    from armada_web.ladder import challenges
    from armada_web.matches.models import Match

    alice, bob = make_user("alice"), make_user("bob")
    mine, theirs = valid_version(alice, "alpha"), valid_version(bob, "bravo")
    check = challenges.check

    def then_retire(**kwargs):
        check(**kwargs)
        Bot.objects.filter(pk=theirs.bot_id).update(retired="2026-01-01T00:00:00Z")

    monkeypatch.setattr(challenges, "check", then_retire)
    answer = api(alice).post("/api/challenges/", {"bot": mine.bot_id, "opponent": theirs.bot_id}, format="json")
    assert answer.status_code == 400, answer.content
    said = answer.json()["detail"]
    assert said == "bravo cannot play now: retired on 2026-01-01: it plays no more; its history stays."
    assert not Match.objects.exists()


def test_a_challenge_with_a_bot_of_an_archived_team_says_so_and_how_to_restore(api, make_user, valid_version):
    """It said "retired, disabled, or no valid version" (a new user's trial): the team is archived,
    and restoring it is what lets the bot play, as the upload refusal says."""
    from armada_web.bots import moves
    from armada_web.teams import services as teams

    alice, bob = make_user("alice"), make_user("bob")
    mine = valid_version(alice, "alpha")
    valid_version(bob, "bravo")
    team = teams.create_team(user=alice, name="crew")
    moves.move_bot(bot=mine.bot, user=alice, team=team.pk)
    teams.archive_team(user=alice, team=team)
    answer = api(alice).post("/api/challenges/", {"bot": "alpha", "opponent": "bravo"}, format="json")
    assert answer.status_code == 400
    assert answer.json()["detail"] == (f"alpha cannot play now: its team crew is archived; restore the team (its "
                                       f"page /teams/{team.pk}/, or POST /api/teams/{team.pk}/restore/) to "
                                       "challenge with it")
    other = api(bob).post("/api/challenges/", {"bot": "bravo", "opponent": "alpha"}, format="json")
    assert other.json()["detail"] == "alpha cannot play now: its team crew is archived"  # not bob's to restore
