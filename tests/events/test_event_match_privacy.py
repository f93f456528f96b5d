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
    shown = page.get(f"/matches/{match.pk}/")
    assert shown.status_code == 200
    slug = match.event_game.event.slug  # the page names and links its event (an organiser's trial: "event" alone)
    assert f'<a href="/events/{slug}/" id="played-for">event Quiet club</a>' in shown.content.decode()


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


def _public_record(bot_id: int) -> dict[str, object]:
    """What a bot's public page counts: its kept record and head-to-head, its records by opponent
    and version, its last faults."""
    from armada_web.matches import queries
    from armada_web.matches.models import HeadToHead

    kept = queries.record_of(bot_id)
    return {"kept": (kept.matches, kept.wins, kept.draws, kept.losses),
            "head_to_head": sorted((h.opponent_id, h.games, h.wins, h.losses)
                                   for h in HeadToHead.objects.filter(bot_id=bot_id)),
            "by_opponent": [(r.opponent_id, r.wins, r.losses) for r in queries.records(bot_id)],
            "by_version": {k: (r.wins, r.losses) for k, r in queries.version_records(bot_id).items()},
            "faults": [p.match_id for p in queries.faults_of(bot_id)]}


@pytest.mark.parametrize("public", [False, True])
def test_a_private_events_games_count_in_no_public_record_of_its_bots(people, public):
    """The event's game ends by seat 2's fault, won by seat 1: a private event's counts nowhere on
    the bots' public pages (kept tallies, records, faults); a public event's counts everywhere."""
    from armada_web.events import matchmaking
    from armada_web.events.models import Event

    _owner, owner_api, v0 = people["owner"]
    _entrant, entrant_api, v1 = people["entrant"]
    made = owner_api.post("/api/events/", {"name": "Quiet club", "game": "galaxy", "format": "round_robin",
                                           "games_per_pair": 1, "public": public}, format="json").json()
    owner_api.post(f"/api/events/{made['slug']}/entries/", {"bot": v0.bot_id}, format="json")
    entrant_api.post(f"/api/events/{made['slug']}/entries/", {"bot": v1.bot_id, "invite": made["invite"]},
                     format="json")
    assert owner_api.post(f"/api/events/{made['slug']}/start/").status_code == 200
    matchmaking.fill(workers=1)
    match = queued("event")[0]
    seat_bots = dict(match.participants.values_list("seat", "bot_id"))
    record_result(match, 1, statuses=("ok", "crashed"))
    assert Event.objects.get(slug=made["slug"]).public is public
    winner, loser = _public_record(seat_bots[1]), _public_record(seat_bots[2])
    if public:
        assert winner["kept"] == (1, 1, 0, 0) and loser["kept"] == (1, 0, 0, 1)
        assert winner["head_to_head"] == [(seat_bots[2], 1, 1, 0)] and loser["faults"] == [match.pk]
        assert winner["by_opponent"] == [(seat_bots[2], 1, 0)] and list(loser["by_version"].values()) == [(0, 1)]
    else:
        for record in (winner, loser):
            assert record == {"kept": (0, 0, 0, 0), "head_to_head": [], "by_opponent": [], "by_version": {},
                              "faults": []}


def test_the_migration_takes_back_what_earlier_versions_counted_of_private_events(people):
    """Before, a private event's match was counted like any other: the data migration takes its seats'
    matches, results and head-to-head games back and leaves every other count as it was."""
    import importlib

    from django.apps import apps
    from django.db.models import F

    from armada_web.matches import tallies
    from armada_web.matches.models import Participant

    match = _played_event(people, public=False)
    seats = list(Participant.objects.filter(match=match).order_by("seat"))
    tallies.count_made(seats=seats)  # what the platform counted before
    from armada_web.matches.models import BotRecord, HeadToHead, Result

    for p in seats:  # the old count_result's increments, written as it wrote them
        column = tallies.COLUMNS[Result(p.result)]
        tallies._add(BotRecord, {"bot_id": p.bot_id}, {column: 1})
        tallies._add(HeadToHead, {"bot_id": p.bot_id, "opponent_id": p.opponent_id}, {"games": 1, column: 1},
                     {"opponent_name": "x", "last_match_id": match.pk})
    BotRecord.objects.filter(bot_id=seats[0].bot_id).update(matches=F("matches") + 5, wins=F("wins") + 3)
    migration = importlib.import_module("armada_web.events.migrations.0004_private_event_games_uncounted")
    migration.uncount_private_games(apps, None)
    first = BotRecord.objects.get(bot_id=seats[0].bot_id)
    second = BotRecord.objects.get(bot_id=seats[1].bot_id)
    assert (first.matches, first.wins, first.losses) == (5, 3, 0)  # the other games' counts stay
    assert (second.matches, second.wins, second.losses) == (0, 0, 0)
    assert not HeadToHead.objects.filter(bot_id__in=[s.bot_id for s in seats]).exists()


def test_staff_cannot_flip_an_events_public_flag_in_the_admin(people, make_user):
    """Whether an event is public is fixed at its creation: the bots' public records leave a private
    event's games out from their making on, so the admin shows the flag but does not change it."""
    from armada_web.events.admin import EventAdmin
    from armada_web.events.models import Event

    _owner, owner_api, _v0 = people["owner"]
    slug = owner_api.post("/api/events/", {"name": "Quiet club", "game": "galaxy", "format": "round_robin",
                                           "games_per_pair": 1, "public": False}, format="json").json()["slug"]
    event = Event.objects.get(slug=slug)
    assert "public" in EventAdmin.readonly_fields
    root = make_user("root", is_staff=True, is_superuser=True)
    client = Client()
    client.force_login(root)
    page = client.get(f"/admin/events/event/{event.pk}/change/")
    assert page.status_code == 200 and b'name="public"' not in page.content


def test_a_teammate_of_an_entered_bot_sees_the_private_event_and_its_matches(people, make_user):
    """The entrant's bot belongs to a shared team: its other member sees the event, lists it, and
    sees its match (the team's bot plays there), as the entrant does; a former member no longer does."""
    from armada_web.bots.models import Bot
    from armada_web.teams.services import create_team, join_team, leave_team

    entrant, _entrant_api, v1 = people["entrant"]
    team = create_team(user=entrant, name="Mia and Tom")
    tom = make_user("tom")
    join_team(user=tom, team=team, key=team.join_key)
    Bot.objects.filter(pk=v1.bot_id).update(team=team)  # before it enters: the entry names the team
    match = _played_event(people, public=False)
    tom_api = people["stranger"][1].__class__()
    tom_api.force_authenticate(tom)
    slug = match.event_game.event.slug
    assert tom_api.get(f"/api/events/{slug}/").status_code == 200
    assert slug in [e["slug"] for e in tom_api.get("/api/events/").json()["results"]]
    assert tom_api.get(f"/api/matches/{match.pk}/").status_code == 200
    assert [m["id"] for m in tom_api.get("/api/matches/?kind=event").json()["results"]] == [match.pk]
    leave_team(user=tom, team=team)
    assert tom_api.get(f"/api/matches/{match.pk}/").status_code == 404
    assert tom_api.get(f"/api/events/{slug}/").status_code == 404


@pytest.mark.parametrize("public", [False, True])
def test_an_invite_code_outside_ascii_is_a_wrong_code_not_an_error(people, public):
    """The code is compared in constant time as bytes: "é" is refused like any wrong code (404 for a
    private event, 403 for a public one), on the API and on the event's page, never a 500."""
    _owner, owner_api, _v0 = people["owner"]
    _entrant, entrant_api, v1 = people["entrant"]
    slug = owner_api.post("/api/events/", {"name": "Quiet club", "game": "galaxy", "format": "round_robin",
                                           "games_per_pair": 1, "public": public}, format="json").json()["slug"]
    for code in ("é" * 22, "\u0000", "x" * 500):
        entered = entrant_api.post(f"/api/events/{slug}/entries/", {"bot": v1.bot_id, "invite": code}, format="json")
        refused = (400,) if code == "\u0000" else (403,) if public else (404, 400)  # NUL: no code holds one
        assert entered.status_code in refused, (code[:3], entered.status_code)
        page = entrant_api.get(f"/events/{slug}/", {"invite": code})
        assert page.status_code == (200 if public else 404)


def test_a_bot_moved_after_its_private_event_gives_its_new_team_no_seat_of_the_events_match(people, make_user):
    """The entrant enters a bot of their personal team, then moves it to a shared team after the
    event played: the entry names the personal team, so the shared team's other member is not in
    the event, and its match does not exist for them: its seat's requests and drawings answer 404
    as for a missing match, like the match itself (the bot's owner still reads them)."""
    from armada_web.bots.moves import move_bot
    from armada_web.teams.services import create_team, join_team

    entrant, entrant_api, v1 = people["entrant"]
    match = _played_event(people, public=False)
    seat = next(p.seat for p in match.participants.all() if p.version_id == v1.pk)
    team = create_team(user=entrant, name="Mia and Tom")
    tom = make_user("tom")
    join_team(user=tom, team=team, key=team.join_key)
    move_bot(bot=v1.bot, user=entrant, team=team.pk)
    tom_api = people["stranger"][1].__class__()
    tom_api.force_authenticate(tom)
    assert tom_api.get(f"/api/matches/{match.pk}/").status_code == 404
    for path in (f"/api/matches/{match.pk}/requests/?seat={seat}", f"/api/matches/{match.pk}/debug/?seat={seat}"):
        answer = tom_api.get(path)
        missing = tom_api.get(path.replace(f"/{match.pk}/", f"/{match.pk + 1000}/"))
        assert (answer.status_code, answer.json()) == (404, missing.json()), path
    assert entrant_api.get(f"/api/matches/{match.pk}/debug/?seat={seat}").status_code == 200
