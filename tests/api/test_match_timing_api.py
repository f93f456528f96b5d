"""Issue 27 in the API: each seat's `timing` in `/api/matches/{id}/` (stored when the match is
recorded) and `/api/matches/{id}/requests/?seat=N` (the seat's requests, owner and staff only).

The match is played by the task's own code (claim, execute, record) with the starters as local
processes in place of the sandbox (`execution.play` swapped), so no Docker is needed."""

from __future__ import annotations

import json
import sys

import pytest
from rest_framework.test import APIClient

from armada.botspec import starter_file
from armada.referee.match import play_match
from armada.referee.process_bot import ProcessBot
from armada.timings import totals

pytestmark = [pytest.mark.django_db]


@pytest.fixture
def recorded(make_user, valid_version, monkeypatch, settings):
    from armada_web.matches import execution, tasks
    from armada_web.matches.services import create_match
    from armada_web.matches.storage import read

    settings.ARMADA = settings.ARMADA.with_game("galaxy", match_config={"max_turns": 6})
    settings.ARMADA = settings.ARMADA.with_(matches_queue=settings.ARMADA.validation_queue)

    def local_play(*, match_id, game, seed, seats, config, purpose="match"):
        bots = {seat: ProcessBot([sys.executable, str(starter_file(starter, game))], label=seats[seat][0])
                for seat, starter in ((1, "greedy"), (2, "random"))}
        return play_match(game, bots, seed=seed, config=config)

    monkeypatch.setattr(execution, "play", local_play)
    monkeypatch.setattr(tasks, "sandbox_ready", lambda: True)
    alice, bob = make_user("alice"), make_user("bob")
    a, b = valid_version(alice, "alpha"), valid_version(bob, "bravo", starter="random")
    match = create_match(game="galaxy", first=a, second=b, seed=3)
    assert tasks.run_match(match.pk) == "finished"
    match.refresh_from_db()
    from armada.replay import load_replay_bytes

    return match, load_replay_bytes(read(match.replay.name)), alice, bob, (a, b)


def test_each_seat_carries_its_timing_stored_at_recording(recorded):
    from armada_web.matches.models import Participant

    match, replay, *_ = recorded
    players = APIClient().get(f"/api/matches/{match.pk}/").json()["players"]
    for player in players:
        timing = player["timing"]
        assert set(timing) == {"total_ms", "max_ms", "max_request", "max_where", "timeouts"}
        where = timing.pop("max_where")  # which request, as `armada play` says it (a trial missed it on the page)
        assert timing == totals(replay, player["seat"])  # what the replay's timings add up to
        slowest = timing["max_request"]  # Galaxy: init, then each turn's scout and command
        kind = "scout" if slowest % 2 else "command"
        assert where == ("init" if slowest == 0 else f"{kind}, turn {(slowest + 1) // 2}")
        assert timing["total_ms"] >= timing["max_ms"] > 0 and timing["timeouts"] == 0
    stored = Participant.objects.get(match=match, seat=1)
    assert {k: v for k, v in stored.timing.items() if k != "max_where"} == players[0]["timing"]  # stored, not read
    Participant.objects.filter(match=match).update(timing=None)  # an older match
    assert [p["timing"] for p in APIClient().get(f"/api/matches/{match.pk}/").json()["players"]] == [None, None]
    schema = APIClient().get("/api/schema/?format=json").json()
    timing = schema["components"]["schemas"]["Timing"]
    assert set(timing["properties"]) == {"total_ms", "max_ms", "max_request", "max_where", "timeouts"}
    player = schema["components"]["schemas"]["PlayerWithLog"]["properties"]["timing"]
    assert player.get("nullable") is True or "oneOf" in player or "allOf" in player
    assert "/api/matches/{id}/requests/" in schema["paths"]


def test_requests_are_the_owners_and_staffs_only(recorded, api, make_user):
    match, _replay, alice, bob, _versions = recorded
    url = f"/api/matches/{match.pk}/requests/"
    owner = api(alice)
    response = owner.get(f"{url}?seat=1")
    assert response.status_code == 200 and response["Content-Type"] == "application/jsonl"
    lines = [json.loads(line) for line in response.content.decode().splitlines()]
    assert lines[0]["type"] == "init" and lines[0]["seat"] == 1 and lines[-1]["type"] == "end"
    assert [m["id"] for m in lines] == list(range(len(lines)))
    assert lines[1]["type"] == "scout" and "observation" in lines[1]
    missing = APIClient().get("/api/matches/99999/requests/?seat=1")
    assert missing.status_code == 404 and missing.json() == {
        "detail": "no such match, or its seat 1 is not yours (its drawings and requests are its bot's team's)"}
    missing_2 = APIClient().get("/api/matches/99999/requests/?seat=2").json()
    for client in (owner, api(make_user("carol")), APIClient()):  # seat 2 is bob's: nobody else's business
        refused = client.get(f"{url}?seat=2")
        assert (refused.status_code, refused.json()) == (404, missing_2)  # the very answer of a missing match
    assert APIClient().get(f"{url}?seat=1").status_code == 404  # anonymous
    staff = api(make_user("root", is_staff=True))
    assert staff.get(f"{url}?seat=2").status_code == 200
    assert api(bob).get(f"{url}?seat=2").content.decode().splitlines()[0] == json.dumps(
        {**lines[0], "seat": 2}, separators=(",", ":"), ensure_ascii=False)
    assert owner.get(f"{url}?seat=3").status_code == 400
    assert owner.get(url).status_code == 400


def test_a_match_without_replay_has_no_requests_yet(recorded, api):
    from armada_web.matches.services import create_match

    _match, _replay, alice, _bob, (a, b) = recorded
    queued = create_match(game="galaxy", first=a, second=b, seed=4)
    assert api(alice).get(f"/api/matches/{queued.pk}/requests/?seat=1").status_code == 409
    assert APIClient().get(f"/api/matches/{queued.pk}/requests/?seat=1").status_code == 404


def test_requests_count_in_the_dataset_s_throttle(recorded, api, monkeypatch):
    """A security trial: each answer replays the whole game in the web process (about a second for a
    200-turn Galaxy match), so one account with a seat in any match (a challenge makes one) could
    keep the web workers busy at the per-user limit; it is a bulk download, counted as the replays."""
    from armada_web.api.throttles import DatasetThrottle

    monkeypatch.setattr(DatasetThrottle, "rate", "2/min", raising=False)
    monkeypatch.setattr(DatasetThrottle, "num_requests", 2, raising=False)
    monkeypatch.setattr(DatasetThrottle, "duration", 60, raising=False)
    match, _replay, alice, _bob, _versions = recorded
    owner = api(alice)
    url = f"/api/matches/{match.pk}/requests/?seat=1"
    first = owner.get(url)
    assert first.status_code == 200 and "no-store" in first["Cache-Control"]
    assert [owner.get(url).status_code for _ in range(2)] == [200, 429]
    assert owner.get(f"/api/matches/{match.pk}/replay/").status_code == 429  # one budget with the replays
    assert owner.get(f"/api/matches/{match.pk}/").status_code == 200  # the rest of the API is not counted


def test_a_seats_requests_are_rebuilt_once_then_kept(recorded, api, monkeypatch):
    """The security trial's cost: each answer replayed the whole game in the web process. The rebuilt
    requests are kept (by the replay's recorded checksum) and given again to whoever may see them."""
    from armada_web.matches import rerun

    match, _replay, alice, bob, _versions = recorded
    built: list[int] = []
    real = rerun.requests_jsonl

    def counted(replay, seat):
        built.append(seat)
        return real(replay, seat)

    monkeypatch.setattr(rerun, "requests_jsonl", counted)
    url = f"/api/matches/{match.pk}/requests/?seat=1"
    first, again = api(alice).get(url), api(alice).get(url)
    assert first.status_code == again.status_code == 200 and first.content == again.content and built == [1]
    assert api(bob).get(url).status_code == 404  # kept, still its seat's bot's team's alone
    assert api(alice).get(f"/api/matches/{match.pk}/requests/?seat=2").status_code == 404 and built == [1]
    assert api(bob).get(f"/api/matches/{match.pk}/requests/?seat=2").status_code == 200 and built == [1, 2]


def test_drawings_and_a_versions_files_count_in_the_dataset_s_throttle(recorded, api, monkeypatch):
    """A cost audit: a seat's drawings (up to 2 MiB of JSON parsed and written again), a version's
    archive (up to the upload limit) and its validation replay were limited by the per-user budget
    alone (1,200 a minute): bulk downloads, counted with the replays."""
    from armada_web.api.throttles import DatasetThrottle

    monkeypatch.setattr(DatasetThrottle, "rate", "3/min", raising=False)
    monkeypatch.setattr(DatasetThrottle, "num_requests", 3, raising=False)
    monkeypatch.setattr(DatasetThrottle, "duration", 60, raising=False)
    match, _replay, alice, _bob, (a, _b) = recorded
    owner = api(alice)
    answers = [owner.get(url).status_code for url in (f"/api/matches/{match.pk}/debug/?seat=1",
                                                      f"/api/versions/{a.pk}/source/",
                                                      f"/api/versions/{a.pk}/replay/")]
    assert 429 not in answers  # (404: a version validated here without a replay kept)
    assert owner.get(f"/api/versions/{a.pk}/source/").status_code == 429  # the fourth of three
    assert owner.get(f"/api/versions/{a.pk}/").status_code == 200  # the rest of the API is not counted
