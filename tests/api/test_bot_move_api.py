"""`POST /api/bots/{id}/move/` {"team": id} (issue 26): a member moves a bot of their personal team
to a team they are in, through a token; everyone else gets a clear 4xx and nothing moves; two
moves at once cannot pass the team's limit of bots; the path is in the schema."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from armada_web.bots import services as bots
from armada_web.bots.models import Bot
from armada_web.teams import services as teams
from tests.accounts.test_limits import parallel, statuses, token_client


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def client(api: Any, user: Any) -> APIClient:
    made = api(user)
    made.raise_request_exception = False
    return made


@pytest.mark.django_db
def test_a_member_moves_a_personal_bot_and_others_are_refused(api, make_user):
    alice, bob, carol = make_user("alice"), make_user("bob"), make_user("carol")
    crew = teams.create_team(user=alice, name="crew")
    teams.join_team(user=bob, team=crew, key=crew.join_key)
    bot = bots.create_bot(user=alice, name="solo", game="galaxy")
    personal = bot.team_id
    url = f"/api/bots/{bot.pk}/move/"
    refused = [
        (client(api, carol), {"team": crew.pk}, 403, "not your bot"),
        (client(api, bob), {"team": crew.pk}, 403, "not your bot"),  # a member of the target, not of the bot's team
        (client(api, alice), {"team": "x"}, 400, "JSON integer"),
        (client(api, alice), {}, 400, "required"),
        (client(api, alice), {"team": 10**9}, 400, "no team"),
        (client(api, alice), {"team": personal}, 409, "already"),
        (APIClient(), {"team": crew.pk}, 401, ""),
    ]
    for caller, body, code, message in refused:
        answer = caller.post(url, body, format="json")
        assert answer.status_code in ((401, 403) if code == 401 else (code,)), (body, answer.json())
        assert message in str(answer.json()), answer.json()
    assert client(api, alice).post("/api/bots/999999/move/", {"team": crew.pk}, format="json").status_code == 404
    assert Bot.objects.get(pk=bot.pk).team_id == personal
    moved = client(api, alice).post(url, {"team": crew.pk}, format="json")
    assert moved.status_code == 200, moved.json()
    assert moved.json()["team"] == {"id": crew.pk, "name": "crew"} and moved.json()["id"] == bot.pk
    back = client(api, bob).post(url, {"team": personal}, format="json")  # not away from a team by one member
    assert back.status_code == 409 and "no one member alone" in back.json()["detail"]


@pytest.mark.django_db
def test_the_schema_has_the_move_action():
    schema = APIClient().get("/api/schema/?format=json").json()
    path = next(p for p in schema["paths"] if p.startswith("/api/bots/") and p.endswith("/move/"))
    operation = schema["paths"][path]["post"]
    assert {"200", "400", "403", "404", "409"} <= set(operation["responses"])
    body = operation["requestBody"]["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[-1]
    assert schema["components"]["schemas"][body]["required"] == ["team"]


@pytest.mark.django_db(transaction=True)
def test_two_moves_at_once_cannot_pass_the_teams_limit(api, make_user, armada):
    armada(max_bots_per_game=1)
    alice, bob = make_user("alice"), make_user("bob")
    crew = teams.create_team(user=alice, name="crew")
    teams.join_team(user=bob, team=crew, key=crew.join_key)
    mine = [bots.create_bot(user=u, name=f"solo{i}", game="galaxy") for i, u in enumerate((alice, bob))]
    clients = [token_client(api, alice), token_client(api, bob)]
    answers = parallel(2, lambda i: clients[i].post(f"/api/bots/{mine[i].pk}/move/", {"team": crew.pk},
                                                    format="json"))
    assert statuses(answers) == {200: 1, 409: 1}
    assert Bot.objects.filter(team=crew).count() == 1
