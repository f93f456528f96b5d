"""Issue 27: `/api/matches/{id}/debug/?seat=N`, what a seat's bot drew, for its owner and staff only
(404 for anyone else, exactly as for a missing match), and never in the public replay.

The match is played by the task's own code (claim, execute, record) with in-process bots in place
of the sandbox (`execution.play` swapped): seat 1 draws, seat 2 does not."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from armada.referee.inprocess import InProcessBot
from armada.referee.match import play_match
from armada.starters.galaxy.greedy import Bot as Greedy
from armada.starters.galaxy.random import Bot as Random

pytestmark = [pytest.mark.django_db]


class Drawer(Greedy):
    def scout(self, obs):
        self.debug.ring(obs.planets[0], color="green")
        self.debug.label([1.5, 1.5], "<b>centre</b>")
        self.debug.text(f"turn {obs.turn}")
        return super().scout(obs)


@pytest.fixture
def recorded(make_user, valid_version, monkeypatch, settings):
    from armada_web.matches import execution, tasks
    from armada_web.matches.services import create_match

    settings.ARMADA = settings.ARMADA.with_game("galaxy", match_config={"max_turns": 4})
    settings.ARMADA = settings.ARMADA.with_(matches_queue=settings.ARMADA.validation_queue)

    def local_play(*, match_id, game, seed, seats, config, purpose="match"):
        bots = {1: InProcessBot(Drawer, seats[1][0]), 2: InProcessBot(Random, seats[2][0])}
        return play_match(game, bots, seed=seed, config=config)

    monkeypatch.setattr(execution, "play", local_play)
    monkeypatch.setattr(tasks, "sandbox_ready", lambda: True)
    alice, bob = make_user("alice"), make_user("bob")
    a, b = valid_version(alice, "alpha"), valid_version(bob, "bravo", starter="random")
    match = create_match(game="galaxy", first=a, second=b, seed=3)
    assert tasks.run_match(match.pk) == "finished"
    match.refresh_from_db()
    return match, alice, bob, (a, b)


def test_the_owner_gets_the_seats_drawings_turn_by_turn(recorded, api):
    match, alice, *_ = recorded
    response = api(alice).get(f"/api/matches/{match.pk}/debug/?seat=1")
    assert response.status_code == 200
    turns = response.json()["turns"]
    assert [t["turn"] for t in turns] == [1, 2, 3, 4]
    assert turns[0] == {"turn": 1, "text": "turn 1", "shapes": [
        {"kind": "ring", "at": 1, "color": "green"},
        {"kind": "label", "at": [1.5, 1.5], "text": "<b>centre</b>", "color": "white"}]}  # data: the viewer escapes


def test_a_seat_that_drew_nothing_has_no_turns(recorded, api, make_user):
    from armada_web.matches.models import Participant

    match, _alice, bob, _versions = recorded
    assert api(bob).get(f"/api/matches/{match.pk}/debug/?seat=2").json() == {"turns": []}
    assert Participant.objects.get(match=match, seat=2).debug.name == ""  # no file for it
    staff = api(make_user("root", is_staff=True))
    assert staff.get(f"/api/matches/{match.pk}/debug/?seat=2").json() == {"turns": []}


def test_nobody_else_sees_them_not_even_that_they_exist(recorded, api, make_user):
    match, alice, bob, _versions = recorded
    url = f"/api/matches/{match.pk}/debug/"
    missing = APIClient().get("/api/matches/99999/debug/?seat=1")
    assert missing.status_code == 404 and missing.json() == {
        "detail": "no such match, or its seat 1 is not yours (its drawings and requests are its bot's team's)"}
    for client in (api(bob), api(make_user("carol")), APIClient()):
        refused = client.get(f"{url}?seat=1")
        assert (refused.status_code, refused.json()) == (404, missing.json())
    assert api(alice).get(f"{url}?seat=2").status_code == 404  # bob's seat
    staff = api(make_user("root", is_staff=True))
    assert len(staff.get(f"{url}?seat=1").json()["turns"]) == 4


def test_a_seat_out_of_range_is_refused(recorded, api):
    match, alice, *_ = recorded
    for query in ("?seat=3", "?seat=0", "?seat=x", ""):
        response = api(alice).get(f"/api/matches/{match.pk}/debug/{query}")
        assert response.status_code == 400 and "seat" in response.json()["detail"]


def test_the_public_replay_and_match_carry_no_drawing(recorded, api):
    import gzip
    import json

    match, alice, *_ = recorded
    replay = json.loads(gzip.decompress(APIClient().get(f"/api/matches/{match.pk}/replay/").content))
    assert "debug" not in replay and "centre" not in json.dumps(replay)
    own = api(alice).get(f"/api/matches/{match.pk}/").json()
    assert "centre" not in json.dumps(own)  # the match's own answer does not carry them either


def test_the_replay_with_drawings_carries_the_seats_of_its_askers_team_only(recorded, api, make_user, client):
    """A competitor's trial: `armada replay match-N.json.gz --open` showed none of the bot's drawings, since
    public replays carry none. `?drawings=1` adds them for the seats whose bot is the asker's team's (the
    replay format's `debug` key, both seats present), and for nobody else; the offline viewer draws them."""
    import gzip
    import json

    from django.core.files.base import ContentFile
    from django.core.files.storage import default_storage

    from armada.replay import load_replay_bytes

    match, alice, bob, _versions = recorded
    url = f"/api/matches/{match.pk}/replay/"
    plain = APIClient().get(url).content
    mine = api(alice).get(f"{url}?drawings=1")
    assert mine.status_code == 200 and mine["Cache-Control"] == "private, no-store"
    assert f'filename="match-{match.pk}-drawings.json.gz"' in mine["Content-Disposition"]  # not the public file's
    replay = load_replay_bytes(mine.content)  # a valid replay, as the SDK reads it
    assert [t["turn"] for t in replay["debug"]["1"]["turns"]] == [1, 2, 3, 4]
    assert replay["debug"]["2"] == {"turns": []}  # bob's seat: nothing of it, though he drew nothing either
    assert {k: v for k, v in replay.items() if k != "debug"} == json.loads(gzip.decompress(plain))
    staff = load_replay_bytes(api(make_user("root", is_staff=True)).get(f"{url}?drawings=1").content)
    assert staff["debug"]["1"] == replay["debug"]["1"]
    theirs = load_replay_bytes(api(bob).get(f"{url}?drawings=1").content)
    assert theirs["debug"] == {"1": {"turns": []}, "2": {"turns": []}}  # alice's drawings stay hers
    for client_ in (api(make_user("carol")), APIClient()):
        refused = client_.get(f"{url}?drawings=1")
        assert refused.status_code == 404 and "centre" not in refused.content.decode()
        assert "no drawings of this match are yours" in refused.json()["detail"]
    assert api(alice).get(f"{url}?drawings=maybe").status_code == 400
    assert APIClient().get(f"{url}?drawings=0").content == plain
    assert APIClient().get(f"{url}?drawings=").content == plain  # empty: not given (allowEmptyValue; an API trial)
    default_storage.delete(match.replay.name)  # damaged in storage: a 409, not a 500
    assert default_storage.save(match.replay.name, ContentFile(b"not gzip at all")) == match.replay.name
    damaged = api(alice).get(f"{url}?drawings=1")
    assert damaged.status_code == 409 and "stored replay cannot be read" in damaged.json()["detail"]

    client.force_login(alice)
    page = client.get(f"/matches/{match.pk}/").content.decode()
    assert f'href="{url}?drawings=1" download="match-{match.pk}-drawings.json.gz"' in page
    assert f"<code>armada replay match-{match.pk}-drawings.json.gz --open</code>" in page  # its name (a trial)
    client.force_login(bob)  # his seat drew nothing: no replay with drawings is offered (a trial)
    assert "?drawings=1" not in client.get(f"/matches/{match.pk}/").content.decode()
    client.logout()
    assert "?drawings=1" not in client.get(f"/matches/{match.pk}/").content.decode()


def test_the_schema_describes_the_endpoint():
    from django.urls import path
    from drf_spectacular.generators import SchemaGenerator

    from armada_web.api.match_debug import MatchDebugView

    patterns = [path("api/matches/<id:pk>/debug/", MatchDebugView.as_view())]
    schema = SchemaGenerator(patterns=patterns).get_schema(request=None, public=True)
    operation = schema["paths"]["/api/matches/{id}/debug/"]["get"]
    assert operation["operationId"] == "matches_debug"
    assert {"200", "400", "404"} <= set(operation["responses"])
    assert operation["parameters"][-1]["name"] == "seat" or "seat" in [p["name"] for p in operation["parameters"]]
    shape = schema["components"]["schemas"]["Shape"]["properties"]
    assert set(shape) == {"kind", "at", "to", "text", "color"}
    assert set(schema["components"]["schemas"]["DrawnTurn"]["properties"]) == {"turn", "shapes", "text"}


@pytest.mark.parametrize("path", ["/api/matches/1/debug/", "/api/matches/1/requests/"])
def test_a_missing_seat_is_asked_for_by_name(path):
    """Issue 27's `?seat=N` is required: without it the answer says so and what to give, not that
    an absent value "must be written in digits"."""
    response = APIClient().get(path)
    assert response.status_code == 400
    assert response.json() == {"detail": "give seat: a whole number from 1 to 2"}


def test_an_unfinished_match_says_so_and_drawings_come_compressed(recorded, api, make_user, valid_version):
    """A trial: a queued match answered 200 {"turns": []}, which reads as "drew nothing", while its
    requests answer 409; and 2 MiB of drawings came uncompressed to a browser asking for gzip."""
    from armada_web.matches.models import Match, MatchStatus

    match, alice, *_ = recorded
    client = api(alice)
    zipped = client.get(f"/api/matches/{match.pk}/debug/?seat=1", HTTP_ACCEPT_ENCODING="gzip")
    assert zipped.status_code == 200 and zipped.headers.get("Content-Encoding") == "gzip"
    # never the browsable HTML page (its CSRF token and the query's text beside the drawings, compressed:
    # BREACH, a review): JSON whatever the browser asks for
    browser = client.get(f"/api/matches/{match.pk}/debug/?seat=1&guess=xyz", HTTP_ACCEPT="text/html",
                         HTTP_ACCEPT_ENCODING="gzip")
    import gzip
    import json

    assert browser.status_code == 200 and browser.headers["Content-Type"] == "application/json"
    body = gzip.decompress(browser.content).decode()
    assert json.loads(body)["turns"] and "xyz" not in body
    Match.objects.filter(pk=match.pk).update(status=MatchStatus.QUEUED)
    waiting = client.get(f"/api/matches/{match.pk}/debug/?seat=1")
    assert waiting.status_code == 409 and "this match is queued: its drawings come with its end" in (
        waiting.json()["detail"])
    assert APIClient().get(f"/api/matches/{match.pk}/debug/?seat=1").status_code == 404  # still nobody else's
