"""The matches of a private event are its content: only its members (its owner, those who entered,
the members of the teams it invited) and staff see them. To anyone else, anonymous included, such a
match does not exist: its page, its API detail and its replay answer 404, exactly as for a missing
match, and no list shows it (the match browser, /api/matches/ with or without filters, a bot's or a
user's recent matches, the home page). A public event's matches stay public."""

from __future__ import annotations

import pytest
from django.test import Client

from armada_web.matches.models import Match, MatchStatus
from armada_web.matches.storage import save_replay
from tests.support.seasons_helpers import queued, record_result

pytestmark = pytest.mark.django_db


@pytest.fixture
def people(make_user, valid_version, api):
    """The event's owner and an entrant (each with a playing Galaxy bot and an API client), and a stranger."""
    owner, entrant, stranger = make_user("olga"), make_user("mia"), make_user("sam")
    return {"owner": (owner, api(owner), valid_version(owner, "olga-bot")),
            "entrant": (entrant, api(entrant), valid_version(entrant, "mia-bot")),
            "stranger": (stranger, api(stranger))}


def _played_event(people, *, public: bool) -> Match:
    """An event of the owner's and the entrant's bots whose first match has finished with a stored replay."""
    from armada_web.events import matchmaking
    from armada_web.events.models import Event

    _owner, owner_api, v0 = people["owner"]
    _entrant, entrant_api, v1 = people["entrant"]
    made = owner_api.post("/api/events/", {"name": "Quiet club", "game": "galaxy", "format": "round_robin",
                                           "games_per_pair": 1, "public": public}, format="json")
    assert made.status_code == 201, made.json()
    slug, invite = made.json()["slug"], made.json()["invite"]
    assert owner_api.post(f"/api/events/{slug}/entries/", {"bot": v0.bot_id}, format="json").status_code == 201
    assert entrant_api.post(f"/api/events/{slug}/entries/", {"bot": v1.bot_id, "invite": invite},
                            format="json").status_code == 201
    assert owner_api.post(f"/api/events/{slug}/start/").status_code == 200
    matchmaking.fill(workers=1)
    match = queued("event")[0]
    record_result(match, 1)
    name = save_replay(match.pk, 1, {"format": 1, "turns": []})
    Match.objects.filter(pk=match.pk).update(replay=name)
    match.refresh_from_db()
    assert match.status == MatchStatus.FINISHED and Event.objects.get(slug=slug).public is public
    return match


def _anonymous() -> Client:
    return Client()


def test_a_private_events_match_is_a_404_for_anyone_outside_it(people):
    match = _played_event(people, public=False)
    stranger_api = people["stranger"][1]
    for client in (stranger_api, _anonymous()):
        for path in (f"/api/matches/{match.pk}/", f"/api/matches/{match.pk}/replay/"):
            answer = client.get(path)
            assert answer.status_code == 404, (path, answer.status_code)
            missing = client.get(path.replace(str(match.pk), str(match.pk + 1000)))
            assert answer.json() == missing.json()  # the same answer as for a missing match
        assert client.get(f"/matches/{match.pk}/").status_code == 404


def test_a_private_events_match_is_in_no_list_for_anyone_outside_it(people, make_user):
    match = _played_event(people, public=False)
    bot = people["owner"][2].bot
    stranger_api = people["stranger"][1]
    for client in (stranger_api, _anonymous()):
        for query in ("", "?kind=event", f"?bot={bot.pk}", f"?bot={bot.name}&kind=event", "?page=1",
                      "?kind=event&page=1"):
            rows = client.get(f"/api/matches/{query}").json()["results"]
            assert match.pk not in [r["id"] for r in rows], query
        for path in ("/matches/", "/matches/?kind=event", f"/bots/{bot.pk}/", "/users/olga/", "/"):
            page = client.get(path)
            assert page.status_code == 200 and f"/matches/{match.pk}/" not in page.content.decode(), path


def test_a_private_events_members_and_staff_see_its_matches(people, make_user, api):
    match = _played_event(people, public=False)
    staff = make_user("root", is_staff=True)
    for client in (people["owner"][1], people["entrant"][1], api(staff)):
        assert client.get(f"/api/matches/{match.pk}/").status_code == 200
        assert client.get(f"/api/matches/{match.pk}/replay/").status_code == 200
        assert match.pk in [r["id"] for r in client.get("/api/matches/?kind=event").json()["results"]]
    page = Client()
    page.force_login(people["entrant"][0])
    assert page.get(f"/matches/{match.pk}/").status_code == 200


def test_a_public_events_matches_are_public(people):
    match = _played_event(people, public=True)
    anonymous = _anonymous()
    assert anonymous.get(f"/api/matches/{match.pk}/").status_code == 200
    assert anonymous.get(f"/api/matches/{match.pk}/replay/").status_code == 200
    assert anonymous.get(f"/matches/{match.pk}/").status_code == 200
    assert match.pk in [r["id"] for r in anonymous.get("/api/matches/?kind=event").json()["results"]]


@pytest.mark.parametrize("action", ["enter", "start", "invite"])
def test_a_private_events_buttons_answer_a_stranger_as_for_no_event(people, action):
    """The pages' POST actions on a private event answer a signed-in stranger 404, as for a slug that
    names no event (not a redirect to its page, which would tell that it exists); nothing changes."""
    from armada_web.events.models import Event, EventEntry, EventInvitation

    owner_api, stranger = people["owner"][1], people["stranger"][0]
    slug = owner_api.post("/api/events/", {"name": "Quiet club", "game": "galaxy", "format": "round_robin",
                                           "games_per_pair": 1}, format="json").json()["slug"]
    page = Client()
    page.force_login(stranger)
    body = {"bot": "1", "teams": "sam", "users": "sam"}
    answer = page.post(f"/events/{slug}/{action}/", body)
    missing = page.post(f"/events/no-such-event-0000/{action}/", body)
    assert (answer.status_code, missing.status_code) == (404, 404)
    assert Event.objects.get(slug=slug).state == "open"
    assert not EventEntry.objects.exists() and not EventInvitation.objects.exists()
